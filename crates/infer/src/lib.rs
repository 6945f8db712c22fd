//! Native CPU inference for the Fanorona policy/value network.
//!
//! The training framework (burn) stays the reference and the path for GPUs; on a CPU this crate
//! runs the same folded (batchnorm-free) network several times faster:
//!
//! - **Layout**: activations are channel-innermost over a zero-bordered 7x11 copy of the 5x9
//!   board (`[position][row][column][channel]`), so the 3x3 window of a point is three runs
//!   of `3 * channels` contiguous floats and a convolution reads its input in place (no
//!   im2col copy).
//! - **Weights** are repacked once, at load, into panels of 16 output channels
//!   ([`kernel::NR`]); the heads' linear layers have their rows reordered so that they read
//!   the point-major layout directly.
//! - **One kernel** ([`kernel::tile`]) computes a tile of rows x 16 columns at a time: 12
//!   rows with AVX-512, 6 with AVX2+FMA, each keeping the whole tile in registers. Bias,
//!   residual and ReLU are applied as the tile is written. [`SimdLevel::detect`] picks the
//!   kernel by what the CPU has at run time (or what `FANORONA_SIMD` names); the portable
//!   version serves every other machine.
//! - **Threads**: a batch is split into one share per thread of rayon's pool (at least 4
//!   positions each); each share runs the whole network on buffers taken from a pool, so a
//!   steady stream of calls allocates nothing.
//!
//! ```
//! use fanorona_infer::{NativeNet, Weights};
//! # use fanorona_infer::testing::{Shape, random_weights};
//! # fn weights() -> Weights { random_weights(&Shape::new(16, 1, 8), 1) }
//! let net = NativeNet::new(&weights())?;
//! let planes = vec![0.0; net.input_len()];
//! let mut policy = vec![0.0; net.policy_size()];
//! let mut wdl = [0.0; 3];
//! net.forward(&planes, 1, &mut policy, &mut wdl)?;
//! assert!((wdl.iter().sum::<f32>() - 1.0).abs() < 1e-5);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

/// Declares the names of a fieldless enum's variants once: `NAMES` (in the order given),
/// `name()`, `Display` and `FromStr`, whose error names the kind and lists every name.
macro_rules! named_variants {
    ($ty:ident, $kind:literal, { $($variant:ident => $name:literal),+ $(,)? }) => {
        impl $ty {
            /// Every name, in the order of the variants.
            pub const NAMES: &'static [&'static str] = &[$($name),+];

            /// The variant's name (one of `NAMES`).
            pub fn name(self) -> &'static str {
                match self {
                    $($ty::$variant => $name),+
                }
            }
        }

        impl std::fmt::Display for $ty {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.name())
            }
        }

        impl std::str::FromStr for $ty {
            type Err = String;
            fn from_str(s: &str) -> Result<Self, Self::Err> {
                match s {
                    $($name => Ok($ty::$variant),)+
                    other => Err(format!(
                        "unknown {} `{other}`; expected {}",
                        $kind,
                        crate::one_of(Self::NAMES)
                    )),
                }
            }
        }
    };
}

/// `a`, `a or b`, `a, b or c`.
fn one_of(names: &[&str]) -> String {
    match names.split_last() {
        Some((last, [])) => (*last).to_string(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        None => String::new(),
    }
}

mod backend;
pub mod kernel;
mod layer;
mod net;
pub mod quant;
pub mod testing;
pub mod weights;

pub use backend::Backend;
pub use kernel::SimdLevel;
pub use net::{BatchError, NativeNet, Precision};
pub use weights::{BlockWeights, ConvWeights, LinearWeights, ShapeError, Weights};

/// Board rows.
pub const BOARD_ROWS: usize = 5;
/// Board columns.
pub const BOARD_COLS: usize = 9;
/// Board points.
pub const BOARD_POINTS: usize = BOARD_ROWS * BOARD_COLS;
/// Win, draw and loss.
pub const WDL_SIZE: usize = 3;
/// Columns of the zero-bordered board the tower's activations live on.
const PADDED_COLS: usize = BOARD_COLS + 2;
/// Points of the zero-bordered board.
const PADDED_POINTS: usize = (BOARD_ROWS + 2) * PADDED_COLS;

/// Threads a batch can be split over: those of rayon's global pool (one per core unless
/// `RAYON_NUM_THREADS` says otherwise).
pub fn pool_threads() -> usize {
    rayon::current_num_threads()
}
