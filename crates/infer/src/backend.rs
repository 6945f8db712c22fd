//! Which implementation evaluates a network on the CPU: this crate's kernels, or the training
//! framework's own CPU backend. A value the programs pass along (from `--backend`, a run's
//! config or a player's `backend=`), not a process-wide setting.

/// Which implementation evaluates a network on the CPU.
///
/// The default ([`Backend::default`]) is [`Backend::Int8`] where this CPU runs an 8-bit
/// kernel faster than the float ones (AVX2, and `FANORONA_SIMD` not forcing the portable
/// kernels), else [`Backend::Native`]: on an AVX2 machine the 8-bit tower ran 1.1-1.5x the
/// float path, chose the same action in 99.3% of 10,000 game positions and played +61 Elo
/// (+25 to +100) at equal time (docs/speed.md); its portable kernel is slower than the float
/// one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Backend {
    /// This crate's kernels in 32-bit floats.
    Native,
    /// This crate's kernels with the tower's 3x3 convolutions in 8 bits
    /// ([`Precision::Int8`](crate::Precision::Int8)).
    Int8,
    /// burn's flex backend (and burn on any GPU device).
    Burn,
}

impl Default for Backend {
    /// The fastest native backend of this CPU: [`Backend::Int8`] where
    /// [`crate::quant::has_fast_kernel`], else [`Backend::Native`].
    fn default() -> Self {
        if crate::quant::has_fast_kernel() {
            Backend::Int8
        } else {
            Backend::Native
        }
    }
}

named_variants!(Backend, "backend", {
    Native => "native",
    Int8 => "int8",
    Burn => "burn",
});

impl Backend {
    /// The precision of the native kernels this backend runs (`None`: burn).
    pub fn precision(self) -> Option<crate::Precision> {
        match self {
            Backend::Native => Some(crate::Precision::F32),
            Backend::Int8 => Some(crate::Precision::Int8),
            Backend::Burn => None,
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
