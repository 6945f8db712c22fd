//! Player specifications: the text form of a player, `kind[:key=value[,key=value...]]`.
//!
//! | kind | keys | meaning |
//! | --- | --- | --- |
//! | `random` | `seed` | uniform over the legal turns |
//! | `greedy` | `seed` | most stones captured, ties at random |
//! | `alphabeta` | `depth`, `ms`, `q`, `tt`, `seed` | depth in turns (1-64), milliseconds per turn, quiescence turns (0-32, default 4), table MiB (1-4096, default 16); with neither `depth` nor `ms`, depth 4 |
//! | `mcts` | `sims`, `ms`, `c`, `reuse`, `seed`, `mix`, `mix_scale`, `mix_depth` | simulations per step (default 800), or milliseconds per turn; exploration constant (default 4); `reuse=off` starts every turn with a fresh tree (default `on`: the subtree of the opponent's reply is kept); `mix` (0-1, default 0) mixes the alpha-beta judge's value of each leaf into its value ([`LeafMix`]: `mix_scale` centi-stones read as `tanh(1)`, default 300; `mix_depth` whole turns before the quiescence, 0-3, default 0) |
//!
//! Every kind takes `seed=<u64>`: a player's random stream is derived from it and from the
//! stream number its builder passes ([`PlayerSpec::stream_seed`]; match play passes one per
//! game and side, so games differ but replay identically).
//!
//! Parsing ([`str::parse`]) checks only the syntax and returns the kind and the key/value pairs
//! as they are, and does no I/O. The [`Registry`](crate::Registry) checks a spec against its
//! kind and builds the player, as a separate step; other crates register kinds of their own
//! (`net:path=model.fnm,sims=200`) with the helpers [`PlayerSpec::check_keys`] and
//! [`PlayerSpec::value`].

use std::fmt;
use std::str::FromStr;

use fanorona_mcts::derive_seed;

use crate::mix::LeafMix;
use crate::uct::MctsConfig;

/// What is wrong with a player specification.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SpecError {
    /// Nothing but whitespace.
    #[error("empty player specification (expected e.g. `random` or `alphabeta:depth=4`)")]
    Empty,
    /// A kind that is not a lower-case word.
    #[error("invalid player kind {0:?} (expected a word like `alphabeta`)")]
    BadKind(String),
    /// A parameter that is not `key=value`.
    #[error("invalid parameter {text:?} in player `{kind}` (expected key=value)")]
    BadParameter {
        /// The player kind.
        kind: String,
        /// The parameter's text.
        text: String,
    },
    /// The same key twice.
    #[error("parameter `{key}` given twice in player `{kind}`")]
    DuplicateKey {
        /// The player kind.
        kind: String,
        /// The repeated key.
        key: String,
    },
    /// A kind this builder does not know.
    #[error("unknown player kind `{kind}` (known: {known})")]
    UnknownKind {
        /// The kind given.
        kind: String,
        /// The kinds that exist, comma-separated.
        known: String,
    },
    /// A key the kind requires is missing.
    #[error("player `{kind}` needs `{key}`: {what}")]
    MissingKey {
        /// The player kind.
        kind: String,
        /// The missing key.
        key: &'static str,
        /// What its value is, e.g. `net:path=<model file>`.
        what: &'static str,
    },
    /// A key the kind does not take.
    #[error("unknown parameter `{key}` for player `{kind}` (allowed: {allowed})")]
    UnknownKey {
        /// The player kind.
        kind: String,
        /// The key given.
        key: String,
        /// The keys the kind takes, comma-separated.
        allowed: String,
    },
    /// A value of the wrong form or out of range.
    #[error("bad value `{value}` for `{key}` in player `{kind}`: expected {expected}")]
    BadValue {
        /// The player kind.
        kind: String,
        /// The key.
        key: String,
        /// The value given.
        value: String,
        /// What the value must be.
        expected: &'static str,
    },
}

/// A parsed player specification: a kind and its `key=value` parameters, in the order given.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PlayerSpec {
    kind: String,
    params: Vec<(String, String)>,
}

impl PlayerSpec {
    /// The kind, e.g. `alphabeta`.
    pub fn kind(&self) -> &str {
        &self.kind
    }

    /// The parameters, in the order given.
    pub fn params(&self) -> &[(String, String)] {
        &self.params
    }

    /// The raw value of `key`, if given.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.params
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// Rejects any key not in `allowed`.
    pub fn check_keys(&self, allowed: &[&str]) -> Result<(), SpecError> {
        match self
            .params
            .iter()
            .find(|(k, _)| !allowed.contains(&k.as_str()))
        {
            Some((key, _)) => Err(SpecError::UnknownKey {
                kind: self.kind.clone(),
                key: key.clone(),
                allowed: allowed.join(", "),
            }),
            None => Ok(()),
        }
    }

    /// The value of `key` parsed as `T` and accepted by `valid`; `None` when not given. The
    /// error names the key, the value and `expected`.
    pub fn value<T: FromStr>(
        &self,
        key: &str,
        expected: &'static str,
        valid: impl Fn(&T) -> bool,
    ) -> Result<Option<T>, SpecError> {
        let Some(text) = self.get(key) else {
            return Ok(None);
        };
        match text.parse::<T>() {
            Ok(v) if valid(&v) => Ok(Some(v)),
            _ => Err(SpecError::BadValue {
                kind: self.kind.clone(),
                key: key.to_string(),
                value: text.to_string(),
                expected,
            }),
        }
    }

    /// The `seed` parameter, if given.
    pub fn seed(&self) -> Result<Option<u64>, SpecError> {
        self.value("seed", "a whole number from 0 to 2^64-1", |_| true)
    }

    /// The `tb` parameter: whether the player uses the endgame tables it is given (`on`, the
    /// default, or `off`).
    pub fn uses_tables(&self) -> Result<bool, SpecError> {
        self.switch("tb", true)
    }

    /// An `on`/`off` parameter, `default` when absent.
    pub fn switch(&self, key: &str, default: bool) -> Result<bool, SpecError> {
        match self.get(key) {
            None => Ok(default),
            Some("on") => Ok(true),
            Some("off") => Ok(false),
            Some(other) => Err(SpecError::BadValue {
                kind: self.kind.clone(),
                key: key.into(),
                value: other.into(),
                expected: "`on` or `off`",
            }),
        }
    }

    /// The tables a player built from this spec uses: `tables`, unless `tb=off`.
    pub fn tables(
        &self,
        tables: &crate::tables::Tables,
    ) -> Result<crate::tables::Tables, SpecError> {
        Ok(if self.uses_tables()? {
            tables.clone()
        } else {
            None
        })
    }

    /// The seed of a player's random stream `stream`: derived from the spec's `seed` (0 when
    /// not given) and `stream`, so different streams differ and the same stream repeats.
    pub fn stream_seed(&self, stream: u64) -> Result<u64, SpecError> {
        Ok(derive_seed(self.seed()?.unwrap_or(0), stream))
    }

    /// The think time `ms`, checked against [`Limit::MAX_MILLIS`](crate::Limit::MAX_MILLIS) (one
    /// hour), as every player kind reads it.
    pub fn millis(&self) -> Result<Option<u64>, SpecError> {
        self.value(
            "ms",
            "a whole number of milliseconds from 1 to 3600000 (one hour)",
            |m: &u64| (1..=crate::Limit::MAX_MILLIS).contains(m),
        )
    }

    /// The `mix`, `mix_scale` and `mix_depth` parameters of an MCTS player (see
    /// [`LeafMix`]): `mix=0` (or none of the three and no default) is no mix.
    pub fn leaf_mix(&self, default: Option<LeafMix>) -> Result<Option<LeafMix>, SpecError> {
        let weight = self.value("mix", "a number from 0 to 1", |w: &f32| {
            (0.0..=1.0).contains(w)
        })?;
        let scale = self.value(
            "mix_scale",
            "a positive number of centi-stones",
            |s: &f32| s.is_finite() && *s > 0.0,
        )?;
        let depth = self.value("mix_depth", "a whole number from 0 to 3", |d: &u32| {
            *d <= LeafMix::MAX_DEPTH
        })?;
        let base = default.unwrap_or(LeafMix {
            weight: 0.0,
            scale: LeafMix::DEFAULT_SCALE,
            depth: LeafMix::DEFAULT_DEPTH,
        });
        let mix = LeafMix {
            weight: weight.unwrap_or(base.weight),
            scale: scale.unwrap_or(base.scale),
            depth: depth.unwrap_or(base.depth),
        };
        Ok((mix.weight > 0.0).then_some(mix))
    }

    /// The search settings of any MCTS-based player spec over `default`: `sims`, `ms`, `c`,
    /// `batch`, `reuse`, the leaf mix and the stream's seed. `sims` is `(what it must be,
    /// largest allowed)`. The caller checks which keys its kind accepts.
    pub fn search_settings(
        &self,
        stream: u64,
        default: MctsConfig,
        sims: (&'static str, u32),
    ) -> Result<MctsConfig, SpecError> {
        let (sims_expected, sims_max) = sims;
        let simulations =
            self.value("sims", sims_expected, |s: &u32| (1..=sims_max).contains(s))?;
        let millis = self.millis()?;
        let c = self.value("c", "a positive number", |c: &f32| {
            c.is_finite() && *c > 0.0
        })?;
        let batch = self.value("batch", "a whole number from 1 to 256", |b: &u32| {
            (1..=256).contains(b)
        })?;
        let leaf_mix = self.leaf_mix(default.leaf_mix)?;
        Ok(MctsConfig {
            leaf_mix,
            simulations: simulations.unwrap_or(default.simulations),
            millis,
            c_puct: c.unwrap_or(default.c_puct),
            seed: self.stream_seed(stream)?,
            batch_size: batch.unwrap_or(default.batch_size),
            reuse_across_turns: self.switch("reuse", default.reuse_across_turns)?,
        })
    }
}

impl FromStr for PlayerSpec {
    type Err = SpecError;

    /// Parses `kind[:key=value[,key=value...]]`; spaces around the parts are ignored. Checks
    /// the syntax only ([`Registry::check`](crate::Registry::check) checks keys and values).
    fn from_str(text: &str) -> Result<PlayerSpec, SpecError> {
        let text = text.trim();
        if text.is_empty() {
            return Err(SpecError::Empty);
        }
        let (kind, rest) = match text.split_once(':') {
            Some((k, r)) => (k.trim(), Some(r)),
            None => (text, None),
        };
        let word = |s: &str| {
            !s.is_empty()
                && s.chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' || c == '-')
        };
        if !word(kind) {
            return Err(SpecError::BadKind(kind.to_string()));
        }
        let mut params: Vec<(String, String)> = Vec::new();
        if let Some(rest) = rest {
            for part in rest.split(',') {
                let bad = || SpecError::BadParameter {
                    kind: kind.to_string(),
                    text: part.trim().to_string(),
                };
                let (key, value) = part.split_once('=').ok_or_else(bad)?;
                let (key, value) = (key.trim(), value.trim());
                if !word(key) || value.is_empty() {
                    return Err(bad());
                }
                if params.iter().any(|(k, _)| k == key) {
                    return Err(SpecError::DuplicateKey {
                        kind: kind.to_string(),
                        key: key.to_string(),
                    });
                }
                params.push((key.to_string(), value.to_string()));
            }
        }
        Ok(PlayerSpec {
            kind: kind.to_string(),
            params,
        })
    }
}

impl fmt::Display for PlayerSpec {
    /// The canonical text: `kind` or `kind:key=value,...` in the order given.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.kind)?;
        for (i, (k, v)) in self.params.iter().enumerate() {
            write!(f, "{}{k}={v}", if i == 0 { ':' } else { ',' })?;
        }
        Ok(())
    }
}
