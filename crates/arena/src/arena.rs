//! Match play: two players, many games, several threads, one summary.
//!
//! [`play_match`] plays [`MatchConfig::games`] games between player A and player B, each game
//! with fresh players made by the two factories, on [`MatchConfig::threads`] threads:
//!
//! - **Colours alternate**: A is White in even-numbered games (0, 2, ...) and Black in odd ones.
//! - **Paired random openings**: games `2k` and `2k + 1` start with the same random opening
//!   ([`random_opening`], [`MatchConfig::opening_plies`] random turns from the start position,
//!   drawn from the match seed and `k`), so every opening is played once with each colour
//!   assignment and no pair of games is a copy of another. A *ply* here is one whole turn. The
//!   opening never ends the game: each of its turns is drawn among the turns after which the
//!   game goes on (should there be none, the opening is cut short there).
//! - **Reproducible**: game `i`'s players get random streams derived from the match seed, `i`
//!   and their side, and results are collected by game number, so the same seed gives the same
//!   games whatever the number of threads (for players limited by depth or simulations; time
//!   limits depend on the machine).
//! - **Runaway guard**: the no-progress rule ends every game, but a game still running after
//!   [`MatchConfig::max_turns`] turns (possible when that rule is switched off) is stopped and
//!   scored as a draw, counted under [`MatchResult::turn_limit_draws`].
//! - **Think time**: every turn a player chooses is timed ([`MatchGame::think_ms`]), so a match
//!   can say how much of its budget each player really used.
//! - **Extending a match**: with [`MatchConfig::first_game`] = `k`, only games `k..games` are
//!   played; since a game depends only on the seed and its number, they are the games a longer
//!   match would have had there (the rating store adds games to a stored match this way).

use std::fmt;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::mpsc;
use std::time::Instant;

use fanorona_engine::{Color, DrawReason, IllegalTurn, Outcome, Position, Rules, Turn};

use crate::elo::{EloEstimate, MatchScore};
use fanorona_mcts::derive_seed;
use fanorona_players::{Player, PlayerError, random_opening};
use fanorona_session::GameSession;

/// Settings of a match.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MatchConfig {
    /// Games to play.
    pub games: u32,
    /// Threads playing games at once (1 to [`MatchConfig::MAX_THREADS`]).
    pub threads: usize,
    /// Seed of the openings and of the players' random streams.
    pub seed: u64,
    /// Random turns played from the start position before the players take over.
    pub opening_plies: u32,
    /// The rules (no-progress limit).
    pub rules: Rules,
    /// A game still running after this many turns (opening included) is stopped as a draw.
    pub max_turns: u32,
    /// The first game to play (0-based): games before it are not played (see the module docs).
    pub first_game: u32,
}

impl MatchConfig {
    /// Default runaway guard: far beyond any game the no-progress rule allows (each capture
    /// takes a stone, and at most 50 turns pass between captures by default).
    pub const DEFAULT_MAX_TURNS: u32 = 10_000;
    /// Most threads a match uses, whatever [`MatchConfig::threads`] says.
    pub const MAX_THREADS: usize = 1024;
    /// Most games in one match (every game's record is kept).
    pub const MAX_GAMES: u32 = 100_000;
    /// Most random opening turns.
    pub const MAX_OPENING_PLIES: u32 = 64;

    /// Checks the counts against their bounds: `games` 1 to [`MatchConfig::MAX_GAMES`],
    /// `opening_plies` at most [`MatchConfig::MAX_OPENING_PLIES`], `max_turns` at least 1.
    pub fn check(&self) -> Result<(), MatchError> {
        let bad = |what: String| Err(MatchError::Settings(what));
        if !(1..=Self::MAX_GAMES).contains(&self.games) {
            return bad(format!(
                "games must be from 1 to {}, not {}",
                Self::MAX_GAMES,
                self.games
            ));
        }
        if self.opening_plies > Self::MAX_OPENING_PLIES {
            return bad(format!(
                "opening plies must be at most {}, not {}",
                Self::MAX_OPENING_PLIES,
                self.opening_plies
            ));
        }
        if self.max_turns == 0 {
            return bad("the turn limit must be at least 1".into());
        }
        Ok(())
    }
}

impl Default for MatchConfig {
    fn default() -> Self {
        MatchConfig {
            games: 100,
            threads: 1,
            seed: 0,
            opening_plies: 4,
            rules: Rules::default(),
            max_turns: Self::DEFAULT_MAX_TURNS,
            first_game: 0,
        }
    }
}

/// One of the two players of a match.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Side {
    /// The first player: the results are given from its point of view.
    A,
    /// The second player.
    B,
}

impl fmt::Display for Side {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Side::A => "A",
            Side::B => "B",
        })
    }
}

/// An error from a player factory.
pub type FactoryError = Box<dyn std::error::Error + Send + Sync>;

/// Makes a fresh player for one game, given the seed of its random stream.
pub type PlayerFactory<'a> = dyn Fn(u64) -> Result<Box<dyn Player>, FactoryError> + Sync + 'a;

/// Why a match stopped.
#[derive(Debug, thiserror::Error)]
pub enum MatchError {
    /// The match's settings are out of bounds ([`MatchConfig::check`]).
    #[error("match settings: {0}")]
    Settings(String),
    /// A factory could not make a player.
    #[error("game {game}: could not make player {side}: {source}")]
    Factory {
        /// 1-based game number.
        game: u32,
        /// Which player.
        side: Side,
        /// The factory's error.
        source: FactoryError,
    },
    /// A player could not choose a turn.
    #[error("game {game}: player {side} ({name}) failed: {source}")]
    Player {
        /// 1-based game number.
        game: u32,
        /// Which player.
        side: Side,
        /// Its name.
        name: String,
        /// What went wrong.
        source: PlayerError,
    },
    /// A player chose an illegal turn.
    #[error(
        "game {game}: player {side} ({name}) chose the illegal turn {turn} in {position}: {source}"
    )]
    IllegalTurn {
        /// 1-based game number.
        game: u32,
        /// Which player.
        side: Side,
        /// Its name.
        name: String,
        /// The turn, in notation.
        turn: String,
        /// The position, in notation.
        position: String,
        /// Why it is illegal.
        source: Box<IllegalTurn>,
    },
}

/// Result of one game for player A.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GameResult {
    /// A won.
    Win,
    /// Nobody won.
    Draw,
    /// A lost.
    Loss,
}

/// One game of a match: the [`GameSession`] it was played in, which side had which colour,
/// and how much of it was the random opening.
#[derive(Clone, Debug, PartialEq)]
pub struct MatchGame {
    /// 0-based game number.
    pub index: u32,
    /// The colour player A had.
    pub a_color: Color,
    /// How many of the first turns were the random opening.
    pub opening_turns: u32,
    /// The game: the start position and every turn, opening included.
    pub session: GameSession,
    /// Milliseconds each player took to choose each turn after the opening, in turn order.
    pub think_ms: Vec<u32>,
}

impl MatchGame {
    /// The position the game started from (the start position; the opening is in the turns).
    pub fn start(&self) -> &Position {
        self.session.start()
    }

    /// Every turn, in order, opening included.
    pub fn turns(&self) -> &[Turn] {
        self.session.turns()
    }

    /// How it ended; `None` when it was stopped by [`MatchConfig::max_turns`].
    pub fn outcome(&self) -> Option<Outcome> {
        self.session.outcome()
    }

    /// The result for player A (a stopped game is a draw).
    pub fn result_for_a(&self) -> GameResult {
        match self.outcome().and_then(Outcome::winner) {
            Some(w) if w == self.a_color => GameResult::Win,
            Some(_) => GameResult::Loss,
            None => GameResult::Draw,
        }
    }

    /// The think times of `side`'s turns, in milliseconds, in order.
    pub fn think_ms_of(&self, side: Side) -> impl Iterator<Item = u32> + '_ {
        let first = self.opening_turns as usize;
        self.think_ms
            .iter()
            .enumerate()
            .filter(move |&(i, _)| self.side_of(self.session.side_of_turn(first + i)) == side)
            .map(|(_, &ms)| ms)
    }

    /// The player who had `color`.
    pub fn side_of(&self, color: Color) -> Side {
        if color == self.a_color {
            Side::A
        } else {
            Side::B
        }
    }

    /// The score string: `1-0`, `0-1`, `1/2-1/2`, or `*` for a stopped game.
    pub fn score(&self) -> &'static str {
        self.outcome().map_or("*", Outcome::score)
    }

    /// Why it ended: `all-captured`, `no-legal-move`, `repetition`, `no-progress`, or
    /// `turn-limit` for a stopped game.
    pub fn reason(&self) -> &'static str {
        self.outcome().map_or("turn-limit", Outcome::reason_tag)
    }

    /// The game as one line of a games file, fields separated by `" | "`:
    ///
    /// ```text
    /// <game number> white=<A|B> black=<A|B> opening=<K> | <start position> | <turn> <turn> ... | <result> <reason> | ms <t> <t> ...
    /// ```
    ///
    /// The game number is 1-based; the start position and the turns are in the notation of
    /// docs/rules.md, the turns separated by single spaces (the first `K` are the random opening);
    /// the result is `1-0`, `0-1`, `1/2-1/2` or `*` (stopped), and the reason is one of
    /// [`MatchGame::reason`]'s tags; the last field is the think time of every turn after the
    /// opening in milliseconds. Example:
    ///
    /// ```text
    /// 1 white=A black=B opening=2 | BBBBBBBBB/BBBBBBBBB/BWBW1BWBW/WWWWWWWWW/WWWWWWWWW w 0 1 | d2e3a ... | 1-0 all-captured | ms 212 498 ...
    /// ```
    ///
    /// [`crate::games_file`] reads it back.
    pub fn to_line(&self) -> String {
        let turns: Vec<String> = self.turns().iter().map(Turn::to_string).collect();
        let mut times = String::from("ms");
        for ms in &self.think_ms {
            times.push_str(&format!(" {ms}"));
        }
        format!(
            "{} white={} black={} opening={} | {} | {} | {} {} | {times}",
            self.index + 1,
            self.side_of(Color::White),
            self.side_of(Color::Black),
            self.opening_turns,
            self.start(),
            turns.join(" "),
            self.score(),
            self.reason()
        )
    }
}

/// The result of a match, from player A's point of view.
#[derive(Clone, Debug, PartialEq)]
pub struct MatchResult {
    /// Wins, draws and losses of A.
    pub score: MatchScore,
    /// Draws by threefold repetition.
    pub repetition_draws: u32,
    /// Draws by the no-progress rule.
    pub no_progress_draws: u32,
    /// Games stopped by [`MatchConfig::max_turns`] (counted as draws).
    pub turn_limit_draws: u32,
    /// Every game, by game number.
    pub games: Vec<MatchGame>,
}

impl MatchResult {
    /// A's mean score in [0, 1] (`None` with no games).
    pub fn mean_score(&self) -> Option<f64> {
        self.score.score()
    }

    /// Elo difference of A over B with a 95% interval; infinite at a 0% or 100% score (see
    /// [`crate::elo`]).
    pub fn elo(&self) -> Option<EloEstimate> {
        self.score.elo()
    }

    /// Mean game length in turns, opening included (0 with no games).
    pub fn average_turns(&self) -> f64 {
        if self.games.is_empty() {
            return 0.0;
        }
        let total: usize = self.games.iter().map(|g| g.turns().len()).sum();
        total as f64 / self.games.len() as f64
    }

    fn add(&mut self, record: MatchGame) {
        match record.result_for_a() {
            GameResult::Win => self.score.wins += 1,
            GameResult::Draw => self.score.draws += 1,
            GameResult::Loss => self.score.losses += 1,
        }
        match record.outcome() {
            Some(Outcome::Draw(DrawReason::Repetition)) => self.repetition_draws += 1,
            Some(Outcome::Draw(DrawReason::NoProgress)) => self.no_progress_draws += 1,
            Some(Outcome::Win { .. }) => {}
            None => self.turn_limit_draws += 1,
        }
        self.games.push(record);
    }
}

/// Seed of the opening of game pair `pair`.
fn opening_seed(seed: u64, pair: u64) -> u64 {
    // A different stream from the players' (see `player_stream`).
    derive_seed(seed ^ 0x6F70_656E_696E_6773, pair) // "openings"
}

/// Seed of the random stream of `side` in game `index`.
pub fn player_stream(seed: u64, index: u32, side: Side) -> u64 {
    let side = match side {
        Side::A => 0,
        Side::B => 1,
    };
    derive_seed(seed, (u64::from(index) << 1) | side)
}

/// Plays game `index` of the match.
fn play_game(
    config: &MatchConfig,
    index: u32,
    make_a: &PlayerFactory<'_>,
    make_b: &PlayerFactory<'_>,
) -> Result<MatchGame, MatchError> {
    let game_number = index + 1;
    let pair = u64::from(index / 2);
    let a_color = if index.is_multiple_of(2) {
        Color::White
    } else {
        Color::Black
    };
    let make = |side: Side, factory: &PlayerFactory<'_>| {
        factory(player_stream(config.seed, index, side)).map_err(|source| MatchError::Factory {
            game: game_number,
            side,
            source,
        })
    };
    let mut a = make(Side::A, make_a)?;
    let mut b = make(Side::B, make_b)?;
    a.new_game();
    b.new_game();

    let opening = random_opening(
        opening_seed(config.seed, pair),
        config.opening_plies,
        config.rules,
    );
    let mut session = GameSession::new(Position::start(), config.rules);
    for turn in &opening {
        // The opening was drawn by playing these very turns.
        let _ = session.play(turn);
    }
    let mut record = MatchGame {
        index,
        a_color,
        opening_turns: opening.len() as u32,
        session,
        think_ms: Vec::new(),
    };
    while record.turns().len() < config.max_turns as usize && record.outcome().is_none() {
        let color = record.session.position().side_to_move();
        let side = record.side_of(color);
        let player: &mut Box<dyn Player> = if side == Side::A { &mut a } else { &mut b };
        let started = Instant::now();
        let choice = player
            .choose(record.session.game(), None)
            .map_err(|source| MatchError::Player {
                game: game_number,
                side,
                name: player.name().to_string(),
                source,
            })?;
        let ms = started.elapsed().as_millis();
        record.think_ms.push(u32::try_from(ms).unwrap_or(u32::MAX));
        let position = record.session.position().to_string();
        record
            .session
            .play(&choice.turn)
            .map_err(|source| MatchError::IllegalTurn {
                game: game_number,
                side,
                name: player.name().to_string(),
                turn: choice.turn.to_string(),
                position,
                source: Box::new(source),
            })?;
    }
    Ok(record)
}

/// Plays a match (see the [module docs](self)). `on_game` is called on the calling thread
/// after each finished game, in the order games finish, with the totals so far (for progress
/// displays). The first error stops the match.
pub fn play_match(
    config: &MatchConfig,
    make_a: &PlayerFactory<'_>,
    make_b: &PlayerFactory<'_>,
    mut on_game: impl FnMut(&MatchGame, &MatchScore),
) -> Result<MatchResult, MatchError> {
    config.check()?;
    let next = AtomicU32::new(config.first_game);
    let abort = AtomicBool::new(false);
    let threads = config
        .threads
        .clamp(1, MatchConfig::MAX_THREADS)
        .min(config.games.saturating_sub(config.first_game).max(1) as usize);
    let (sender, receiver) = mpsc::channel::<Result<MatchGame, MatchError>>();
    let mut records: Vec<MatchGame> = Vec::new();
    let mut running = MatchScore::default();
    let mut first_error = None;
    std::thread::scope(|scope| {
        let worker = || {
            let sender = sender.clone();
            let (next, abort) = (&next, &abort);
            move || {
                while !abort.load(Ordering::Relaxed) {
                    let index = next.fetch_add(1, Ordering::Relaxed);
                    if index >= config.games {
                        break;
                    }
                    let result = play_game(config, index, make_a, make_b);
                    if result.is_err() {
                        abort.store(true, Ordering::Relaxed);
                    }
                    if sender.send(result).is_err() {
                        break;
                    }
                }
            }
        };
        // As many threads as the system gives; with none, this thread plays the games first.
        if fanorona_data::workers::spawn_workers(scope, threads, worker) == 0 {
            worker()();
        }
        drop(sender);
        for result in receiver {
            match result {
                Ok(record) => {
                    match record.result_for_a() {
                        GameResult::Win => running.wins += 1,
                        GameResult::Draw => running.draws += 1,
                        GameResult::Loss => running.losses += 1,
                    }
                    on_game(&record, &running);
                    records.push(record);
                }
                Err(e) => {
                    abort.store(true, Ordering::Relaxed);
                    first_error.get_or_insert(e);
                }
            }
        }
    });
    if let Some(e) = first_error {
        return Err(e);
    }
    records.sort_by_key(|r| r.index);
    let mut result = MatchResult {
        score: MatchScore::default(),
        repetition_draws: 0,
        no_progress_draws: 0,
        turn_limit_draws: 0,
        games: Vec::with_capacity(records.len()),
    };
    for record in records {
        result.add(record);
    }
    Ok(result)
}

/// How long one player took per turn over some games, against its budget.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ThinkStats {
    /// Turns timed.
    pub turns: usize,
    /// Mean milliseconds per turn.
    pub mean_ms: f64,
    /// Median milliseconds per turn.
    pub median_ms: u32,
    /// Longest turn in milliseconds.
    pub max_ms: u32,
    /// The budget per turn, if the player has one (`ms=` in its spec).
    pub budget_ms: Option<u64>,
    /// Turns that took more than [`ThinkStats::TOLERANCE`] times the budget.
    pub over: usize,
}

impl ThinkStats {
    /// How far past its budget a turn may run before it counts as an overrun: 10%.
    pub const TOLERANCE: f64 = 1.10;
    /// Share of overrunning turns above which a player is flagged: 1%.
    pub const FLAG_SHARE: f64 = 0.01;

    /// The think times of `side` in `games`, against `budget_ms`; `None` when no turn was
    /// timed (version 1 games files carry no times).
    pub fn of(games: &[MatchGame], side: Side, budget_ms: Option<u64>) -> Option<ThinkStats> {
        let mut times: Vec<u32> = games.iter().flat_map(|g| g.think_ms_of(side)).collect();
        Self::from_times(&mut times, budget_ms)
    }

    /// Statistics of `times` (reordered); `None` when empty.
    pub fn from_times(times: &mut [u32], budget_ms: Option<u64>) -> Option<ThinkStats> {
        if times.is_empty() {
            return None;
        }
        times.sort_unstable();
        let total: u64 = times.iter().map(|&t| u64::from(t)).sum();
        let over = budget_ms.map_or(0, |b| {
            times
                .iter()
                .filter(|&&t| f64::from(t) > Self::TOLERANCE * b as f64)
                .count()
        });
        Some(ThinkStats {
            turns: times.len(),
            mean_ms: total as f64 / times.len() as f64,
            median_ms: times[times.len() / 2],
            max_ms: times[times.len() - 1],
            budget_ms,
            over,
        })
    }

    /// Whether the player overran its budget: its mean turn took more than 10% over the
    /// budget, or more than 1% of its turns did.
    pub fn overran(&self) -> bool {
        self.budget_ms.is_some_and(|b| {
            self.mean_ms > Self::TOLERANCE * b as f64
                || self.over as f64 > Self::FLAG_SHARE * self.turns as f64
        })
    }

    /// `mean 312 ms, median 298, max 540 (budget 500, 3 turns over 10%)`.
    pub fn summary(&self) -> String {
        let mut text = format!(
            "mean {:.0} ms, median {}, max {}",
            self.mean_ms, self.median_ms, self.max_ms
        );
        if let Some(b) = self.budget_ms {
            text.push_str(&format!(
                " (budget {b}, {} of {} turns over it by more than 10%{})",
                self.over,
                self.turns,
                if self.overran() { ": OVERRUN" } else { "" }
            ));
        }
        text
    }
}
