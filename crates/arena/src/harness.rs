//! The rating harness behind `fanorona rate`: many players on one Elo scale, from games that
//! are stored and reused.
//!
//! **Who plays whom** ([`schedule`]). Every player meets every member of a fixed *panel*
//! (default [`DEFAULT_PANEL`]: `alphabeta:depth=2`, `alphabeta:depth=3` and `alphabeta` at the
//! time control), and the panel members meet each other; with `round_robin` the players also
//! meet each other. Each pairing is a match of the configured games with paired random
//! openings and colours swapped ([`crate::arena`]).
//!
//! **Equal time** ([`TimeControl`]). Every player without a limit of its own (`ms`, `sims` or
//! `depth`) gets the time control's: milliseconds a turn, or simulations a step for the MCTS
//! kinds (and depth 4 for alpha-beta).
//!
//! **One scale** ([`Scale`]). The ratings are the maximum-likelihood fit over every game of
//! every pairing ([`crate::rating`]), anchored at [`ANCHOR`] = 0, with 95% intervals. The
//! training run's own scale (`ratings.csv`) is fitted by the same code.
//!
//! **Stored games** ([`crate::store`]). Each pairing's games are saved as they are played (at
//! most every [`SAVE_EVERY`], and at the pairing's end, so that a long pairing of quick games
//! is not rewritten after each one) and reused: a later run with more players plays only their games, more games play only the
//! missing ones, and an interrupted run goes on where it stopped.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// How often a pairing being played is saved: an interrupted rating loses at most the games
/// of this long.
pub const SAVE_EVERY: Duration = Duration::from_secs(2);

use fanorona_specs::{BuildError, Registry, Settings, SpecError};

use crate::arena::{
    FactoryError, GameResult, MatchConfig, MatchError, MatchGame, Side, ThinkStats, play_match,
};
use crate::elo::MatchScore;
use crate::games_file::GamesHeader;
use crate::rating::{Fit, FitError, FitOptions, Pairing, fit};
use crate::store::{Store, StoreError};

/// The player every rating is relative to.
pub const ANCHOR: &str = "alphabeta:depth=2";

/// The panel when none is given (the anchor is always added).
pub const DEFAULT_PANEL: [&str; 3] = ["alphabeta:depth=2", "alphabeta:depth=3", "alphabeta"];

/// How much thinking each player without a limit of its own gets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimeControl {
    /// Milliseconds a turn.
    Millis(u64),
    /// Simulations a step for the MCTS kinds; depth 4 for alpha-beta.
    Simulations(u32),
}

impl std::fmt::Display for TimeControl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TimeControl::Millis(ms) => write!(f, "{ms} ms a turn"),
            TimeControl::Simulations(n) => write!(f, "{n} simulations a step"),
        }
    }
}

/// What went wrong in the harness.
#[derive(Debug, thiserror::Error)]
pub enum HarnessError {
    /// A player that cannot be made.
    #[error("{what}: {source}")]
    Player {
        /// Which argument.
        what: String,
        /// Why.
        source: BuildError,
    },
    /// The store.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// A match.
    #[error("{a} vs {b}: {source}")]
    Match {
        /// Player A.
        a: String,
        /// Player B.
        b: String,
        /// What stopped it.
        source: Box<MatchError>,
    },
    /// The scale cannot be fitted.
    #[error(
        "cannot place the players on one scale: {source} (players are numbered from 0 in this order: {names})"
    )]
    Fit {
        /// The players, in order.
        names: String,
        /// Why.
        source: FitError,
    },
    /// Fewer than two players.
    #[error("nothing to rate: give players, a run's checkpoints or panel members")]
    Nothing,
}

/// A player on the scale.
#[derive(Clone, Debug)]
pub struct Entrant {
    /// Shown in the table.
    pub label: String,
    /// What plays.
    pub settings: Settings,
    /// Its identity in the store (files replaced by what they hold).
    pub key: String,
    /// A panel member (the rest are rated players).
    pub panel: bool,
    /// For a run's checkpoint: its training steps.
    pub steps: Option<u64>,
    /// For a run's checkpoint: the run's working time when it was saved, in seconds.
    pub seconds: Option<f64>,
}

/// A checkpoint of a training run to rate.
#[derive(Clone, Debug)]
pub struct RunCheckpoint {
    /// Its training steps.
    pub steps: u64,
    /// The player that plays with it: `net:path=<file>` for a network run's checkpoint,
    /// `alphabeta:eval=<file>` for an evaluation run's.
    pub player: String,
    /// The file.
    pub path: PathBuf,
    /// The run's working time when it was saved, in seconds, if it records one.
    pub seconds: Option<f64>,
}

/// Who to rate.
#[derive(Clone, Debug, Default)]
pub struct Field {
    /// Panel specs (empty: [`DEFAULT_PANEL`]); the anchor is always added.
    pub panel: Vec<String>,
    /// Player specs.
    pub players: Vec<String>,
    /// A run's checkpoints, each rated as its player.
    pub checkpoints: Vec<RunCheckpoint>,
}

/// The entrants: the panel, the run's checkpoints and the players, each once (a player the
/// same as an earlier one is reported through `note` and rated once). Loads every model once.
pub fn entrants(
    field: &Field,
    control: TimeControl,
    registry: &Registry,
    note: &mut dyn FnMut(String),
) -> Result<Vec<Entrant>, HarnessError> {
    let mut panel: Vec<String> = if field.panel.is_empty() {
        DEFAULT_PANEL.map(String::from).to_vec()
    } else {
        field.panel.clone()
    };
    if !panel.iter().any(|p| p.trim() == ANCHOR) {
        panel.insert(0, ANCHOR.to_string());
    }
    let mut list: Vec<Entrant> = Vec::new();
    let mut add = |e: Entrant, list: &mut Vec<Entrant>| {
        if let Some(same) = list.iter().find(|o| o.key == e.key) {
            note(format!(
                "{} is the same player as {}; rated once",
                e.label, same.label
            ));
        } else {
            list.push(e);
        }
    };
    for text in &panel {
        let e = entrant(text, control, true, registry, &format!("--panel {text}"))?;
        add(e, &mut list);
    }
    for c in &field.checkpoints {
        let mut e = entrant(&c.player, control, false, registry, &c.player)?;
        e.label = format!("ckpt-{}", c.steps);
        e.steps = Some(c.steps);
        e.seconds = c.seconds;
        add(e, &mut list);
    }
    for text in &field.players {
        let e = entrant(text, control, false, registry, &format!("player {text}"))?;
        add(e, &mut list);
    }
    if list.len() < 2 {
        return Err(HarnessError::Nothing);
    }
    Ok(list)
}

fn entrant(
    text: &str,
    control: TimeControl,
    panel: bool,
    registry: &Registry,
    what: &str,
) -> Result<Entrant, HarnessError> {
    let player = |source: BuildError| HarnessError::Player {
        what: what.to_string(),
        source,
    };
    let settings = registry
        .parse(text)
        .and_then(|s| with_control(&s, control, registry))
        .map_err(|e| player(e.into()))?;
    let key = registry.identity(&settings).map_err(player)?;
    Ok(Entrant {
        label: settings.to_string(),
        key,
        settings,
        panel,
        steps: None,
        seconds: None,
    })
}

/// `settings` with the time control added when its spec has no limit of its own.
pub fn with_control(
    settings: &Settings,
    control: TimeControl,
    registry: &Registry,
) -> Result<Settings, SpecError> {
    let spec = settings.spec();
    let limited = ["ms", "sims", "depth"]
        .iter()
        .any(|k| spec.get(k).is_some());
    let takes = |key: &str| {
        registry
            .kind(spec.kind())
            .is_ok_and(|k| k.key(key).is_some())
    };
    let addition = match control {
        _ if limited => None,
        TimeControl::Millis(ms) if takes("ms") => Some(("ms", ms.to_string())),
        TimeControl::Simulations(n) if takes("sims") => Some(("sims", n.to_string())),
        TimeControl::Simulations(_) if takes("depth") => Some(("depth", "4".to_string())),
        _ => None,
    };
    match addition {
        None => Ok(settings.clone()),
        Some((key, value)) => registry.settings(&spec.with(key, &value)),
    }
}

/// The pairings: panel among itself, each player against the panel, and with `round_robin`
/// the players among themselves. The rated player is A, so results read from its side.
pub fn schedule(entrants: &[Entrant], round_robin: bool) -> Vec<(usize, usize)> {
    let mut pairs = Vec::new();
    for (i, a) in entrants.iter().enumerate() {
        for (j, b) in entrants.iter().enumerate().skip(i + 1) {
            let both_panel = a.panel && b.panel;
            let one_panel = a.panel != b.panel;
            if both_panel || round_robin || one_panel {
                pairs.push(if a.panel && !b.panel { (j, i) } else { (i, j) });
            }
        }
    }
    pairs
}

/// A pairing's games.
#[derive(Clone, Debug)]
pub struct Played {
    /// Player A (an index into the entrants).
    pub a: usize,
    /// Player B.
    pub b: usize,
    /// Every game, stored and new, in order.
    pub games: Vec<MatchGame>,
    /// How many were played now.
    pub played_now: u32,
}

impl Played {
    /// A's score.
    pub fn score(&self) -> MatchScore {
        score_of(&self.games)
    }
}

/// What the harness tells its caller as it goes.
pub enum Event<'a> {
    /// A pairing starts with `stored` games stored and `playing` to play.
    Pairing {
        /// Its place in the schedule, `3/10`.
        label: &'a str,
        /// Player A.
        a: &'a Entrant,
        /// Player B.
        b: &'a Entrant,
        /// Games stored.
        stored: u32,
        /// Games to play now.
        playing: u32,
    },
    /// A game of the pairing finished.
    Game,
    /// The pairing is done.
    Done,
    /// Something the user should know (a damaged file set aside).
    Warning(String),
}

/// What every pairing of one rating shares.
#[derive(Clone, Copy)]
pub struct PairingSettings<'a> {
    /// The games of a pairing: how many, the seed, the opening, the rules, the threads.
    pub config: &'a MatchConfig,
    /// Where the games are kept and reused from.
    pub store: &'a Store,
    /// Builds the players.
    pub registry: &'a Registry,
    /// Use the stored games only: play none.
    pub stored_only: bool,
}

/// The games of one pairing: those stored, plus (unless `stored_only`) the missing ones,
/// played now and saved as they come (see [`SAVE_EVERY`]).
pub fn play_pairing(
    entrants: &[Entrant],
    (a, b): (usize, usize),
    settings: PairingSettings<'_>,
    label: &str,
    events: &mut dyn FnMut(Event<'_>),
) -> Result<Played, HarnessError> {
    let PairingSettings {
        config,
        store,
        registry,
        stored_only,
    } = settings;
    let (ea, eb) = (&entrants[a], &entrants[b]);
    let slot = pairing_slot(store, config, ea, eb);
    let mut games = slot.load(config, &mut |w| events(Event::Warning(w)))?;
    let stored = games.len() as u32;
    if stored >= config.games || stored_only {
        return Ok(Played {
            a,
            b,
            games,
            played_now: 0,
        });
    }
    events(Event::Pairing {
        label,
        a: ea,
        b: eb,
        stored,
        playing: config.games - stored,
    });
    let (make_a, make_b) = (
        player_factory(registry, &ea.settings),
        player_factory(registry, &eb.settings),
    );
    let mut pending: BTreeMap<u32, MatchGame> = BTreeMap::new();
    let extend = MatchConfig {
        first_game: stored,
        ..*config
    };
    let mut saver = Saver::new(&slot, config, games.len());
    let result = play_match(&extend, &make_a, &make_b, |game, _| {
        events(Event::Game);
        pending.insert(game.index, game.clone());
        while let Some(next) = pending.remove(&(games.len() as u32)) {
            games.push(next);
        }
        if saver.due() {
            saver.save(&mut games);
        }
    });
    // What came after the last timed save (the match's end, or where it failed).
    saver.save(&mut games);
    let Saver {
        error: save_error,
        warnings,
        ..
    } = saver;
    events(Event::Done);
    for w in warnings {
        events(Event::Warning(w));
    }
    result.map_err(|source| HarnessError::Match {
        a: ea.label.clone(),
        b: eb.label.clone(),
        source: Box::new(source),
    })?;
    if let Some(e) = save_error {
        return Err(e.into());
    }
    games.truncate(config.games as usize);
    Ok(Played {
        a,
        b,
        played_now: config.games - stored,
        games,
    })
}

/// Where the games of `ea` against `eb` under `config` are stored.
fn pairing_slot(
    store: &Store,
    config: &MatchConfig,
    ea: &Entrant,
    eb: &Entrant,
) -> crate::store::Slot {
    let header = GamesHeader {
        a: ea.settings.to_string(),
        b: eb.settings.to_string(),
        seed: config.seed,
        opening_plies: config.opening_plies,
        rules: config.rules,
    };
    store.slot(&ea.key, &eb.key, header)
}

/// Builds the player of `settings` for each game's random stream.
fn player_factory<'a>(
    registry: &'a Registry,
    settings: &Settings,
) -> impl Fn(u64) -> Result<Box<dyn fanorona_players::Player>, FactoryError> + Sync + 'a {
    let settings = settings.clone();
    move |stream| {
        registry
            .build(&settings, stream)
            .map_err(FactoryError::from)
    }
}

/// Saves a pairing's games as they come in: each call stores what is new since the last
/// save; the first error is kept and ends the saving.
struct Saver<'a> {
    slot: &'a crate::store::Slot,
    config: &'a MatchConfig,
    saved: usize,
    last: Instant,
    error: Option<StoreError>,
    warnings: Vec<String>,
}

impl<'a> Saver<'a> {
    fn new(slot: &'a crate::store::Slot, config: &'a MatchConfig, saved: usize) -> Saver<'a> {
        Saver {
            slot,
            config,
            saved,
            last: Instant::now(),
            error: None,
            warnings: Vec::new(),
        }
    }

    /// Whether [`SAVE_EVERY`] has passed since the last save.
    fn due(&self) -> bool {
        self.last.elapsed() >= SAVE_EVERY
    }

    /// Stores `games` if it holds games not saved yet (it may become the store's longer
    /// record, see [`crate::store::Slot::save`]).
    fn save(&mut self, games: &mut Vec<MatchGame>) {
        if games.len() <= self.saved || self.error.is_some() {
            return;
        }
        let warnings = &mut self.warnings;
        self.error = self
            .slot
            .save(games, self.config, &mut |w| warnings.push(w))
            .err();
        self.saved = games.len();
        self.last = Instant::now();
    }
}

/// A's score over `games`.
pub fn score_of(games: &[MatchGame]) -> MatchScore {
    let mut score = MatchScore::default();
    for g in games {
        match g.result_for_a() {
            GameResult::Win => score.wins += 1,
            GameResult::Draw => score.draws += 1,
            GameResult::Loss => score.losses += 1,
        }
    }
    score
}

/// Named players on one scale: the joint fit over their pairings, anchored at one of them.
#[derive(Clone, Debug)]
pub struct Scale {
    /// The players, in the order given.
    pub names: Vec<String>,
    /// The fit (ratings in the order of `names`).
    pub fit: Fit,
    /// The anchor's index.
    pub anchor: usize,
}

impl Scale {
    /// Fits `pairings` between `names`, anchored at `anchor`.
    pub fn fit(
        names: Vec<String>,
        pairings: &[Pairing],
        anchor: usize,
    ) -> Result<Scale, HarnessError> {
        match fit(names.len(), pairings, &FitOptions::anchored(anchor)) {
            Ok(fit) => Ok(Scale { names, fit, anchor }),
            Err(source) => Err(HarnessError::Fit {
                names: names.join(", "),
                source,
            }),
        }
    }

    /// The rating and 95% interval of `name`, if it is on the scale.
    pub fn get(&self, name: &str) -> Option<(f64, (f64, f64))> {
        let i = self.names.iter().position(|n| n == name)?;
        Some((self.fit.elo[i], self.fit.interval(i)))
    }
}

/// The scale of the entrants from the played pairings, anchored at [`ANCHOR`].
pub fn entrants_scale(entrants: &[Entrant], played: &[Played]) -> Result<Scale, HarnessError> {
    let anchor = entrants
        .iter()
        .position(|e| e.settings.to_string() == ANCHOR)
        .unwrap_or(0);
    let pairings: Vec<Pairing> = played
        .iter()
        .map(|p| Pairing {
            a: p.a,
            b: p.b,
            score: p.score(),
        })
        .collect();
    let names = entrants.iter().map(|e| e.label.clone()).collect();
    Scale::fit(names, &pairings, anchor)
}

/// One player's line of the result.
#[derive(Clone, Debug)]
pub struct Row {
    /// Its index among the entrants.
    pub index: usize,
    /// Its rating.
    pub elo: f64,
    /// Its 95% interval.
    pub interval: (f64, f64),
    /// Whether it is the anchor (no interval of its own).
    pub anchor: bool,
    /// Games it played.
    pub games: u32,
    /// Its mean score over them.
    pub score: Option<f64>,
    /// Its think time per turn.
    pub time: Option<ThinkStats>,
}

/// Every entrant's line, best first.
pub fn rows(entrants: &[Entrant], played: &[Played], scale: &Scale) -> Vec<Row> {
    let mut rows: Vec<Row> = entrants
        .iter()
        .enumerate()
        .map(|(i, e)| {
            let mut total = MatchScore::default();
            let mut times = Vec::new();
            for p in played.iter().filter(|p| p.a == i || p.b == i) {
                let s = p.score();
                let (side, mine) = if p.a == i {
                    (Side::A, s)
                } else {
                    (Side::B, MatchScore::new(s.losses, s.draws, s.wins))
                };
                total.wins += mine.wins;
                total.draws += mine.draws;
                total.losses += mine.losses;
                times.extend(p.games.iter().flat_map(|g| g.think_ms_of(side)));
            }
            Row {
                index: i,
                elo: scale.fit.elo[i],
                interval: scale.fit.interval(i),
                anchor: i == scale.anchor,
                games: total.games(),
                score: total.score(),
                time: ThinkStats::from_times(&mut times, e.settings.millis()),
            }
        })
        .collect();
    rows.sort_by(|x, y| y.elo.total_cmp(&x.elo));
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_time_control_goes_only_where_no_limit_is_given() {
        let registry = Registry::classical();
        let controlled = |text: &str, control| {
            with_control(&registry.parse(text).unwrap(), control, &registry)
                .unwrap()
                .to_string()
        };
        let ms = TimeControl::Millis(300);
        let sims = TimeControl::Simulations(50);
        assert_eq!(controlled("alphabeta", ms), "alphabeta:ms=300");
        assert_eq!(controlled("alphabeta:q=2", ms), "alphabeta:q=2,ms=300");
        assert_eq!(controlled("alphabeta:depth=3", ms), "alphabeta:depth=3");
        assert_eq!(controlled("alphabeta", sims), "alphabeta:depth=4");
        assert_eq!(controlled("mcts", sims), "mcts:sims=50");
        assert_eq!(controlled("mcts:ms=20", sims), "mcts:ms=20");
        assert_eq!(controlled("greedy", ms), "greedy");
    }

    #[test]
    fn panel_members_meet_each_other_and_players_meet_the_panel() {
        let registry = Registry::classical();
        let field = Field {
            panel: vec!["alphabeta:depth=1".into()],
            players: vec!["greedy".into(), "random".into(), "greedy".into()],
            checkpoints: Vec::new(),
        };
        let mut notes = Vec::new();
        let list = entrants(&field, TimeControl::Millis(10), &registry, &mut |n| {
            notes.push(n)
        })
        .unwrap();
        let names: Vec<&str> = list.iter().map(|e| e.label.as_str()).collect();
        assert_eq!(
            names,
            ["alphabeta:depth=2", "alphabeta:depth=1", "greedy", "random"]
        );
        assert_eq!(notes.len(), 1, "the second greedy is rated once");
        assert_eq!(
            schedule(&list, false),
            [(0, 1), (2, 0), (3, 0), (2, 1), (3, 1)]
        );
        assert_eq!(schedule(&list, true).len(), 6);
    }
}
