//! Which implementation evaluates a network on the CPU: this crate's kernels, or the training
//! framework's own CPU backend. A value the programs pass along (from `--backend`, a run's
//! config or a player's `backend=`), not a process-wide setting.

/// Which implementation evaluates a network on the CPU.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Backend {
    /// This crate's kernels; the default.
    #[default]
    Native,
    /// burn's flex backend (and burn on any GPU device).
    Burn,
}

impl Backend {
    /// The names, in the order of the variants.
    pub const NAMES: &'static [&'static str] = &["native", "burn"];

    /// `native` or `burn`.
    pub fn name(self) -> &'static str {
        match self {
            Backend::Native => Self::NAMES[0],
            Backend::Burn => Self::NAMES[1],
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
            "burn" => Ok(Backend::Burn),
            other => Err(format!(
                "unknown backend `{other}`; expected native or burn"
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
