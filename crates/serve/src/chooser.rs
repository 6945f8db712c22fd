//! The seam between the programs that play against a person (the web server and the
//! terminal game) and the engine that picks the computer's turns.
//!
//! Both call a [`TurnChooser`] at a named [`Level`]. [`chooser_for`] is the one place that
//! decides which implementation runs: the project's classical players (greedy and alpha-beta
//! from `fanorona-search`) without a model file, the network with MCTS with one.

use std::fmt;
use std::path::Path;
use std::str::FromStr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use fanorona_engine::{Game, Outcome, Turn};
use thiserror::Error;

use fanorona_net::{InferenceModel, load_exported, net_player};
use fanorona_search::players::{
    AlphaBetaConfig, AlphaBetaPlayer, GreedyPlayer, MctsConfig, Player,
};

use crate::error::ServeError;

/// Picks the computer's turn in a game.
///
/// Implementations must be cheap to share between threads: the server calls one instance
/// from many blocking threads at once.
pub trait TurnChooser: Send + Sync {
    /// A short name for logs and `/api/info`, e.g. `alphabeta`.
    fn name(&self) -> &str;

    /// A legal turn for the side to move in `game`, chosen with the strength of `level`.
    ///
    /// Should return by `deadline` (a little over is fine; the caller bounds it by
    /// [`Level::think_time`] and the server's own cap). Fails only when there is nothing to
    /// choose: the game is over, or it is in the middle of a chain that has no continuation.
    fn choose(&self, game: &Game, level: Level, deadline: Instant) -> Result<Turn, ChooseError>;

    /// What `level` means with this engine, for `/api/info` and the page. The default
    /// describes the classical engine ([`Level::description`], [`Level::depth`]).
    fn level_strength(&self, level: Level) -> LevelStrength {
        LevelStrength {
            description: level.description().to_string(),
            depth: level.depth(),
            simulations: None,
        }
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
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ChooseError {
    /// The game is already over.
    #[error("the game is over ({0})")]
    GameOver(Outcome),
    /// The side to move has no legal turn (only from a position mid-chain or a set-up one).
    #[error("the side to move has no legal turn")]
    NoLegalTurn,
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
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
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
            Level::Hard => "thinks for up to three seconds",
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

/// The classical players: `greedy` for [`Level::Beginner`], `alphabeta` for the others.
/// Stateless between calls: every request gets a fresh player, so one instance serves any
/// number of threads.
#[derive(Debug, Default, Clone, Copy)]
pub struct ClassicalChooser;

/// Transposition table per search in the server: small, since many searches may run at once.
const SERVER_TT_MEBIBYTES: usize = 4;

impl TurnChooser for ClassicalChooser {
    fn name(&self) -> &str {
        "alphabeta"
    }

    fn choose(&self, game: &Game, level: Level, deadline: Instant) -> Result<Turn, ChooseError> {
        if let Some(outcome) = game.outcome() {
            return Err(ChooseError::GameOver(outcome));
        }
        if game.position().legal_actions().is_empty() {
            return Err(ChooseError::NoLegalTurn);
        }
        let seed = game.position().hash();
        let mut player: Box<dyn Player> = match level.depth() {
            Some(0) => Box::new(GreedyPlayer::new(seed)),
            depth => {
                let left = deadline.saturating_duration_since(Instant::now());
                let millis = left.min(level.think_time()).as_millis().max(1) as u64;
                Box::new(AlphaBetaPlayer::new(AlphaBetaConfig {
                    depth,
                    millis: Some(millis),
                    tt_mebibytes: SERVER_TT_MEBIBYTES,
                    seed,
                    ..AlphaBetaConfig::default()
                }))
            }
        };
        player
            .choose(game, None)
            .map(|c| c.turn)
            .map_err(|_| ChooseError::NoLegalTurn)
    }
}

/// The network with MCTS (see [`Level`] for the simulations of each level). A fresh player
/// per request; the network itself is shared.
#[derive(Debug, Clone)]
pub struct NetChooser {
    model: InferenceModel,
}

impl NetChooser {
    /// Play with `model`.
    pub fn new(model: InferenceModel) -> NetChooser {
        NetChooser { model }
    }
}

impl TurnChooser for NetChooser {
    fn name(&self) -> &str {
        "net"
    }

    fn level_strength(&self, level: Level) -> LevelStrength {
        let description = match level.simulations() {
            Some(n) if n < 10 => format!("the network's instinct: {n} simulations a step"),
            Some(n) => format!("the network reading {n} positions a step"),
            None => "the network searching for up to three seconds".to_string(),
        };
        LevelStrength {
            description,
            depth: None,
            simulations: level.simulations(),
        }
    }

    fn choose(&self, game: &Game, level: Level, deadline: Instant) -> Result<Turn, ChooseError> {
        if let Some(outcome) = game.outcome() {
            return Err(ChooseError::GameOver(outcome));
        }
        if game.position().legal_actions().is_empty() {
            return Err(ChooseError::NoLegalTurn);
        }
        let left = deadline
            .saturating_duration_since(Instant::now())
            .min(level.think_time());
        let config = MctsConfig {
            simulations: level
                .simulations()
                .unwrap_or(MctsConfig::DEFAULT_SIMULATIONS),
            millis: level
                .simulations()
                .is_none()
                .then(|| left.as_millis().max(1) as u64),
            c_puct: fanorona_net::player::DEFAULT_C_PUCT,
            seed: game.position().hash(),
            batch_size: fanorona_net::player::DEFAULT_BATCH,
        };
        let mut player = net_player(self.model.clone(), config, "net");
        player
            .choose(game, None)
            .map(|c| c.turn)
            .map_err(|_| ChooseError::NoLegalTurn)
    }
}

/// The engine to play with: the classical players without a model file, the network with
/// MCTS with one (an exported model, `fanorona export`).
///
/// This is the one place that decides which engine answers (`--model <file>`).
pub fn chooser_for(model: Option<&Path>) -> Result<Arc<dyn TurnChooser>, ServeError> {
    match model {
        None => Ok(Arc::new(ClassicalChooser)),
        Some(path) => {
            let (model, _) = load_exported(path).map_err(|error| ServeError::Model {
                path: path.to_path_buf(),
                error,
            })?;
            Ok(Arc::new(NetChooser::new(model)))
        }
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
    fn every_level_plays_a_legal_turn() {
        let game = Game::new(fanorona_engine::Rules::default());
        for level in Level::ALL {
            let deadline = Instant::now() + level.think_time();
            let turn = ClassicalChooser.choose(&game, level, deadline).unwrap();
            assert!(
                game.position().try_play_turn(&turn).is_ok(),
                "{level}: {turn}"
            );
        }
    }

    #[test]
    fn a_bad_model_file_is_refused_clearly() {
        let e = chooser_for(Some(Path::new("no-such-net.fnm")))
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("no-such-net.fnm"), "{e}");
    }

    #[test]
    fn levels_are_described_for_the_engine_that_plays_them() {
        let cfg = fanorona_net::NetConfig::new()
            .with_blocks(1)
            .with_channels(8);
        let net = NetChooser::new(InferenceModel::random(&cfg, &fanorona_net::Device::flex()));
        for level in Level::ALL {
            let classical = ClassicalChooser.level_strength(level);
            assert_eq!(classical.description, level.description());
            assert_eq!(
                (classical.depth, classical.simulations),
                (level.depth(), None)
            );
            let network = net.level_strength(level);
            assert_eq!(
                (network.depth, network.simulations),
                (None, level.simulations())
            );
            assert!(network.description.contains("network"), "{level}");
            assert_ne!(network.description, classical.description);
        }
        assert!(
            net.level_strength(Level::Medium)
                .description
                .contains("160")
        );
    }

    #[test]
    fn a_network_plays_a_legal_turn_at_every_level() {
        let cfg = fanorona_net::NetConfig::new()
            .with_blocks(1)
            .with_channels(8);
        let model = InferenceModel::random(&cfg, &fanorona_net::Device::flex());
        let chooser = NetChooser::new(model);
        let game = Game::new(fanorona_engine::Rules::default());
        for level in [Level::Beginner, Level::Easy] {
            let turn = chooser
                .choose(&game, level, Instant::now() + level.think_time())
                .unwrap();
            assert!(
                game.position().try_play_turn(&turn).is_ok(),
                "{level}: {turn}"
            );
        }
    }
}
