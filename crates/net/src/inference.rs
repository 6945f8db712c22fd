//! Batched evaluation of positions for search and play.
//!
//! # Threads
//!
//! On the flex (CPU) device, large matrix products and element-wise kernels run on rayon's
//! global thread pool, which by default has one thread per core. Set `RAYON_NUM_THREADS=n`
//! before the first evaluation to change that (e.g. `1` when several self-play workers each
//! evaluate their own batches), or call from inside a `rayon::ThreadPool::install` closure.
//! Small products (under 192^3 multiply-adds) always run on the calling thread.

use burn::module::Module;
use burn::tensor::activation::softmax;
use burn::tensor::{Device, Tensor, TensorData, Transaction};

use crate::error::NetError;
use crate::model::{
    BOARD_COLS, BOARD_ROWS, FanoronaNet, FusedNet, NetConfig, POLICY_SIZE, WDL_SIZE,
};

/// Network outputs for a batch, as host vectors.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct HostOutput {
    /// Raw policy logits, `batch * POLICY_SIZE`, row-major; not masked (the caller knows which
    /// actions are legal and softmaxes over those).
    pub policy_logits: Vec<f32>,
    /// Win/draw/loss probabilities for the player to move, `batch * 3`, row-major.
    pub wdl: Vec<f32>,
}

/// A network ready for evaluation: weights without autodiff, batchnorm in inference mode.
///
/// Cheap to clone (tensors are reference counted) and safe to share between threads.
#[derive(Debug, Clone)]
pub struct InferenceModel {
    config: NetConfig,
    model: FanoronaNet,
    /// `model` with its batchnorms folded in: what `forward` runs.
    fused: FusedNet,
    device: Device,
}

impl InferenceModel {
    /// Wraps `model`, moving it to `device` (autodiff is stripped from both).
    pub fn new(config: NetConfig, model: FanoronaNet, device: &Device) -> Self {
        let device = device.clone().without_autodiff();
        let model = model.valid().to_device(&device);
        let fused = model.fused();
        Self {
            config,
            model,
            fused,
            device,
        }
    }

    /// A freshly initialised (untrained) network on `device`.
    pub fn random(config: &NetConfig, device: &Device) -> Self {
        let device = device.clone().without_autodiff();
        let model = config.init(&device);
        Self::new(config.clone(), model, &device)
    }

    /// The network shape.
    pub fn config(&self) -> &NetConfig {
        &self.config
    }

    /// The device the network runs on.
    pub fn device(&self) -> &Device {
        &self.device
    }

    /// The underlying burn module (inference mode).
    pub fn model(&self) -> &FanoronaNet {
        &self.model
    }

    /// Evaluates `batch` positions whose planes are concatenated in `planes`
    /// (`batch * input_planes * 45` floats). Returns (policy logits `batch * 1081`,
    /// win/draw/loss probabilities `batch * 3`).
    ///
    /// # Panics
    ///
    /// Panics if `planes` has the wrong length or the device fails; [`Self::try_forward`]
    /// returns those as errors.
    pub fn forward(&self, planes: &[f32], batch: usize) -> (Vec<f32>, Vec<f32>) {
        match self.try_forward(planes, batch) {
            Ok(eval) => (eval.policy_logits, eval.wdl),
            Err(e) => panic!("evaluation failed: {e}"),
        }
    }

    /// Like [`Self::forward`], taking the planes by value (no copy before the upload).
    ///
    /// # Panics
    ///
    /// As [`Self::forward`].
    pub fn forward_owned(&self, planes: Vec<f32>, batch: usize) -> (Vec<f32>, Vec<f32>) {
        match self.try_forward_owned(planes, batch) {
            Ok(eval) => (eval.policy_logits, eval.wdl),
            Err(e) => panic!("evaluation failed: {e}"),
        }
    }

    /// Like [`Self::forward`], with errors returned rather than panicking.
    ///
    /// One upload of the planes and one download of both outputs.
    pub fn try_forward(&self, planes: &[f32], batch: usize) -> Result<HostOutput, NetError> {
        self.try_forward_owned(planes.to_vec(), batch)
    }

    /// Like [`Self::try_forward`], taking the planes by value.
    pub fn try_forward_owned(
        &self,
        planes: Vec<f32>,
        batch: usize,
    ) -> Result<HostOutput, NetError> {
        let expected = batch * self.config.input_len();
        if planes.len() != expected {
            return Err(NetError::BatchShape {
                field: "planes",
                expected,
                found: planes.len(),
            });
        }
        if batch == 0 {
            return Ok(HostOutput::default());
        }
        let shape = [batch, self.config.input_planes, BOARD_ROWS, BOARD_COLS];
        let input = Tensor::<4>::from_data(TensorData::new(planes, shape), &self.device);
        let out = self.fused.forward(input);
        let wdl = softmax(out.wdl, 1); // [batch, 3]
        let data = Transaction::default()
            .register(out.policy)
            .register(wdl)
            .try_execute()
            .map_err(|e| NetError::Device(e.to_string()))?;
        let mut data = data.into_iter();
        let mut next = |what: &str, len: usize| -> Result<Vec<f32>, NetError> {
            let values = data
                .next()
                .ok_or_else(|| NetError::Device(format!("{what} missing from device read")))?
                .try_into_vec::<f32>()
                .map_err(|e| NetError::Device(format!("{what}: {e:?}")))?;
            if values.len() != len {
                return Err(NetError::Device(format!(
                    "{what}: {} values read, expected {len}",
                    values.len()
                )));
            }
            Ok(values)
        };
        let policy_logits = next("policy", batch * POLICY_SIZE)?;
        let wdl = next("wdl", batch * WDL_SIZE)?;
        Ok(HostOutput { policy_logits, wdl })
    }
}

/// The compute device named in a config or on the command line: `cpu` (burn's pure-Rust flex
/// backend, always available), `cuda` (first GPU) or `wgpu` (the default adapter), the last
/// two only in builds with the matching cargo feature.
pub fn device_by_name(name: &str) -> Result<Device, NetError> {
    match name {
        "cpu" | "flex" => Ok(Device::flex()),
        #[cfg(feature = "cuda")]
        "cuda" => Ok(Device::cuda(0)),
        #[cfg(feature = "wgpu")]
        "wgpu" => Ok(Device::wgpu(burn::tensor::DeviceKind::DefaultDevice)),
        "cuda" | "wgpu" => Err(NetError::Device(format!(
            "device `{name}` needs a build with it: cargo build --release -p fanorona --features {name}"
        ))),
        other => Err(NetError::Device(format!(
            "unknown device `{other}`; expected cpu, cuda or wgpu"
        ))),
    }
}
