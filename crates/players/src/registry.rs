//! The player registry: one place that knows every kind of player, turns a [`PlayerSpec`] into
//! a player, and says what kinds exist.
//!
//! A kind is a [`PlayerKind`]: its name, the keys it takes, a check of a spec that does no I/O,
//! and a builder. [`Registry::classical`] holds this crate's kinds (`random`, `greedy`,
//! `alphabeta`, `mcts`); other crates register theirs (the network crate adds `net:`), so the
//! command line, match play, rating and the server all build players through the same call.
//!
//! ```
//! use fanorona_engine::{Game, Rules};
//! use fanorona_players::{PlayerSpec, Registry};
//!
//! let registry = Registry::classical();
//! let spec: PlayerSpec = "alphabeta:depth=2".parse().unwrap();
//! registry.check(&spec).unwrap(); // keys and values, no I/O
//! let mut player = registry.build(&spec, 0).unwrap();
//! let game = Game::new(Rules::default());
//! let choice = player.choose(&game, None).unwrap();
//! assert!(game.position().try_play_turn(&choice.turn).is_ok());
//! assert!(registry.check(&"chess".parse().unwrap()).is_err());
//! ```

use std::fmt;
use std::sync::Arc;

use crate::alphabeta::{AlphaBetaConfig, AlphaBetaPlayer};
use crate::greedy::GreedyPlayer;
use crate::player::Player;
use crate::random::RandomPlayer;
use crate::spec::{PlayerSpec, SpecError};
use crate::tables::Tables;
use crate::uct::{MctsConfig, MctsPlayer};

/// Why a player could not be built from a spec.
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    /// The spec is wrong (unknown kind, key or value).
    #[error(transparent)]
    Spec(#[from] SpecError),
    /// The spec is right but what it names could not be had (a model file that does not load).
    #[error("player `{spec}`: {source}")]
    Resource {
        /// The spec, as text.
        spec: String,
        /// What went wrong.
        source: Box<dyn std::error::Error + Send + Sync>,
    },
}

/// One kind of player: how to check and build players from its specs.
pub trait PlayerKind: Send + Sync {
    /// The kind's name in specs, e.g. `alphabeta`.
    fn name(&self) -> &'static str;

    /// The keys it takes.
    fn keys(&self) -> &'static [&'static str];

    /// One line for `--help` and error messages.
    fn summary(&self) -> &'static str;

    /// Checks the keys and values of `spec` (whose kind is this one) without any I/O.
    fn check(&self, spec: &PlayerSpec) -> Result<(), SpecError>;

    /// Builds the player, its random stream seeded from `stream` (see
    /// [`PlayerSpec::stream_seed`]), named after the spec.
    ///
    /// `tables` are the endgame tables the program has (the kind decides whether and how its
    /// players use them; `tb=off` in a spec turns them off for that player).
    fn build(
        &self,
        spec: &PlayerSpec,
        stream: u64,
        tables: &Tables,
    ) -> Result<Box<dyn Player>, BuildError>;
}

/// Every player kind a program knows. Cheap to clone.
#[derive(Clone)]
pub struct Registry {
    kinds: Vec<Arc<dyn PlayerKind>>,
    tables: Tables,
}

impl fmt::Debug for Registry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.names()).finish()
    }
}

impl Default for Registry {
    fn default() -> Self {
        Registry::classical()
    }
}

impl Registry {
    /// The classical kinds: `random`, `greedy`, `alphabeta`, `mcts`.
    pub fn classical() -> Registry {
        let mut registry = Registry {
            kinds: Vec::new(),
            tables: None,
        };
        registry.register(RANDOM);
        registry.register(GREEDY);
        registry.register(AlphaBetaKind);
        registry.register(UctKind);
        registry
    }

    /// Adds a kind (replacing one of the same name).
    pub fn register(&mut self, kind: impl PlayerKind + 'static) {
        self.kinds.retain(|k| k.name() != kind.name());
        self.kinds.push(Arc::new(kind));
    }

    /// The names of the kinds, in registration order.
    pub fn names(&self) -> Vec<&'static str> {
        self.kinds.iter().map(|k| k.name()).collect()
    }

    /// The kinds, in registration order.
    pub fn kinds(&self) -> impl Iterator<Item = &dyn PlayerKind> {
        self.kinds.iter().map(|k| k.as_ref())
    }

    /// The kind `spec` names, or [`SpecError::UnknownKind`] listing the known ones.
    pub fn kind(&self, spec: &PlayerSpec) -> Result<&dyn PlayerKind, SpecError> {
        self.kinds
            .iter()
            .find(|k| k.name() == spec.kind())
            .map(|k| k.as_ref())
            .ok_or_else(|| SpecError::UnknownKind {
                kind: spec.kind().to_string(),
                known: self.names().join(", "),
            })
    }

    /// Checks the kind, keys and values of `spec` without any I/O.
    pub fn check(&self, spec: &PlayerSpec) -> Result<(), SpecError> {
        let kind = self.kind(spec)?;
        spec.check_keys(kind.keys())?;
        if kind.keys().contains(&"tb") {
            spec.uses_tables()?;
        }
        kind.check(spec)
    }

    /// Builds the player `spec` describes, its random stream seeded from `stream`.
    pub fn build(&self, spec: &PlayerSpec, stream: u64) -> Result<Box<dyn Player>, BuildError> {
        self.check(spec)?;
        self.kind(spec)?.build(spec, stream, &self.tables)
    }

    /// Gives the players it builds these endgame tables (those whose kind uses them, unless
    /// their spec says `tb=off`).
    pub fn with_tables(mut self, tables: Tables) -> Registry {
        self.tables = tables;
        self
    }

    /// The endgame tables given to the players.
    pub fn tables(&self) -> &Tables {
        &self.tables
    }
}

/// A kind whose only parameter is the seed of its random stream (`random`, `greedy`).
struct SeededKind {
    name: &'static str,
    summary: &'static str,
    make: fn(seed: u64, name: String) -> Box<dyn Player>,
}

impl PlayerKind for SeededKind {
    fn name(&self) -> &'static str {
        self.name
    }
    fn keys(&self) -> &'static [&'static str] {
        &["seed"]
    }
    fn summary(&self) -> &'static str {
        self.summary
    }
    fn check(&self, spec: &PlayerSpec) -> Result<(), SpecError> {
        spec.seed().map(|_| ())
    }
    fn build(
        &self,
        spec: &PlayerSpec,
        stream: u64,
        _tables: &Tables,
    ) -> Result<Box<dyn Player>, BuildError> {
        Ok((self.make)(spec.stream_seed(stream)?, spec.to_string()))
    }
}

const RANDOM: SeededKind = SeededKind {
    name: "random",
    summary: "uniform over the legal turns",
    make: |seed, name| Box::new(RandomPlayer::new(seed).with_name(name)),
};

const GREEDY: SeededKind = SeededKind {
    name: "greedy",
    summary: "the turn that captures the most stones, ties at random",
    make: |seed, name| Box::new(GreedyPlayer::new(seed).with_name(name)),
};

struct AlphaBetaKind;

impl PlayerKind for AlphaBetaKind {
    fn name(&self) -> &'static str {
        "alphabeta"
    }
    fn keys(&self) -> &'static [&'static str] {
        &["depth", "ms", "q", "tt", "seed", "tb"]
    }
    fn summary(&self) -> &'static str {
        "turn-level alpha-beta: depth (1-64), ms per turn, q quiescence turns, tt MiB, tb on/off"
    }
    fn check(&self, spec: &PlayerSpec) -> Result<(), SpecError> {
        AlphaBetaConfig::from_spec(spec, 0).map(|_| ())
    }
    fn build(
        &self,
        spec: &PlayerSpec,
        stream: u64,
        tables: &Tables,
    ) -> Result<Box<dyn Player>, BuildError> {
        let config = AlphaBetaConfig::from_spec(spec, stream)?;
        Ok(Box::new(
            AlphaBetaPlayer::new(config)
                .with_name(spec.to_string())
                .with_tables(spec.tables(tables)?),
        ))
    }
}

struct UctKind;

impl PlayerKind for UctKind {
    fn name(&self) -> &'static str {
        "mcts"
    }
    fn keys(&self) -> &'static [&'static str] {
        &[
            "sims",
            "ms",
            "c",
            "reuse",
            "seed",
            "tb",
            "mix",
            "mix_scale",
            "mix_depth",
        ]
    }
    fn summary(&self) -> &'static str {
        "plain UCT with random rollouts: sims per step or ms per turn, c exploration, tb on/off, mix (0-1: the alpha-beta judge's share of each leaf value), mix_scale, mix_depth"
    }
    fn check(&self, spec: &PlayerSpec) -> Result<(), SpecError> {
        MctsConfig::from_spec(spec, 0).map(|_| ())
    }
    fn build(
        &self,
        spec: &PlayerSpec,
        stream: u64,
        tables: &Tables,
    ) -> Result<Box<dyn Player>, BuildError> {
        let config = MctsConfig::from_spec(spec, stream)?;
        Ok(Box::new(
            MctsPlayer::new(config)
                .with_name(spec.to_string())
                .with_tables(spec.tables(tables)?),
        ))
    }
}

impl AlphaBetaConfig {
    /// The settings an `alphabeta:` spec describes: `depth`, `ms`, `q`, `tt` and the stream's
    /// seed. With neither `depth` nor `ms`, the default depth.
    pub fn from_spec(spec: &PlayerSpec, stream: u64) -> Result<AlphaBetaConfig, SpecError> {
        let depth = spec.value("depth", "a whole number from 1 to 64", |d: &u32| {
            (1..=AlphaBetaConfig::MAX_DEPTH).contains(d)
        })?;
        let millis = spec.millis()?;
        let quiescence = spec.value("q", "a whole number from 0 to 32", |q: &u32| *q <= 32)?;
        let tt = spec.value("tt", "a table size in MiB from 1 to 4096", |t: &usize| {
            (1..=4096).contains(t)
        })?;
        let default = AlphaBetaConfig::default();
        Ok(AlphaBetaConfig {
            depth: match (depth, millis) {
                (None, None) => default.depth,
                _ => depth,
            },
            millis,
            quiescence: quiescence.unwrap_or(default.quiescence),
            tt_mebibytes: tt.unwrap_or(default.tt_mebibytes),
            seed: spec.stream_seed(stream)?,
        })
    }
}

impl MctsConfig {
    /// The settings an `mcts:` spec describes (plain UCT's defaults under the spec's keys).
    pub fn from_spec(spec: &PlayerSpec, stream: u64) -> Result<MctsConfig, SpecError> {
        spec.search_settings(
            stream,
            MctsConfig::default(),
            (
                "a whole number of simulations from 1 to 10000000",
                fanorona_mcts::SearchConfig::MAX_SIMULATIONS,
            ),
        )
    }
}
