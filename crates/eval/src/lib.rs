//! The learned evaluation of the alpha-beta player.
//!
//! A small network over the stones on the board, from the mover's view ([`features`]: 45 points
//! x {the mover's stone, the other side's}, or the contents of every three points in a row on a
//! line of the board), two clipped-linear hidden layers and one output in
//! centi-stones, learned by self-play (`fanorona train` with `[model] kind = "eval"`) the way
//! Stockfish's NNUE and Logistello's patterns were. In the search it runs on integers
//! ([`EvalNet`]): the first layer is the sum of the columns of the stones on the board, the
//! weights are quantised once at load, and the SIMD level is picked at run time.
//!
//! ```
//! use fanorona_engine::Position;
//! use fanorona_eval::{EvalNet, EvalWeights, Shape};
//!
//! let mut weights = EvalWeights::zeros(Shape::default());
//! weights.b3 = 0.25; // a quarter of a stone for the side to move, whatever the board
//! let net = EvalNet::new(weights).unwrap();
//! assert_eq!(net.evaluate(&Position::start()), 25);
//! ```

pub mod features;
mod net;
mod weights;

/// The learned evaluation this program ships (`eval=learned`): the bytes of
/// `checkpoints/learned.fne` (trained by `configs/eval.toml`, docs/learning.md), built in.
/// An `Option` so that a build may ship none: every user then falls back to the hand-written
/// evaluation.
pub const SHIPPED: Option<&[u8]> = Some(include_bytes!("../../../checkpoints/learned.fne"));

pub use features::Inputs;
pub use net::{EvalNet, SimdLevel};
pub use weights::{
    CENTISTONES_PER_UNIT, EVAL_MAGIC, EVAL_VERSION, EvalError, EvalMeta, EvalWeights, L1_BIAS_MAX,
    L1_WEIGHT_MAX, L2_BIAS_MAX, L2_WEIGHT_MAX, Shape,
};
