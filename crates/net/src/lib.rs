//! The Fanorona policy/value network: model, loss, training step, batched inference, and the
//! checkpoint and exported-model file formats.
//!
//! Built on burn 0.22. Devices are chosen at run time: [`Device::flex()`] is the pure-Rust CPU
//! backend, always available; the `cuda` and `wgpu` cargo features add `Device::cuda(0)` and
//! `Device::wgpu(..)`. Training enables autodiff on the device itself. On the CPU, evaluation
//! runs on the project's own kernels (`fanorona-infer`) unless [`Backend::Burn`] is chosen
//! (see [`inference`]).
//!
//! ```no_run
//! use fanorona_net::{Device, NetConfig, TrainBatch, Trainer, TrainerConfig, ExportMeta};
//! use std::path::Path;
//!
//! # fn main() -> Result<(), fanorona_net::NetError> {
//! let net = NetConfig::new().with_blocks(6).with_channels(64);
//! let mut trainer = Trainer::new(TrainerConfig::new(net), &Device::flex());
//! # let batch: TrainBatch = fanorona_net::bench::random_batch(&trainer.config().net, 256, 0);
//! let report = trainer.train_step(&batch, 0.02)?;
//! println!("loss {:.3} (policy {:.3}, value {:.3})", report.total, report.policy, report.value);
//!
//! trainer.save_checkpoint(Path::new("checkpoints/latest.ckpt"), b"")?;
//! fanorona_net::export(
//!     Path::new("checkpoints/latest.ckpt"),
//!     Path::new("models/latest.fnrn"),
//!     &ExportMeta::default(),
//! )?;
//! let (model, meta) = fanorona_net::load_exported(Path::new("models/latest.fnrn"), fanorona_net::Backend::Native)?;
//! let planes = vec![0.0; model.config().input_len()];
//! let (policy_logits, wdl) = model.forward(&planes, 1);
//! # Ok(()) }
//! ```

pub mod bench;
pub mod checkpoint;
pub mod chooser;
pub mod error;
pub mod eval;
pub mod evaluator;
pub mod inference;
pub mod loss;
pub mod model;
pub mod player;
pub mod service;
pub mod trainer;

// The encoding and the network must agree on the sizes they exchange.
const _: () = assert!(encoding::ACTION_COUNT == model::POLICY_SIZE);

pub use burn::tensor::Device;
pub use checkpoint::{
    CHECKPOINT_MAGIC, CHECKPOINT_VERSION, ExportMeta, MODEL_MAGIC, MODEL_VERSION, checkpoint_extra,
    export, export_model, load_checkpoint_model, load_exported, load_exported_on, load_model_file,
    weights_fingerprint,
};
pub use chooser::{NetChooser, chooser_for};
pub use error::NetError;
pub use eval::{EvalBatch, EvalModel, EvalTrainer, EvalTrainerConfig};
pub use evaluator::NetEvaluator;
pub use fanorona_data::container::{self, ContainerError};
/// What the network sees (its own crate, so that users without burn share it).
pub use fanorona_encoding as encoding;
pub use inference::{Backend, HostOutput, InferenceModel, device_by_name};
pub use loss::{LossConfig, LossOutput, LossReport, compute_loss};
pub use model::{
    BOARD_COLS, BOARD_POINTS, BOARD_ROWS, FanoronaNet, NetConfig, NetOutput, POLICY_SIZE, WDL_SIZE,
};
pub use player::{NetPlayer, NetworkPlayers, load_model_cached, net_player, player_registry};
pub use service::{InferenceService, ServiceEvaluator};
pub use trainer::{OptimizerConfig, TrainBatch, Trainer, TrainerConfig};

/// Guards burn's random generator, which is one per process: an initialisation holds it from
/// its seed to its last weight, so two in one process (tests run on threads, a server loading
/// models) cannot interleave their draws and a seeded run gets the same weights every time.
static WEIGHT_DRAWS: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Builds a module with `init` on `device` holding the generator, seeded with `seed` first
/// when given. burn draws a parameter's weights lazily, at its first use: every parameter is
/// touched before the generator is let go.
pub(crate) fn drawing_weights<M: burn::module::Module>(
    device: &Device,
    seed: Option<u64>,
    init: impl FnOnce() -> M,
) -> M {
    // A panic while drawing leaves nothing half-done in the guard itself: take it back.
    let _held = WEIGHT_DRAWS
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some(seed) = seed {
        device.seed(seed);
    }
    let module = init();
    module.visit(&mut DrawNow);
    module
}

/// Touches every parameter of a module, so burn draws their weights now.
struct DrawNow;

impl burn::module::ModuleVisitor for DrawNow {
    fn visit_float<const D: usize>(
        &mut self,
        param: &burn::module::Param<burn::tensor::Tensor<D>>,
    ) {
        let _ = param.val();
    }
    fn visit_int<const D: usize>(
        &mut self,
        param: &burn::module::Param<burn::tensor::Tensor<D, burn::tensor::Int>>,
    ) {
        let _ = param.val();
    }
    fn visit_bool<const D: usize>(
        &mut self,
        param: &burn::module::Param<burn::tensor::Tensor<D, burn::tensor::Bool>>,
    ) {
        let _ = param.val();
    }
}
