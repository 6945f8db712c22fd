//! The registry: turns spec text into checked [`Settings`] and settings into players.
//!
//! Every kind is declared in [`crate::kinds`]; the registry knows which of them this program
//! can build (`net` needs the network crate's [`Networks`], which it registers with
//! [`Registry::with_networks`]) and which endgame tables the players get.
//!
//! ```
//! use fanorona_engine::{Game, Rules};
//! use fanorona_specs::Registry;
//!
//! let registry = Registry::classical();
//! let settings = registry.parse("alphabeta:depth=2").unwrap(); // keys and values, no I/O
//! let mut player = registry.build(&settings, 0).unwrap();
//! let game = Game::new(Rules::default());
//! let choice = player.choose(&game, None).unwrap();
//! assert!(game.position().try_play_turn(&choice.turn).is_ok());
//! assert!(registry.parse("chess").is_err());
//! assert!(registry.parse("alphabeta:depth=0").is_err());
//! ```

use std::fmt;
use std::sync::Arc;

use fanorona_mcts::derive_seed;
use fanorona_players::tables::Tables;
use fanorona_players::{
    AlphaBetaConfig, AlphaBetaPlayer, Evaluation, GreedyPlayer, MctsConfig, MctsPlayer, Player,
    ProvingPlayer, RandomPlayer,
};

use crate::key::Takes;
use crate::kinds::{EvalSource, KINDS, Kind, NET, NetSettings, PlayerSettings};
use crate::load::load_evaluation;
use crate::spec::{PlayerSpec, SpecError};

/// Why a player could not be built from its settings.
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    /// The spec is wrong (unknown kind, key or value).
    #[error(transparent)]
    Spec(#[from] SpecError),
    /// The spec is right but what it names could not be had (a model file that does not load).
    #[error("player `{spec}`: {problem}")]
    Resource {
        /// The spec, as text.
        spec: String,
        /// What went wrong (in the message itself, not repeated as a source).
        problem: Box<dyn std::error::Error + Send + Sync>,
    },
}

/// A player spec, checked against its kind: the text and the typed settings it describes.
#[derive(Clone, Debug, PartialEq)]
pub struct Settings {
    spec: PlayerSpec,
    player: PlayerSettings,
}

impl Settings {
    /// The spec, as given (its text names the players built from it).
    pub fn spec(&self) -> &PlayerSpec {
        &self.spec
    }

    /// The typed settings.
    pub fn player(&self) -> &PlayerSettings {
        &self.player
    }

    /// The kind's name.
    pub fn kind(&self) -> &str {
        self.spec.kind()
    }

    /// The think time per turn the player is given (`ms=`), if any.
    pub fn millis(&self) -> Option<u64> {
        match &self.player {
            PlayerSettings::AlphaBeta(a) => a.search.millis,
            PlayerSettings::Mcts(m) => m.search.millis,
            PlayerSettings::Net(n) => n.search.millis,
            PlayerSettings::Random { .. } | PlayerSettings::Greedy { .. } => None,
        }
    }
}

impl fmt::Display for Settings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.spec.fmt(f)
    }
}

/// An error from a network: loading a model file, or anything else.
pub type ResourceError = Box<dyn std::error::Error + Send + Sync>;

/// What the network crate gives the registry so that it can build `net` players.
pub trait Networks: Send + Sync {
    /// Loads the model `net` names (once per process: later calls reuse it) and returns the
    /// fingerprint of its weights (the same weights, moved or re-saved, give the same one).
    fn load(&self, net: &NetSettings) -> Result<u64, ResourceError>;

    /// The backend a `net` player without `backend=` runs on (the program's choice).
    fn default_backend(&self) -> fanorona_infer::Backend;

    /// The player: `net`'s model with `search` (its seed already the player's own), named
    /// `name`, with `tables`, its judge at the leaves (with `mix`) scoring with `judge`.
    fn build(
        &self,
        net: &NetSettings,
        search: MctsConfig,
        judge: Evaluation,
        name: String,
        tables: Tables,
    ) -> Result<Box<dyn Player>, ResourceError>;
}

/// The kinds a program can build, and the endgame tables its players get. Cheap to clone.
#[derive(Clone, Default)]
pub struct Registry {
    networks: Option<Arc<dyn Networks>>,
    tables: Tables,
}

impl fmt::Debug for Registry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list()
            .entries(self.kinds().map(|k| k.name))
            .finish()
    }
}

impl Registry {
    /// The kinds that need no network: `random`, `greedy`, `alphabeta`, `mcts`.
    pub fn classical() -> Registry {
        Registry::default()
    }

    /// Also builds `net` players, with `networks`.
    pub fn with_networks(mut self, networks: Arc<dyn Networks>) -> Registry {
        self.networks = Some(networks);
        self
    }

    /// Gives the players it builds these endgame tables (unless their spec says `tb=off`).
    pub fn with_tables(mut self, tables: Tables) -> Registry {
        self.tables = tables;
        self
    }

    /// The endgame tables given to the players.
    pub fn tables(&self) -> &Tables {
        &self.tables
    }

    /// The kinds this registry builds, in the order they are listed.
    pub fn kinds(&self) -> impl Iterator<Item = &'static Kind> + '_ {
        KINDS
            .iter()
            .copied()
            .filter(|k| k.name != NET.name || self.networks.is_some())
    }

    /// The kind called `name`, or [`SpecError::UnknownKind`] listing the known ones.
    pub fn kind(&self, name: &str) -> Result<&'static Kind, SpecError> {
        self.kinds()
            .find(|k| k.name == name)
            .ok_or_else(|| SpecError::UnknownKind {
                kind: name.to_string(),
                known: self.kinds().map(|k| k.name).collect::<Vec<_>>().join(", "),
            })
    }

    /// Checks `spec` against its kind's declarations and reads its settings. No I/O.
    pub fn settings(&self, spec: &PlayerSpec) -> Result<Settings, SpecError> {
        let player = self.kind(spec.kind())?.read(spec)?;
        Ok(Settings {
            spec: spec.clone(),
            player,
        })
    }

    /// Parses and checks spec text ([`Registry::settings`]). No I/O.
    pub fn parse(&self, text: &str) -> Result<Settings, SpecError> {
        self.settings(&text.parse()?)
    }

    /// Loads what the settings name (a model file, an evaluation), so that a file that does
    /// not load is reported before any game starts; later builds reuse it.
    pub fn load(&self, settings: &Settings) -> Result<(), BuildError> {
        self.identity(settings).map(|_| ())
    }

    /// The player the settings describe, its random stream derived from the spec's seed and
    /// `stream` (match play passes one per game and side), named after the spec.
    pub fn build(&self, settings: &Settings, stream: u64) -> Result<Box<dyn Player>, BuildError> {
        let name = settings.spec.to_string();
        let seed = |seed: u64| derive_seed(seed, stream);
        let tables = |on: bool, stones: Option<usize>| match (on, stones, &self.tables) {
            (false, _, _) => None,
            (true, Some(n), Some(tb)) => Some(std::sync::Arc::new(tb.up_to(n))),
            (true, _, tables) => tables.clone(),
        };
        let resource = |problem: ResourceError| BuildError::Resource {
            spec: settings.spec.to_string(),
            problem,
        };
        let eval = |source: &EvalSource| load_evaluation(source).map_err(resource);
        Ok(match &settings.player {
            PlayerSettings::Random { seed: s } => {
                Box::new(RandomPlayer::new(seed(*s)).with_name(name))
            }
            PlayerSettings::Greedy { seed: s } => {
                Box::new(GreedyPlayer::new(seed(*s)).with_name(name))
            }
            PlayerSettings::AlphaBeta(a) => {
                let player = Box::new(
                    AlphaBetaPlayer::new(AlphaBetaConfig {
                        seed: seed(a.search.seed),
                        ..a.search
                    })
                    .with_name(name)
                    .with_tables(tables(a.tables, a.table_stones))
                    .with_evaluation(eval(&a.eval)?),
                );
                match a.prove_millis {
                    None => player,
                    Some(ms) => Box::new(ProvingPlayer::new(
                        player,
                        std::time::Duration::from_millis(ms),
                        tables(a.tables, a.table_stones),
                        crate::shipped_evaluation().ok(),
                    )),
                }
            }
            PlayerSettings::Mcts(m) => Box::new(
                MctsPlayer::new(MctsConfig {
                    seed: seed(m.search.seed),
                    ..m.search
                })
                .with_name(name)
                .with_tables(tables(m.tables, m.table_stones))
                .with_judge_evaluation(eval(&m.eval)?),
            ),
            PlayerSettings::Net(n) => {
                let search = MctsConfig {
                    seed: seed(n.search.seed),
                    ..n.search
                };
                let judge = eval(&n.eval)?;
                self.networks()?
                    .build(n, search, judge, name, tables(n.tables, n.table_stones))
                    .map_err(resource)?
            }
        })
    }

    /// The evaluation source of a player, if its kind takes `eval=`.
    fn eval_source(settings: &Settings) -> Option<&EvalSource> {
        match &settings.player {
            PlayerSettings::AlphaBeta(a) => Some(&a.eval),
            PlayerSettings::Mcts(m) => Some(&m.eval),
            PlayerSettings::Net(n) => Some(&n.eval),
            PlayerSettings::Random { .. } | PlayerSettings::Greedy { .. } => None,
        }
    }

    /// The player's identity: its spec with every file it names replaced by the fingerprint
    /// of what the file holds (`net:model=1a2b...,sims=200`), so a moved or re-saved model is
    /// the same player and a retrained one is not. A `net` player without `backend=` that runs
    /// on another backend than floats (`int8`, the default on CPUs with AVX2, or `burn`) gets
    /// it added (`...,backend=int8`): it plays differently, and games stored before that
    /// default (in floats) keep their key. Loads the files (once).
    pub fn identity(&self, settings: &Settings) -> Result<String, BuildError> {
        let kind = self.kind(settings.kind())?;
        let mut text = kind.name.to_string();
        for (i, (key, value)) in settings.spec.params().iter().enumerate() {
            let is_file = kind
                .key(key)
                .is_some_and(|k| matches!(k.takes, Takes::Text { .. }));
            let resource = |problem: ResourceError| BuildError::Resource {
                spec: settings.spec.to_string(),
                problem,
            };
            let part = match (&settings.player, key.as_str()) {
                (_, "eval") => {
                    let source = Self::eval_source(settings).unwrap_or(&EvalSource::Handwritten);
                    match load_evaluation(source).map_err(resource)? {
                        Evaluation::Learned(net) => {
                            format!("eval={:016x}", net.weights().fingerprint())
                        }
                        Evaluation::Handwritten => format!("{key}={value}"),
                    }
                }
                (PlayerSettings::Net(n), _) if is_file => {
                    let print = self.networks()?.load(n).map_err(resource)?;
                    format!("model={print:016x}")
                }
                _ => format!("{key}={value}"),
            };
            text.push(if i == 0 { ':' } else { ',' });
            text.push_str(&part);
        }
        if let PlayerSettings::Net(n) = &settings.player {
            let default = self.networks()?.default_backend();
            if n.backend.is_none() && default != fanorona_infer::Backend::Native {
                text.push_str(&format!(",backend={default}"));
            }
        }
        Ok(text)
    }

    fn networks(&self) -> Result<&dyn Networks, BuildError> {
        self.networks.as_deref().ok_or_else(|| {
            BuildError::Spec(SpecError::UnknownKind {
                kind: NET.name.to_string(),
                known: self.kinds().map(|k| k.name).collect::<Vec<_>>().join(", "),
            })
        })
    }

    /// Every kind and key as a Markdown table (`kind | key | takes | default | meaning`): the
    /// table of `docs/players.md`, which a test keeps equal to this.
    pub fn markdown_table(&self) -> String {
        let mut out = String::from(
            "| kind | key | takes | default | meaning |\n| --- | --- | --- | --- | --- |\n",
        );
        for kind in self.kinds() {
            out.push_str(&format!(
                "| `{}` | | | | {} |\n",
                kind.name,
                escape(kind.summary)
            ));
            for key in kind.keys {
                out.push_str(&format!(
                    "| | `{}` | {} | {} | {}{} |\n",
                    key.name,
                    escape(&key.range_text()),
                    key.default_text().map_or("-".into(), |d| format!("`{d}`")),
                    if key.required { "required: " } else { "" },
                    escape(key.help)
                ));
            }
        }
        out
    }

    /// Every kind and key as plain text, for `fanorona players`.
    pub fn text_table(&self) -> String {
        let mut out = String::new();
        for kind in self.kinds() {
            out.push_str(&format!("{}: {}\n", kind.name, kind.summary));
            let width = kind.keys.iter().map(|k| k.name.len()).max().unwrap_or(0);
            for key in kind.keys {
                let default = key
                    .default_text()
                    .map_or(String::new(), |d| format!(", default {d}"));
                let required = if key.required { ", required" } else { "" };
                out.push_str(&format!(
                    "  {:<width$}  {}{default}{required}: {}\n",
                    key.name,
                    key.range_text(),
                    key.help
                ));
            }
            out.push('\n');
        }
        out
    }
}

fn escape(text: &str) -> String {
    text.replace('|', "\\|")
}
