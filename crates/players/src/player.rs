//! The [`Player`] trait: anything that, given a game at the start of a turn, picks the whole
//! turn to play, with what it says about the choice ([`Choice`], [`ChoiceInfo`], [`Score`]) and
//! the limits a caller may set for one decision ([`Limit`]).

use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use fanorona_engine::{Game, Outcome, Turn};

/// A limit for one decision, overriding the player's own (the engine protocol's `go ms 100`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Limit {
    /// Search this many turns deep (alpha-beta).
    Depth(u32),
    /// Think for about this many milliseconds (alpha-beta, MCTS).
    Millis(u64),
    /// Run this many simulations per step (MCTS).
    Simulations(u32),
}

impl Limit {
    /// Deepest search a caller may ask for, in turns.
    pub const MAX_DEPTH: u32 = 64;
    /// Longest think time a caller may ask for: one hour.
    pub const MAX_MILLIS: u64 = 3_600_000;
    /// Most simulations per step a caller may ask for.
    pub const MAX_SIMULATIONS: u32 = fanorona_mcts::SearchConfig::MAX_SIMULATIONS;

    /// The largest value this kind of limit takes.
    pub fn max_of(&self) -> u64 {
        match self {
            Limit::Depth(_) => u64::from(Self::MAX_DEPTH),
            Limit::Millis(_) => Self::MAX_MILLIS,
            Limit::Simulations(_) => u64::from(Self::MAX_SIMULATIONS),
        }
    }

    /// The limit's value.
    pub fn value(&self) -> u64 {
        match *self {
            Limit::Depth(n) | Limit::Simulations(n) => u64::from(n),
            Limit::Millis(n) => n,
        }
    }
}

impl fmt::Display for Limit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Limit::Depth(n) => write!(f, "depth {n}"),
            Limit::Millis(n) => write!(f, "ms {n}"),
            Limit::Simulations(n) => write!(f, "sims {n}"),
        }
    }
}

/// How good the chosen turn looks to the player, from the mover's side.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Score {
    /// Alpha-beta evaluation in centi-stones (100 = one stone up).
    Centistones(i32),
    /// A forced win in this many turns, the mover's turns and the opponent's counted.
    WinIn(u32),
    /// A forced loss in this many turns.
    LossIn(u32),
    /// MCTS value `W - L` in [-1, 1].
    Value(f32),
    /// The exact result from the endgame tables.
    Tablebase(fanorona_tablebase::Probe),
    /// The exact result proven by the solver (`fanorona solve`), without a distance.
    Proven(fanorona_tablebase::Wdl),
}

impl fmt::Display for Score {
    /// `cs 120`, `win 3`, `loss 2`, `value 0.250`, from the tables `tb win 7` (the next
    /// capture in 7 turns), `tb draw`, from the solver `proven draw`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Score::Centistones(cs) => write!(f, "cs {cs}"),
            Score::WinIn(n) => write!(f, "win {n}"),
            Score::LossIn(n) => write!(f, "loss {n}"),
            Score::Value(v) => write!(f, "value {v:.3}"),
            Score::Tablebase(p) => match p.wdl {
                fanorona_tablebase::Wdl::Draw => f.write_str("tb draw"),
                w => write!(f, "tb {w} {}", p.dtz),
            },
            Score::Proven(w) => write!(f, "proven {w}"),
        }
    }
}

/// What a player reports about one decision.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ChoiceInfo {
    /// Deepest completed iteration (alpha-beta).
    pub depth: Option<u32>,
    /// Score of the chosen turn for the mover.
    pub score: Option<Score>,
    /// Positions searched: alpha-beta nodes, MCTS simulations, or turns looked at.
    pub nodes: u64,
    /// Wall-clock time spent.
    pub elapsed: Duration,
}

impl ChoiceInfo {
    /// Nodes per second (0 when no time was measured).
    pub fn nodes_per_second(&self) -> u64 {
        let secs = self.elapsed.as_secs_f64();
        if secs > 0.0 {
            (self.nodes as f64 / secs) as u64
        } else {
            0
        }
    }
}

/// A decision: the turn to play and what the player says about it.
#[derive(Clone, Debug, PartialEq)]
pub struct Choice {
    /// The whole turn (a paika step or a capture chain), legal in the game it was chosen for.
    pub turn: Turn,
    /// Search statistics.
    pub info: ChoiceInfo,
}

/// Why a player could not choose a turn.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PlayerError {
    /// The game is already over.
    #[error("the game is over ({0})")]
    GameOver(Outcome),
    /// Players choose whole turns, at the start of a turn.
    #[error("a capture chain is in progress; players choose whole turns at a turn start")]
    MidChain,
    /// The player cannot honour this limit.
    #[error("{player} does not support the limit `{limit}`")]
    UnsupportedLimit {
        /// The player's name.
        player: String,
        /// The limit asked for.
        limit: Limit,
    },
    /// A limit of zero, or above the largest of its kind ([`Limit::max_of`]).
    #[error("the limit `{0}` must be from 1 to {max}", max = .0.max_of())]
    LimitOutOfRange(Limit),
    /// The evaluator (a network, a device) failed.
    #[error("{0}")]
    Evaluation(String),
    /// The search configuration was rejected.
    #[error(transparent)]
    Config(#[from] fanorona_mcts::ConfigError),
}

/// Something that plays Fanorona a turn at a time.
///
/// A player may keep state across the turns of one game (a transposition table, the positions
/// seen so far); [`Player::new_game`] drops whatever belongs to the previous game. Players are
/// `Send` so that matches can run games on several threads, each game with its own players.
pub trait Player: Send {
    /// A short name, e.g. the spec the player was built from.
    fn name(&self) -> &str;

    /// Picks the turn to play in `game`, which must be at the start of a turn and not over.
    /// `limit` overrides the player's own limit for this decision; players without a notion
    /// of that limit ignore it or return [`PlayerError::UnsupportedLimit`].
    fn choose(&mut self, game: &Game, limit: Option<Limit>) -> Result<Choice, PlayerError>;

    /// Forgets everything about the previous game.
    fn new_game(&mut self) {}

    /// Gives the player a flag that ends its searches early: while it is raised,
    /// [`choose`](Player::choose) answers as soon as it can with the best turn found so far.
    /// Players that answer at once ignore it.
    fn set_stop(&mut self, _stop: Stop) {}
}

/// A flag, shared between threads, that asks a player to stop searching (the engine protocol's
/// `stop`, an abandoned request of the play page). Clones share one flag.
#[derive(Clone, Debug, Default)]
pub struct Stop(Arc<AtomicBool>);

impl Stop {
    /// A lowered flag.
    pub fn new() -> Stop {
        Stop::default()
    }

    /// Raises the flag: searches using it end as soon as they can.
    pub fn raise(&self) {
        self.0.store(true, Ordering::Relaxed);
    }

    /// Lowers the flag, for the next search.
    pub fn lower(&self) {
        self.0.store(false, Ordering::Relaxed);
    }

    /// Whether the flag is raised.
    pub fn is_raised(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }

    /// The shared flag itself, for code that watches an `AtomicBool` (the solver).
    pub fn flag(&self) -> Arc<AtomicBool> {
        Arc::clone(&self.0)
    }

    /// Whether `other` is a clone of this flag (raising one raises the other).
    pub fn same_flag(&self, other: &Stop) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl<P: Player + ?Sized> Player for Box<P> {
    fn name(&self) -> &str {
        (**self).name()
    }
    fn choose(&mut self, game: &Game, limit: Option<Limit>) -> Result<Choice, PlayerError> {
        (**self).choose(game, limit)
    }
    fn new_game(&mut self) {
        (**self).new_game();
    }
    fn set_stop(&mut self, stop: Stop) {
        (**self).set_stop(stop);
    }
}

/// The checks every player makes first: turn start, game not over.
pub fn check_playable(game: &Game) -> Result<(), PlayerError> {
    if !game.position().is_turn_start() {
        return Err(PlayerError::MidChain);
    }
    if let Some(outcome) = game.outcome() {
        return Err(PlayerError::GameOver(outcome));
    }
    Ok(())
}

/// Rejects a limit of zero or above its kind's largest ([`Limit::max_of`]).
pub fn check_limit(limit: Option<Limit>) -> Result<(), PlayerError> {
    match limit {
        Some(l) if l.value() == 0 || l.value() > l.max_of() => Err(PlayerError::LimitOutOfRange(l)),
        _ => Ok(()),
    }
}
