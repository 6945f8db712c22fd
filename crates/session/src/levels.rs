//! Strength levels, and the seam between the programs that play against a person (the web
//! server and the terminal game) and the engine that picks the computer's turns.
//!
//! Both call a [`TurnChooser`] at a named [`Level`]. [`ClassicalChooser`] plays with this
//! crate's greedy and alpha-beta players; the network crate's `chooser_for` is the one place
//! that decides which implementation runs (the network with MCTS when a model file is given).

use std::fmt;
use std::str::FromStr;
use std::time::{Duration, Instant};

use fanorona_engine::{Game, Outcome, Turn};
use thiserror::Error;

use fanorona_players::{
    AlphaBetaConfig, AlphaBetaPlayer, Choice, Evaluation, GreedyPlayer, Player, PlayerError,
    ProvingPlayer, Stop,
};

/// Picks the computer's turn in a game.
///
/// Implementations must be cheap to share between threads: the server calls one instance
/// from many blocking threads at once.
pub trait TurnChooser: Send + Sync {
    /// A short name for logs and `/api/info`, e.g. `alphabeta`.
    fn name(&self) -> &str;

    /// A legal turn for the side to move in `game`, chosen with the strength of `level`, with
    /// what the engine reports about it (the score for the side to move, when it has one: the
    /// play page's analysis shows it).
    ///
    /// Should return by `deadline` (a little over is fine; the caller bounds it by
    /// [`Level::think_time`] and the server's own cap), or soon after `stop` is raised (a
    /// request its client abandoned), with the best turn found so far. Fails only when there
    /// is nothing to choose: the game is over, or it is in the middle of a chain that has no
    /// continuation.
    fn think(
        &self,
        game: &Game,
        level: Level,
        deadline: Instant,
        stop: &Stop,
    ) -> Result<Choice, ChooseError>;

    /// The turn of [`think`](TurnChooser::think) alone.
    fn choose(
        &self,
        game: &Game,
        level: Level,
        deadline: Instant,
        stop: &Stop,
    ) -> Result<Turn, ChooseError> {
        Ok(self.think(game, level, deadline, stop)?.turn)
    }

    /// What `level` means with this engine, for `/api/info` and the page. The default
    /// describes the classical engine ([`Level::description`], [`Level::depth`]).
    fn level_strength(&self, level: Level) -> LevelStrength {
        LevelStrength {
            description: level.description().to_string(),
            depth: level.depth(),
            simulations: None,
        }
    }

    /// The endgame tables this engine plays with, if any (the page shows their verdict).
    fn tables(&self) -> Option<&fanorona_tablebase::Tablebase> {
        None
    }
}

/// How strong a level is with a given engine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LevelStrength {
    /// One line for people: what playing this level is like.
    pub description: String,
    /// Alpha-beta depth in turns, for the classical engine (`None`: not a depth search, or
    /// as deep as the think time allows).
    pub depth: Option<u32>,
    /// Network simulations per step (`None`: not the network, or as many as the think time
    /// allows).
    pub simulations: Option<u32>,
}

/// Why no turn could be chosen.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum ChooseError {
    /// The game is already over.
    #[error("the game is over ({0})")]
    GameOver(Outcome),
    /// The side to move has no legal turn (only from a position mid-chain or a set-up one).
    #[error("the side to move has no legal turn")]
    NoLegalTurn,
    /// The player could not choose (for example: a capture chain is in progress, and players
    /// choose whole turns).
    #[error(transparent)]
    Player(#[from] PlayerError),
}

/// The checks before any engine is asked: the game goes on and has a legal action.
pub fn check_choosable(game: &Game) -> Result<(), ChooseError> {
    if let Some(outcome) = game.outcome() {
        return Err(ChooseError::GameOver(outcome));
    }
    if game.position().legal_actions().is_empty() {
        return Err(ChooseError::NoLegalTurn);
    }
    Ok(())
}

/// A named playing strength.
///
/// | level | without a model | with a model (network + MCTS) | think time |
/// | --- | --- | --- | --- |
/// | `beginner` | `greedy`: the biggest capture now, no look-ahead (easy to lure into traps) | 4 simulations per step | instant |
/// | `easy` | `alphabeta`, 2 turns deep | 32 simulations | up to 0.3 s |
/// | `medium` | `alphabeta`, 4 turns deep | 160 simulations | up to 1 s |
/// | `hard` | `alphabeta`, as deep as 3 seconds allow | as many as 3 seconds allow | up to 3 s |
///
/// The players are deterministic for a given game (their seeds derive from the position), so
/// tests and bug reports can rely on a level playing the same turn in the same game.
#[derive(
    Copy,
    Clone,
    Debug,
    Default,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    serde::Serialize,
    serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    /// Takes the biggest capture it sees, without looking ahead.
    Beginner,
    /// Looks two turns ahead.
    Easy,
    /// Looks four turns ahead (the default).
    #[default]
    Medium,
    /// Thinks for up to three seconds.
    Hard,
}

impl Level {
    /// Every level, weakest first.
    pub const ALL: [Level; 4] = [Level::Beginner, Level::Easy, Level::Medium, Level::Hard];

    /// The level's name as written on the command line and in the API.
    pub const fn name(self) -> &'static str {
        match self {
            Level::Beginner => "beginner",
            Level::Easy => "easy",
            Level::Medium => "medium",
            Level::Hard => "hard",
        }
    }

    /// One line for people: what playing this level is like.
    pub const fn description(self) -> &'static str {
        match self {
            Level::Beginner => "takes the biggest capture it sees, without looking ahead",
            Level::Easy => "looks two turns ahead",
            Level::Medium => "looks four turns ahead",
            Level::Hard => {
                "thinks for up to three seconds, and plays a proven turn where a third of that proves the position"
            }
        }
    }

    /// How long the engine may think for one turn at this level.
    pub const fn think_time(self) -> Duration {
        match self {
            Level::Beginner => Duration::from_millis(100),
            Level::Easy => Duration::from_millis(300),
            Level::Medium => Duration::from_millis(1000),
            Level::Hard => Duration::from_millis(3000),
        }
    }

    /// Network simulations per step (`None`: as many as the think time allows).
    pub const fn simulations(self) -> Option<u32> {
        match self {
            Level::Beginner => Some(4),
            Level::Easy => Some(32),
            Level::Medium => Some(160),
            Level::Hard => None,
        }
    }

    /// Alpha-beta search depth in turns (`None`: deepen until the time is up).
    pub const fn depth(self) -> Option<u32> {
        match self {
            Level::Beginner => Some(0),
            Level::Easy => Some(2),
            Level::Medium => Some(4),
            Level::Hard => None,
        }
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A level name that is not one of [`Level::ALL`].
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("unknown level {0:?}; expected one of beginner, easy, medium, hard")]
pub struct UnknownLevel(pub String);

impl FromStr for Level {
    type Err = UnknownLevel;

    fn from_str(s: &str) -> Result<Level, UnknownLevel> {
        Level::ALL
            .into_iter()
            .find(|l| l.name().eq_ignore_ascii_case(s.trim()))
            .ok_or_else(|| UnknownLevel(s.to_string()))
    }
}

/// The classical players: `greedy` for [`Level::Beginner`], `alphabeta` for the others (with
/// the endgame tables, when given: a beginner does not get them; with a learned evaluation,
/// when given, at the two strongest levels). Stateless between calls: every request gets a
/// fresh player, so one instance serves any number of threads.
#[derive(Debug, Clone)]
pub struct ClassicalChooser {
    tables: fanorona_players::tables::Tables,
    eval: Evaluation,
    name: String,
}

impl Default for ClassicalChooser {
    fn default() -> Self {
        ClassicalChooser::with_tables(None)
    }
}

impl ClassicalChooser {
    /// The classical players with these endgame tables.
    pub fn with_tables(tables: fanorona_players::tables::Tables) -> ClassicalChooser {
        ClassicalChooser {
            tables,
            eval: Evaluation::Handwritten,
            name: "alphabeta".into(),
        }
    }

    /// The same, its two strongest levels searching with `eval` (a learned evaluation).
    pub fn with_evaluation(mut self, eval: Evaluation) -> ClassicalChooser {
        self.name = match &eval {
            Evaluation::Handwritten => "alphabeta".into(),
            Evaluation::Learned(_) => "alphabeta with the learned evaluation".into(),
        };
        self.eval = eval;
        self
    }

    /// Whether `level` searches with the learned evaluation.
    fn learned_at(&self, level: Level) -> bool {
        matches!(self.eval, Evaluation::Learned(_)) && level >= Level::Medium
    }
}

/// Transposition table per search in the server: small, since many searches may run at once.
const SERVER_TT_MEBIBYTES: usize = 4;

impl TurnChooser for ClassicalChooser {
    fn name(&self) -> &str {
        &self.name
    }

    fn level_strength(&self, level: Level) -> LevelStrength {
        let description = if self.learned_at(level) {
            format!(
                "{}, judging positions with its learned evaluation",
                level.description()
            )
        } else {
            level.description().to_string()
        };
        LevelStrength {
            description,
            depth: level.depth(),
            simulations: None,
        }
    }

    fn think(
        &self,
        game: &Game,
        level: Level,
        deadline: Instant,
        stop: &Stop,
    ) -> Result<Choice, ChooseError> {
        check_choosable(game)?;
        let seed = game.position().hash();
        let mut player: Box<dyn Player> = match level.depth() {
            Some(0) => Box::new(GreedyPlayer::new(seed)),
            depth => {
                let left = deadline
                    .saturating_duration_since(Instant::now())
                    .min(level.think_time());
                // The strongest level spends a third of its time on a proof first.
                let proof = (level == Level::Hard).then(|| left / 3);
                let millis = (left - proof.unwrap_or_default()).as_millis().max(1) as u64;
                let searcher = Box::new(
                    AlphaBetaPlayer::new(AlphaBetaConfig {
                        depth,
                        millis: Some(millis),
                        tt_mebibytes: SERVER_TT_MEBIBYTES,
                        seed,
                        ..AlphaBetaConfig::default()
                    })
                    .with_tables(self.tables.clone())
                    .with_evaluation(if self.learned_at(level) {
                        self.eval.clone()
                    } else {
                        Evaluation::Handwritten
                    }),
                );
                match proof {
                    Some(budget) => Box::new(ProvingPlayer::new(
                        searcher,
                        budget,
                        self.tables.clone(),
                        match &self.eval {
                            Evaluation::Learned(net) => Some(net.clone()),
                            Evaluation::Handwritten => None,
                        },
                    )),
                    None => searcher,
                }
            }
        };
        player.set_stop(stop.clone());
        Ok(player.choose(game, None)?)
    }

    fn tables(&self) -> Option<&fanorona_tablebase::Tablebase> {
        self.tables.as_deref()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn level_names_round_trip() {
        for level in Level::ALL {
            assert_eq!(level.name().parse::<Level>(), Ok(level));
            assert_eq!(level.to_string(), level.name());
        }
        assert_eq!("HARD".parse::<Level>(), Ok(Level::Hard));
        let e = "grandmaster".parse::<Level>().unwrap_err().to_string();
        assert!(e.contains("beginner, easy, medium, hard"), "{e}");
    }

    #[test]
    fn levels_get_stronger() {
        for pair in Level::ALL.windows(2) {
            assert!(pair[0].think_time() < pair[1].think_time());
            let depth = |l: Level| l.depth().unwrap_or(u32::MAX);
            assert!(depth(pair[0]) < depth(pair[1]));
        }
    }

    #[test]
    fn a_player_error_is_reported_as_itself() {
        // In the middle of a chain, turn-level players cannot choose: the error says so.
        let pos: fanorona_engine::Position = "3B5/9/2W1B4/1B7/8W w".parse().unwrap();
        let mut game = Game::from_position(pos, fanorona_engine::Rules::default());
        game.apply("c3d3a".parse().unwrap());
        assert!(game.position().chain().is_some());
        let err = ClassicalChooser::default()
            .choose(
                &game,
                Level::Easy,
                Instant::now() + Duration::from_secs(1),
                &Stop::new(),
            )
            .unwrap_err();
        assert_eq!(err, ChooseError::Player(PlayerError::MidChain));
        assert!(
            err.to_string().contains("capture chain is in progress"),
            "{err}"
        );
    }

    #[test]
    fn every_level_plays_a_legal_turn() {
        let game = Game::new(fanorona_engine::Rules::default());
        for level in Level::ALL {
            let deadline = Instant::now() + level.think_time();
            let turn = ClassicalChooser::default()
                .choose(&game, level, deadline, &Stop::new())
                .unwrap();
            assert!(
                game.position().try_play_turn(&turn).is_ok(),
                "{level}: {turn}"
            );
        }
    }
}
