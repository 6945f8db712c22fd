//! Batched evaluation of positions for search and play.
//!
//! # Backends
//!
//! On the CPU a network is evaluated by the native path ([`Backend::Native`], the
//! `fanorona-infer` crate: weights repacked at load, AVX2 or portable kernels picked at run
//! time) unless burn is asked for ([`Backend::Burn`]: `--backend burn` on the command line,
//! `backend=burn` in a `net:` player spec, `inference = "burn"` in a training config). The
//! backend is a value every loader and constructor takes, never a process-wide setting. On a
//! GPU device burn always runs. Both give the same outputs up to float rounding (tested to
//! 1e-4).
//!
//! # Threads
//!
//! Both backends run on rayon's global thread pool, which by default has one thread per core
//! (`RAYON_NUM_THREADS=n` changes it). The native path splits a batch into one share per
//! thread, at least 4 positions each; burn splits its large matrix products and runs small
//! ones (under 192^3 multiply-adds) on the calling thread.

use std::sync::Arc;

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

pub use fanorona_infer::Backend;

/// A network ready for evaluation: weights without autodiff, batchnorm in inference mode,
/// evaluated by the native CPU path or by burn ([`Backend`]).
///
/// Cheap to clone (tensors and the native network are reference counted) and safe to share
/// between threads.
#[derive(Debug, Clone)]
pub struct InferenceModel {
    config: NetConfig,
    model: FanoronaNet,
    /// `model` with its batchnorms folded in: what burn runs.
    fused: FusedNet,
    device: Device,
    /// The same network compiled for the CPU, when the native backend is in use.
    native: Option<Arc<fanorona_infer::NativeNet>>,
}

impl InferenceModel {
    /// Wraps `model`, moving it to `device` (autodiff is stripped from both), evaluated by
    /// `backend` when `device` is the CPU and by burn on any other device.
    ///
    /// A network built from its [`NetConfig`] or loaded by this crate always fits the native
    /// path (loading checks every shape); should one not, it stays on burn.
    /// [`Self::try_new`] reports that instead.
    pub fn new(config: NetConfig, model: FanoronaNet, device: &Device, backend: Backend) -> Self {
        let burn = Self::on_burn(config, model, device);
        burn.clone().on_cpu_backend(backend).unwrap_or(burn)
    }

    /// Like [`Self::new`], with a network that does not fit the native path an error.
    pub fn try_new(
        config: NetConfig,
        model: FanoronaNet,
        device: &Device,
        backend: Backend,
    ) -> Result<Self, NetError> {
        Self::on_burn(config, model, device).on_cpu_backend(backend)
    }

    /// `backend` on the CPU, burn on any other device.
    fn on_cpu_backend(self, backend: Backend) -> Result<Self, NetError> {
        if self.device != Device::flex() || backend == Backend::Burn {
            return Ok(self);
        }
        self.with_backend(backend)
    }

    fn on_burn(config: NetConfig, model: FanoronaNet, device: &Device) -> Self {
        let device = device.clone().without_autodiff();
        let model = model.valid().to_device(&device);
        let fused = model.fused();
        Self {
            config,
            model,
            fused,
            device,
            native: None,
        }
    }

    /// The same network on `backend`. The native path runs on the CPU whatever device the
    /// weights are on; it fails if the weights' shapes do not fit together.
    pub fn with_backend(mut self, backend: Backend) -> Result<Self, NetError> {
        match backend.precision() {
            None => self.native = None,
            Some(precision) if self.native().map(|n| n.precision()) == Some(precision) => {}
            Some(precision) => {
                let weights = self.fused.native_weights().map_err(NetError::Device)?;
                let net = fanorona_infer::NativeNet::new(&weights)
                    .map_err(|e| NetError::Shape(e.to_string()))?
                    .with_precision(precision);
                self.native = Some(Arc::new(net));
            }
        }
        Ok(self)
    }

    /// The folded weights as plain arrays (what the native path is built from), for tools and
    /// for tests that build the native network at a chosen kernel level.
    pub fn native_weights(&self) -> Result<fanorona_infer::Weights, NetError> {
        self.fused.native_weights().map_err(NetError::Device)
    }

    /// The backend evaluating this model.
    pub fn backend(&self) -> Backend {
        match self.native().map(|n| n.precision()) {
            Some(fanorona_infer::Precision::F32) => Backend::Native,
            Some(fanorona_infer::Precision::Int8) => Backend::Int8,
            None => Backend::Burn,
        }
    }

    /// The native network, when that is the backend (its kernel level and threads).
    pub fn native(&self) -> Option<&fanorona_infer::NativeNet> {
        self.native.as_deref()
    }

    /// A freshly initialised (untrained) network on `device`, on the native backend on the CPU.
    pub fn random(config: &NetConfig, device: &Device) -> Self {
        let device = device.clone().without_autodiff();
        let model = crate::drawing_weights(&device, None, || config.init(&device));
        Self::new(config.clone(), model, &device, Backend::Native)
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
        if let Some(native) = &self.native {
            let mut policy_logits = vec![0.0; batch * POLICY_SIZE];
            let mut wdl = vec![0.0; batch * WDL_SIZE];
            native
                .forward(&planes, batch, &mut policy_logits, &mut wdl)
                .map_err(|e| NetError::BatchShape {
                    field: e.what,
                    expected: e.expected,
                    found: e.found,
                })?;
            return Ok(HostOutput { policy_logits, wdl });
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

/// The error for a GPU device this build has no feature for.
#[cfg(not(all(feature = "cuda", feature = "wgpu")))]
fn needs_feature(name: &str) -> NetError {
    NetError::Device(format!(
        "device `{name}` needs a build with it: cargo build --release -p fanorona --features {name}"
    ))
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
        #[cfg(not(feature = "cuda"))]
        "cuda" => Err(needs_feature(name)),
        #[cfg(not(feature = "wgpu"))]
        "wgpu" => Err(needs_feature(name)),
        other => Err(NetError::Device(format!(
            "unknown device `{other}`; expected cpu, cuda or wgpu"
        ))),
    }
}
