//! How the move generator gathers a stone's neighbours into a byte, picked once per process.
//!
//! Two ways give the same bits:
//! - [`Gather::Pext`]: one BMI2 `pext` instruction per ring. Fast on Intel since Haswell and
//!   AMD since Zen 3, but microcoded on earlier AMD processors (family 0x17, Zen 1 and 2, and
//!   Hygon's family 0x18), where it takes tens to hundreds of cycles: perft ran at half speed
//!   there with it.
//! - [`Gather::Portable`]: shifts and masks for the two fixed rings, a handful of one-cycle
//!   instructions on every CPU.
//!
//! [`Gather::active`] is decided on first use: `FANORONA_GATHER=pext|portable` forces one (for
//! measurement); otherwise [`Gather::detect`] looks at the CPU. Programs check the variable
//! up front with [`Gather::from_env`], so a bad value is an error, not silently ignored.

use std::sync::atomic::{AtomicU8, Ordering};

/// The environment variable that forces a gather.
pub const GATHER_ENV: &str = "FANORONA_GATHER";

/// A way to gather a stone's neighbours (see the module docs).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Gather {
    /// BMI2 `pext`.
    Pext,
    /// Shifts and masks.
    Portable,
}

/// The gather in use: 0 while undecided, else `1 + Gather as u8`.
static ACTIVE: AtomicU8 = AtomicU8::new(0);

impl Gather {
    /// Every gather, by name.
    pub const ALL: [Gather; 2] = [Gather::Pext, Gather::Portable];

    /// Its name, as `FANORONA_GATHER` takes it.
    pub fn name(self) -> &'static str {
        match self {
            Gather::Pext => "pext",
            Gather::Portable => "portable",
        }
    }

    /// Whether this CPU can run it at all (`pext` needs BMI2).
    pub fn available(self) -> bool {
        match self {
            Gather::Pext => has_bmi2(),
            Gather::Portable => true,
        }
    }

    /// The faster gather on this CPU: `pext` where it is a fast instruction (BMI2 on an Intel
    /// processor, or an AMD one from family 0x19, Zen 3, on), shifts and masks elsewhere.
    pub fn detect() -> Gather {
        if fast_pext() {
            Gather::Pext
        } else {
            Gather::Portable
        }
    }

    /// The gather `FANORONA_GATHER` forces: `None` when it is unset or empty, an error naming
    /// the variable when its value is not a gather's name or names one this CPU cannot run.
    pub fn from_env() -> Result<Option<Gather>, String> {
        let Some(value) = std::env::var_os(GATHER_ENV) else {
            return Ok(None);
        };
        let value = value.to_string_lossy();
        if value.is_empty() {
            return Ok(None);
        }
        let gather = Gather::ALL
            .into_iter()
            .find(|g| g.name() == value)
            .ok_or_else(|| format!("{GATHER_ENV}={value}: not a gather (pext or portable)"))?;
        if !gather.available() {
            return Err(format!(
                "{GATHER_ENV}=pext: this CPU has no BMI2 (pext); use portable or leave it unset"
            ));
        }
        Ok(Some(gather))
    }

    /// The gather the move generator uses in this process: forced by `FANORONA_GATHER` when
    /// that holds a usable value, else [`Gather::detect`]. Decided on the first call.
    #[inline(always)]
    pub fn active() -> Gather {
        match ACTIVE.load(Ordering::Relaxed) {
            1 => Gather::Pext,
            2 => Gather::Portable,
            _ => Self::decide(),
        }
    }

    #[cold]
    fn decide() -> Gather {
        let gather = Self::from_env().ok().flatten().unwrap_or_else(Self::detect);
        ACTIVE.store(1 + gather as u8, Ordering::Relaxed);
        gather
    }
}

impl std::fmt::Display for Gather {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(target_arch = "x86_64")]
fn has_bmi2() -> bool {
    std::arch::is_x86_feature_detected!("bmi2")
}

#[cfg(not(target_arch = "x86_64"))]
fn has_bmi2() -> bool {
    false
}

/// BMI2 on a processor whose `pext` is not microcoded.
#[cfg(target_arch = "x86_64")]
fn fast_pext() -> bool {
    use std::arch::x86_64::__cpuid;
    if !has_bmi2() {
        return false;
    }
    let vendor = __cpuid(0);
    let mut name = [0u8; 12];
    name[..4].copy_from_slice(&vendor.ebx.to_le_bytes());
    name[4..8].copy_from_slice(&vendor.edx.to_le_bytes());
    name[8..].copy_from_slice(&vendor.ecx.to_le_bytes());
    let signature = __cpuid(1).eax;
    let base = (signature >> 8) & 0xF;
    let family = if base == 0xF {
        base + ((signature >> 20) & 0xFF)
    } else {
        base
    };
    pext_is_fast(&name, family)
}

#[cfg(not(target_arch = "x86_64"))]
fn fast_pext() -> bool {
    false
}

/// Whether a BMI2 processor of this vendor and family runs `pext` in hardware: every Intel
/// one; AMD's from family 0x19 (Zen 3) on. AMD's families 0x15-0x17 and Hygon's 0x18 (built on
/// Zen 1) microcode it; other vendors are not assumed fast.
fn pext_is_fast(vendor: &[u8; 12], family: u32) -> bool {
    match vendor {
        b"GenuineIntel" => true,
        b"AuthenticAMD" => family >= 0x19,
        _ => false,
    }
}

/// Collect the bits of `x` selected by `mask` into the low bits, in order, with `pext`.
///
/// # Safety
/// The CPU must have BMI2 ([`Gather::available`]).
#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
#[target_feature(enable = "bmi2")]
#[inline]
pub(crate) unsafe fn pext(x: u64, mask: u64) -> u32 {
    std::arch::x86_64::_pext_u64(x, mask) as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pext_is_fast_on_intel_and_on_amd_from_zen_3() {
        assert!(pext_is_fast(b"GenuineIntel", 6));
        assert!(
            !pext_is_fast(b"AuthenticAMD", 0x17),
            "Zen 1 and 2: microcoded"
        );
        assert!(!pext_is_fast(b"AuthenticAMD", 0x15), "Excavator");
        assert!(pext_is_fast(b"AuthenticAMD", 0x19), "Zen 3 and 4");
        assert!(pext_is_fast(b"AuthenticAMD", 0x1A), "Zen 5");
        assert!(!pext_is_fast(b"HygonGenuine", 0x18));
    }

    #[test]
    fn the_detected_gather_runs_here_and_names_round_trip() {
        assert!(Gather::detect().available());
        assert!(Gather::Portable.available());
        for g in Gather::ALL {
            assert_eq!(
                Gather::ALL.into_iter().find(|x| x.name() == g.name()),
                Some(g)
            );
        }
    }
}
