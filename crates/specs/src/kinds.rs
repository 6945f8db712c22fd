//! Every player kind and its keys, declared once, and how a checked spec becomes the kind's
//! typed settings.
//!
//! A key is a [`Key`] constant; a kind lists its keys in [`Kind::keys`] and reads them in its
//! `settings` function with [`Values`]. Checking, error messages, `fanorona players` and the
//! key table of `docs/players.md` all come from these lists, so adding a key to a kind is one
//! line here plus its use.

use std::path::PathBuf;

use fanorona_infer::Backend;
use fanorona_players::mix::LeafMix;
use fanorona_players::{AlphaBetaConfig, Limit, MctsConfig};

use crate::key::{Key, Takes};
use crate::spec::{PlayerSpec, SpecError};

/// One kind of player: its name in specs, one line about it, its keys, and how a checked spec
/// becomes its settings.
pub struct Kind {
    /// The kind's name in specs, e.g. `alphabeta`.
    pub name: &'static str,
    /// What it is, one line.
    pub summary: &'static str,
    /// Every key it takes.
    pub keys: &'static [Key],
    /// Typed settings from a spec whose keys and values were checked against [`Kind::keys`];
    /// checks what single values cannot (keys that must go together). No I/O.
    settings: fn(&Values<'_>) -> Result<PlayerSettings, SpecError>,
}

impl std::fmt::Debug for Kind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Kind").field("name", &self.name).finish()
    }
}

impl Kind {
    /// The declaration of `key`, if this kind takes it.
    pub fn key(&self, name: &str) -> Option<&'static Key> {
        self.keys.iter().find(|k| k.name == name)
    }

    /// Checks `spec` (whose kind is this one) against the declarations and reads its settings.
    pub(crate) fn read(&'static self, spec: &PlayerSpec) -> Result<PlayerSettings, SpecError> {
        for (key, value) in spec.params() {
            let Some(declared) = self.key(key) else {
                return Err(SpecError::UnknownKey {
                    kind: self.name.to_string(),
                    key: key.clone(),
                    allowed: self
                        .keys
                        .iter()
                        .map(|k| k.name)
                        .collect::<Vec<_>>()
                        .join(", "),
                });
            };
            if !declared.accepts(value) {
                return Err(SpecError::BadValue {
                    kind: self.name.to_string(),
                    key: key.clone(),
                    value: value.clone(),
                    expected: declared.expected(),
                });
            }
        }
        if let Some(missing) = self
            .keys
            .iter()
            .find(|k| k.required && spec.get(k.name).is_none())
        {
            return Err(SpecError::MissingKey {
                kind: self.name.to_string(),
                key: missing.name,
                what: missing.expected(),
            });
        }
        (self.settings)(&Values { kind: self, spec })
    }
}

/// The values of a spec that was checked against its kind's declarations: each key's value as
/// given, or its declared default.
pub struct Values<'a> {
    kind: &'static Kind,
    spec: &'a PlayerSpec,
}

impl Values<'_> {
    fn given(&self, key: &Key) -> Option<&str> {
        debug_assert!(
            self.kind.key(key.name) == Some(key),
            "`{}` read with a declaration the kind `{}` does not list",
            key.name,
            self.kind.name
        );
        self.spec.get(key.name)
    }

    /// Whether `key` was given.
    pub fn has(&self, key: &Key) -> bool {
        self.given(key).is_some()
    }

    /// A whole-number key's value, or its default.
    pub fn whole(&self, key: &Key) -> Option<u64> {
        let Takes::Whole { default, .. } = key.takes else {
            return None;
        };
        self.given(key).and_then(|v| v.parse().ok()).or(default)
    }

    /// [`Values::whole`] for a key whose range fits a `u32`.
    pub fn whole_u32(&self, key: &Key) -> Option<u32> {
        self.whole(key).and_then(|v| u32::try_from(v).ok())
    }

    /// A number key's value, or its default.
    pub fn number(&self, key: &Key) -> Option<f64> {
        let Takes::Number { default, .. } = key.takes else {
            return None;
        };
        self.given(key).and_then(|v| v.parse().ok()).or(default)
    }

    /// [`Values::number`] as an `f32`, a given value parsed as one (not rounded twice).
    pub fn number_f32(&self, key: &Key) -> Option<f32> {
        let Takes::Number { default, .. } = key.takes else {
            return None;
        };
        self.given(key)
            .and_then(|v| v.parse().ok())
            .or(default.map(|d| d as f32))
    }

    /// A switch's value, or its default.
    pub fn switch(&self, key: &Key) -> bool {
        let Takes::Switch { default } = key.takes else {
            return false;
        };
        self.given(key).map_or(default, |v| v == "on")
    }

    /// A word key's value, or its default.
    pub fn word(&self, key: &Key) -> Option<&str> {
        let Takes::Word { default, .. } = key.takes else {
            return None;
        };
        self.given(key).or(default)
    }

    /// A text key's value.
    pub fn text(&self, key: &Key) -> Option<&str> {
        self.given(key)
    }
}

/// A player's typed settings: what its spec says, checked.
#[derive(Clone, Debug, PartialEq)]
pub enum PlayerSettings {
    /// `random`.
    Random {
        /// Seed of its random stream.
        seed: u64,
    },
    /// `greedy`.
    Greedy {
        /// Seed of its random stream.
        seed: u64,
    },
    /// `alphabeta`.
    AlphaBeta(AlphaBetaSettings),
    /// `mcts`.
    Mcts(MctsSettings),
    /// `net`.
    Net(NetSettings),
}

/// Which evaluation scores quiet positions in an alpha-beta search (`eval=`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum EvalSource {
    /// The hand-written one (no `eval=`).
    Handwritten,
    /// The learned evaluation this program ships (`eval=learned`).
    Shipped,
    /// A learned evaluation from a file (`eval=<file>`: an exported `.fne` or a training
    /// checkpoint of an evaluation run).
    File(PathBuf),
}

impl EvalSource {
    fn of(v: &Values<'_>) -> EvalSource {
        match v.text(&shared::EVAL) {
            None => EvalSource::Handwritten,
            Some(SHIPPED_EVAL) => EvalSource::Shipped,
            Some(path) => EvalSource::File(PathBuf::from(path)),
        }
    }
}

/// The value of `eval=` that names the shipped learned evaluation.
pub const SHIPPED_EVAL: &str = "learned";

/// The settings of an `alphabeta` player.
#[derive(Clone, Debug, PartialEq)]
pub struct AlphaBetaSettings {
    /// Its search; `seed` is the spec's, each player's stream derives its own from it.
    pub search: AlphaBetaConfig,
    /// Plays with the endgame tables the program has.
    pub tables: bool,
    /// Uses the tables' classes of at most this many stones only (`None`: all of them).
    pub table_stones: Option<usize>,
    /// Its evaluation.
    pub eval: EvalSource,
    /// Milliseconds of proof search before its own (`prove=`; `None`: none).
    pub prove_millis: Option<u64>,
}

/// The settings of an `mcts` player (plain UCT).
#[derive(Clone, Debug, PartialEq)]
pub struct MctsSettings {
    /// Its search; `seed` is the spec's.
    pub search: MctsConfig,
    /// Plays with the endgame tables the program has.
    pub tables: bool,
    /// Uses the tables' classes of at most this many stones only (`None`: all of them).
    pub table_stones: Option<usize>,
    /// The evaluation of the alpha-beta judge at its leaves (with `mix`).
    pub eval: EvalSource,
}

/// The settings of a `net` player: MCTS guided by a network.
#[derive(Clone, Debug, PartialEq)]
pub struct NetSettings {
    /// The model file (exported, or a training checkpoint).
    pub model: PathBuf,
    /// How the network runs on the CPU; `None`: the program's choice.
    pub backend: Option<Backend>,
    /// Its search; `seed` is the spec's.
    pub search: MctsConfig,
    /// Plays with the endgame tables the program has.
    pub tables: bool,
    /// Uses the tables' classes of at most this many stones only (`None`: all of them).
    pub table_stones: Option<usize>,
    /// The evaluation of the alpha-beta judge at its leaves (with `mix`).
    pub eval: EvalSource,
}

impl NetSettings {
    /// The network player's search with every key at its default, `simulations` a step and
    /// `seed`: the one constructor of the searches that levels, in-run rating and the
    /// tables' check give a network.
    pub fn search_with(simulations: u32, seed: u64) -> MctsConfig {
        let spec = PlayerSpec::bare("net");
        let values = Values {
            kind: &NET,
            spec: &spec,
        };
        MctsConfig {
            simulations,
            seed,
            ..mcts_search(&values, &net::SIMS, &net::C, Some(&net::BATCH))
        }
    }
}

/// Keys more than one kind takes.
pub mod shared {
    use super::*;

    /// `seed`.
    pub const SEED: Key = Key::whole(
        "seed",
        0,
        u64::MAX,
        Some(0),
        "seed of the player's random stream (each game and side derives its own from it, so games differ but replay identically)",
    );
    /// `ms`.
    pub const MS: Key = Key::whole(
        "ms",
        1,
        Limit::MAX_MILLIS,
        None,
        "think time per turn in milliseconds, instead of a fixed amount of search",
    );
    /// `tb`.
    pub const TB: Key = Key::switch(
        "tb",
        true,
        "play with the endgame tables the program has (exact results inside the search, perfect play where they cover the position)",
    );
    /// `tb_stones`.
    pub const TB_STONES: Key = Key::whole(
        "tb_stones",
        2,
        8,
        None,
        "use the endgame tables for positions of at most this many stones only (default: every class the program has)",
    );
    /// `reuse`.
    pub const REUSE: Key = Key::switch(
        "reuse",
        true,
        "keep the search tree across the opponent's reply (`off`: a fresh tree every turn)",
    );
    /// `solver`.
    pub const SOLVER: Key = Key::switch(
        "solver",
        true,
        "carry proven wins and losses up the search tree and play a proven win (`off`: values alone)",
    );
    /// `mix`.
    pub const MIX: Key = Key::number(
        "mix",
        0.0,
        1.0,
        Some(0.0),
        "share of the alpha-beta judge's value in each leaf's value (0: the evaluator alone)",
    );
    /// `mix_scale`.
    pub const MIX_SCALE: Key = Key::above(
        "mix_scale",
        0.0,
        f64::INFINITY,
        Some(LeafMix::DEFAULT_SCALE as f64),
        "centi-stones of advantage the judge's value reads as tanh(1)",
    );
    /// `eval`.
    pub const EVAL: Key = Key::text(
        "eval",
        "file/`learned`",
        "an evaluation file (`.fne`, or a checkpoint of an evaluation run), or `learned` for the one this program ships",
        "the alpha-beta evaluation: a learned one (a file, or `learned`); without it the hand-written one",
    );
    /// `mix_depth`.
    pub const MIX_DEPTH: Key = Key::whole(
        "mix_depth",
        0,
        LeafMix::MAX_DEPTH as u64,
        Some(LeafMix::DEFAULT_DEPTH as u64),
        "whole turns the judge searches before its capture quiescence",
    );
}

/// The keys of `alphabeta`.
pub mod alphabeta {
    use super::*;

    /// `depth`.
    pub const DEPTH: Key = Key::whole(
        "depth",
        1,
        AlphaBetaConfig::MAX_DEPTH as u64,
        None,
        "turns searched (with neither `depth` nor `ms`: 4; with `ms` alone, deepening until the time is up)",
    );
    /// `q`.
    pub const Q: Key = Key::whole(
        "q",
        0,
        32,
        Some(AlphaBetaConfig::DEFAULT_QUIESCENCE as u64),
        "capture turns the quiescence extension plays out below the depth",
    );
    /// `tt`.
    pub const TT: Key = Key::whole(
        "tt",
        1,
        4096,
        Some(AlphaBetaConfig::DEFAULT_TT_MEBIBYTES as u64),
        "transposition table size in MiB",
    );
    /// `prove`.
    pub const PROVE: Key = Key::whole(
        "prove",
        1,
        600_000,
        None,
        "milliseconds of proof-number search (`fanorona solve`) before the search; a proven win or draw plays the proof's turn",
    );
}

/// The keys of `mcts`.
pub mod mcts {
    use super::*;

    /// `sims`.
    pub const SIMS: Key = Key::whole(
        "sims",
        1,
        Limit::MAX_SIMULATIONS as u64,
        Some(MctsConfig::DEFAULT_SIMULATIONS as u64),
        "simulations per step (a capture chain has several steps); `ms` instead sets a think time",
    );
    /// `c`.
    pub const C: Key = Key::above(
        "c",
        0.0,
        f64::INFINITY,
        Some(MctsConfig::DEFAULT_C_PUCT as f64),
        "exploration constant",
    );
}

/// The keys of `net`.
pub mod net {
    use super::*;

    /// `path`.
    pub const PATH: Key = Key::text(
        "path",
        "file",
        "a model file (exported, `.fnm`, or a training checkpoint, `.ckpt`)",
        "the network",
    )
    .required();
    /// `sims`.
    pub const SIMS: Key = Key::whole(
        "sims",
        1,
        1_000_000,
        Some(200),
        "simulations per step (a capture chain has several steps); `ms` instead sets a think time",
    );
    /// `c`.
    pub const C: Key = mcts::C.default_number(1.5);
    /// `batch`.
    pub const BATCH: Key = Key::whole("batch", 1, 256, Some(8), "leaves per network call");
    /// `backend`.
    pub const BACKEND: Key = Key::word(
        "backend",
        Backend::NAMES,
        None,
        "how the network runs on the CPU (default: the program's choice, `--backend`)",
    );
}

use shared::{EVAL, MIX, MIX_DEPTH, MIX_SCALE, MS, REUSE, SEED, SOLVER, TB, TB_STONES};

/// `random`.
pub static RANDOM: Kind = Kind {
    name: "random",
    summary: "uniform over the legal turns",
    keys: &[SEED],
    settings: |v| {
        Ok(PlayerSettings::Random {
            seed: v.whole(&SEED).unwrap_or(0),
        })
    },
};

/// `greedy`.
pub static GREEDY: Kind = Kind {
    name: "greedy",
    summary: "the turn that captures the most stones, ties at random",
    keys: &[SEED],
    settings: |v| {
        Ok(PlayerSettings::Greedy {
            seed: v.whole(&SEED).unwrap_or(0),
        })
    },
};

/// `alphabeta`.
pub static ALPHABETA: Kind = Kind {
    name: "alphabeta",
    summary: "turn-level alpha-beta (principal variation search, transposition table, capture quiescence)",
    keys: &[
        alphabeta::DEPTH,
        MS,
        alphabeta::Q,
        alphabeta::TT,
        SEED,
        TB,
        TB_STONES,
        EVAL,
        alphabeta::PROVE,
    ],
    settings: |v| {
        let millis = v.whole(&MS);
        let depth = match (v.whole_u32(&alphabeta::DEPTH), millis) {
            (None, None) => Some(AlphaBetaConfig::DEFAULT_DEPTH),
            (depth, _) => depth,
        };
        Ok(PlayerSettings::AlphaBeta(AlphaBetaSettings {
            search: AlphaBetaConfig {
                depth,
                millis,
                quiescence: v.whole_u32(&alphabeta::Q).unwrap_or_default(),
                tt_mebibytes: v.whole(&alphabeta::TT).unwrap_or(1) as usize,
                seed: v.whole(&SEED).unwrap_or(0),
            },
            tables: v.switch(&TB),
            table_stones: v.whole(&TB_STONES).map(|n| n as usize),
            eval: EvalSource::of(v),
            prove_millis: v.whole(&alphabeta::PROVE),
        }))
    },
};

/// `mcts`.
pub static MCTS: Kind = Kind {
    name: "mcts",
    summary: "plain UCT with random rollouts",
    keys: &[
        mcts::SIMS,
        MS,
        mcts::C,
        REUSE,
        SOLVER,
        SEED,
        TB,
        TB_STONES,
        MIX,
        MIX_SCALE,
        MIX_DEPTH,
        EVAL,
    ],
    settings: |v| {
        Ok(PlayerSettings::Mcts(MctsSettings {
            search: mcts_search(v, &mcts::SIMS, &mcts::C, None),
            tables: v.switch(&TB),
            table_stones: v.whole(&TB_STONES).map(|n| n as usize),
            eval: EvalSource::of(v),
        }))
    },
};

/// `net`.
pub static NET: Kind = Kind {
    name: "net",
    summary: "MCTS guided by a network (an exported model or a checkpoint)",
    keys: &[
        net::PATH,
        net::SIMS,
        MS,
        net::C,
        net::BATCH,
        REUSE,
        SOLVER,
        SEED,
        TB,
        TB_STONES,
        net::BACKEND,
        MIX,
        MIX_SCALE,
        MIX_DEPTH,
        EVAL,
    ],
    settings: |v| {
        Ok(PlayerSettings::Net(NetSettings {
            model: PathBuf::from(v.text(&net::PATH).unwrap_or_default()),
            backend: v.word(&net::BACKEND).and_then(|w| w.parse().ok()),
            search: mcts_search(v, &net::SIMS, &net::C, Some(&net::BATCH)),
            tables: v.switch(&TB),
            table_stones: v.whole(&TB_STONES).map(|n| n as usize),
            eval: EvalSource::of(v),
        }))
    },
};

/// Every kind, in the order they are listed.
pub static KINDS: &[&Kind] = &[&RANDOM, &GREEDY, &ALPHABETA, &MCTS, &NET];

/// The search of an MCTS-based kind: its own `sims`, `c` and (when it takes one) `batch`, and
/// the shared `ms`, `reuse`, `seed` and the judge's mix.
fn mcts_search(v: &Values<'_>, sims: &Key, c: &Key, batch: Option<&Key>) -> MctsConfig {
    let mix = LeafMix {
        weight: v.number_f32(&MIX).unwrap_or(0.0),
        scale: v.number_f32(&MIX_SCALE).unwrap_or(1.0),
        depth: v.whole_u32(&MIX_DEPTH).unwrap_or(0),
    };
    MctsConfig {
        simulations: v.whole_u32(sims).unwrap_or(1),
        millis: v.whole(&MS),
        c_puct: v.number_f32(c).unwrap_or(1.0),
        seed: v.whole(&SEED).unwrap_or(0),
        batch_size: batch.and_then(|b| v.whole_u32(b)).unwrap_or(1),
        reuse_across_turns: v.switch(&REUSE),
        solver: v.switch(&SOLVER),
        leaf_mix: (mix.weight > 0.0).then_some(mix),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_declares_each_key_once_and_every_default_is_a_value_it_takes() {
        for kind in KINDS {
            for (i, key) in kind.keys.iter().enumerate() {
                assert!(
                    kind.keys[..i].iter().all(|k| k.name != key.name),
                    "{}: `{}` twice",
                    kind.name,
                    key.name
                );
                if let Some(default) = key.default_text() {
                    assert!(
                        key.accepts(&default),
                        "{}: {}={default}",
                        kind.name,
                        key.name
                    );
                }
            }
        }
    }

    #[test]
    fn the_default_searches_are_the_players_own() {
        let spec = PlayerSpec::bare("mcts");
        let v = Values {
            kind: &MCTS,
            spec: &spec,
        };
        let search = mcts_search(&v, &mcts::SIMS, &mcts::C, None);
        assert_eq!(search, MctsConfig::default());
        let net = NetSettings::search_with(200, 0);
        assert_eq!((net.simulations, net.c_puct, net.batch_size), (200, 1.5, 8));
        assert!(net.reuse_across_turns && net.leaf_mix.is_none());
    }
}
