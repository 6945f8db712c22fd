//! Which implementation evaluates a network on the CPU: this crate's kernels, or the training
//! framework's own CPU backend. A value the programs pass along (from `--backend`, a run's
//! config or a player's `backend=`), not a process-wide setting.

/// Which implementation evaluates a network on the CPU.
///
/// The default is [`Backend::Native`]. [`Backend::Int8`] is faster on CPUs with AVX2 and
/// played stronger at equal time there (docs/speed.md), but is not the default until the
/// whole test suite has run with it; on other CPUs its portable kernel is slower.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Backend {
    /// This crate's kernels in 32-bit floats; the default.
    #[default]
    Native,
    /// This crate's kernels with the tower's 3x3 convolutions in 8 bits
    /// ([`Precision::Int8`](crate::Precision::Int8)).
    Int8,
    /// burn's flex backend (and burn on any GPU device).
    Burn,
}

impl Backend {
    /// The names, in the order of the variants.
    pub const NAMES: &'static [&'static str] = &["native", "int8", "burn"];

    /// `native`, `int8` or `burn`.
    pub fn name(self) -> &'static str {
        match self {
            Backend::Native => Self::NAMES[0],
            Backend::Int8 => Self::NAMES[1],
            Backend::Burn => Self::NAMES[2],
        }
    }

    /// The precision of the native kernels this backend runs (`None`: burn).
    pub fn precision(self) -> Option<crate::Precision> {
        match self {
            Backend::Native => Some(crate::Precision::F32),
            Backend::Int8 => Some(crate::Precision::Int8),
            Backend::Burn => None,
        }
    }
}

impl std::fmt::Display for Backend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Backend {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "native" => Ok(Backend::Native),
            "int8" => Ok(Backend::Int8),
            "burn" => Ok(Backend::Burn),
            other => Err(format!(
                "unknown backend `{other}`; expected native, int8 or burn"
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_read_back() {
        for name in Backend::NAMES {
            assert_eq!(name.parse::<Backend>().unwrap().name(), *name);
        }
        assert!("cuda".parse::<Backend>().is_err());
    }
}
