//! Player specifications as text: `kind[:key=value[,key=value...]]`.
//!
//! Parsing ([`str::parse`]) checks only the syntax and returns the kind and the `key=value`
//! pairs as they are, with no I/O. What keys a kind takes and what values they may have is
//! declared once, in [`crate::kinds`]; the [`Registry`](crate::Registry) checks a spec against
//! that declaration and turns it into typed [`Settings`](crate::Settings).

use std::fmt;
use std::str::FromStr;

use fanorona_mcts::derive_seed;

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
    #[error("player `{kind}` needs `{key}=`: {what}")]
    MissingKey {
        /// The player kind.
        kind: String,
        /// The missing key.
        key: &'static str,
        /// What its value is, e.g. `a model file`.
        what: String,
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
        expected: String,
    },
}

/// A parsed player specification: a kind and its `key=value` parameters, in the order given.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PlayerSpec {
    kind: String,
    params: Vec<(String, String)>,
}

impl PlayerSpec {
    /// A spec of `kind` with no parameters.
    pub fn bare(kind: &str) -> PlayerSpec {
        PlayerSpec {
            kind: kind.to_string(),
            params: Vec::new(),
        }
    }

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

    /// The same spec with `key` set to `value` (replacing the value it had, or added last).
    pub fn with(&self, key: &str, value: &str) -> PlayerSpec {
        let mut spec = self.clone();
        match spec.params.iter_mut().find(|(k, _)| k == key) {
            Some((_, v)) => *v = value.to_string(),
            None => spec.params.push((key.to_string(), value.to_string())),
        }
        spec
    }

    /// The seed of a player's random stream `stream`: derived from `seed` (the spec's `seed`
    /// key, 0 when not given) and `stream`, so different streams differ and the same stream
    /// repeats.
    pub fn stream_seed(seed: u64, stream: u64) -> u64 {
        derive_seed(seed, stream)
    }
}

impl FromStr for PlayerSpec {
    type Err = SpecError;

    /// Parses `kind[:key=value[,key=value...]]`; spaces around the parts are ignored. Checks
    /// the syntax only ([`Registry::settings`](crate::Registry::settings) checks keys and values).
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
