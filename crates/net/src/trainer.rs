//! One optimizer step at a time: the model on an autodiff device plus its optimizer.

use burn::config::Config;
use burn::grad_clipping::GradientClippingConfig;
use burn::module::{Module, ModuleVisitor, Param};
use burn::optim::momentum::MomentumConfig;
use burn::optim::{
    AdamWConfig, GradientsParams, ModuleOptimizer, SgdConfig, decay::WeightDecayConfig,
};
use burn::tensor::{Bool, Device, Tensor, TensorData};

use crate::error::NetError;
use crate::inference::{Backend, InferenceModel};
use crate::loss::{LossConfig, LossReport, compute_loss};
use crate::model::{BOARD_COLS, BOARD_ROWS, FanoronaNet, NetConfig, POLICY_SIZE, WDL_SIZE};

/// Which optimizer updates the weights.
#[derive(Config, Debug, PartialEq)]
pub enum OptimizerConfig {
    /// Stochastic gradient descent with momentum (no dampening), as in AlphaZero and KataGo.
    /// Weight decay is coupled L2: `weight_decay * w` is added to the gradient, which is the
    /// gradient of a `weight_decay / 2 * |w|^2` loss term.
    Sgd {
        /// Momentum factor, typically 0.9.
        momentum: f64,
        /// Use Nesterov momentum.
        nesterov: bool,
    },
    /// AdamW. Weight decay is decoupled: weights shrink by `lr * weight_decay * w` each step,
    /// independently of the adaptive gradient scaling.
    AdamW {
        /// First moment decay, typically 0.9.
        beta1: f32,
        /// Second moment decay, typically 0.999.
        beta2: f32,
        /// Denominator epsilon, typically 1e-8.
        epsilon: f32,
    },
}

/// Everything needed to build a [`Trainer`]; stored in checkpoints.
#[derive(Config, Debug)]
pub struct TrainerConfig {
    /// The network shape.
    pub net: NetConfig,
    /// Optimizer and its hyper-parameters (the learning rate is passed to each step).
    #[config(default = "OptimizerConfig::Sgd { momentum: 0.9, nesterov: false }")]
    pub optimizer: OptimizerConfig,
    /// Weight decay applied by the optimizer to every trained parameter (see
    /// [`OptimizerConfig`] for coupled vs decoupled). 0 disables it.
    #[config(default = 1e-4)]
    pub weight_decay: f64,
    /// Loss term weights.
    #[config(default = "LossConfig::new()")]
    pub loss: LossConfig,
    /// If set, each parameter tensor's gradient is rescaled to at most this L2 norm (burn clips
    /// per tensor, not over the whole model).
    pub grad_clip_norm: Option<f32>,
}

impl TrainerConfig {
    pub(crate) fn build_optimizer(&self) -> ModuleOptimizer {
        let clip = self.grad_clip_norm.map(GradientClippingConfig::Norm);
        match self.optimizer {
            OptimizerConfig::Sgd { momentum, nesterov } => SgdConfig::new()
                .with_momentum(Some(
                    MomentumConfig::new()
                        .with_momentum(momentum)
                        .with_dampening(0.0)
                        .with_nesterov(nesterov),
                ))
                .with_weight_decay(
                    (self.weight_decay > 0.0)
                        .then(|| WeightDecayConfig::new(self.weight_decay as f32)),
                )
                .with_gradient_clipping(clip)
                .init(),
            OptimizerConfig::AdamW {
                beta1,
                beta2,
                epsilon,
            } => AdamWConfig::new()
                .with_beta_1(beta1)
                .with_beta_2(beta2)
                .with_epsilon(epsilon)
                .with_weight_decay(self.weight_decay as f32)
                .with_grad_clipping(clip)
                .init(),
        }
    }
}

/// One training batch as plain host data, laid out row-major by position.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TrainBatch {
    /// Number of positions.
    pub batch_size: usize,
    /// Input planes, `batch_size * input_planes * 5 * 9`.
    pub planes: Vec<f32>,
    /// Legal-action mask, `batch_size * POLICY_SIZE`.
    pub legal: Vec<bool>,
    /// Policy target probabilities, `batch_size * POLICY_SIZE`, summing to 1 over legal actions.
    pub policy: Vec<f32>,
    /// Win/draw/loss target probabilities, `batch_size * 3`.
    pub wdl: Vec<f32>,
}

impl TrainBatch {
    /// Checks that the batch is not empty and every buffer has the length the batch size
    /// implies.
    pub fn check(&self, input_planes: usize) -> Result<(), NetError> {
        let b = self.batch_size;
        if b == 0 {
            return Err(NetError::EmptyBatch);
        }
        let fields = [
            (
                "planes",
                self.planes.len(),
                b * input_planes * BOARD_ROWS * BOARD_COLS,
            ),
            ("legal", self.legal.len(), b * POLICY_SIZE),
            ("policy", self.policy.len(), b * POLICY_SIZE),
            ("wdl", self.wdl.len(), b * WDL_SIZE),
        ];
        for (field, found, expected) in fields {
            if found != expected {
                return Err(NetError::BatchShape {
                    field,
                    expected,
                    found,
                });
            }
        }
        Ok(())
    }

    /// Uploads the batch: (planes, legal, policy target, wdl target).
    fn to_tensors(
        &self,
        input_planes: usize,
        device: &Device,
    ) -> (Tensor<4>, Tensor<2, Bool>, Tensor<2>, Tensor<2>) {
        let b = self.batch_size;
        let planes = Tensor::from_data(
            TensorData::new(
                self.planes.clone(),
                [b, input_planes, BOARD_ROWS, BOARD_COLS],
            ),
            device,
        );
        let legal = Tensor::from_data(
            TensorData::new(self.legal.clone(), [b, POLICY_SIZE]),
            device,
        );
        let policy = Tensor::from_data(
            TensorData::new(self.policy.clone(), [b, POLICY_SIZE]),
            device,
        );
        let wdl = Tensor::from_data(TensorData::new(self.wdl.clone(), [b, WDL_SIZE]), device);
        (planes, legal, policy, wdl)
    }
}

/// The network being trained, its optimizer and step counter.
///
/// The model lives on an autodiff device; [`Trainer::inference_model`] hands out a copy of the
/// weights without autodiff for evaluation and self-play.
pub struct Trainer {
    pub(crate) config: TrainerConfig,
    pub(crate) device: Device,
    /// Always `Some` between calls; taken while the optimizer consumes the model.
    pub(crate) model: Option<FanoronaNet>,
    pub(crate) optimizer: ModuleOptimizer,
    pub(crate) steps: u64,
}

impl std::fmt::Debug for Trainer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Trainer")
            .field("config", &self.config)
            .field("device", &self.device)
            .field("steps", &self.steps)
            .finish_non_exhaustive()
    }
}

impl Trainer {
    /// A trainer with a freshly initialised network on `device` (autodiff is enabled on it).
    pub fn new(config: TrainerConfig, device: &Device) -> Self {
        Self::init(config, device, None)
    }

    /// A trainer whose initial weights are drawn from `seed`: the same seed gives the same
    /// network, whatever else in the process draws random numbers at the same time.
    pub fn seeded(config: TrainerConfig, device: &Device, seed: u64) -> Self {
        Self::init(config, device, Some(seed))
    }

    fn init(config: TrainerConfig, device: &Device, seed: Option<u64>) -> Self {
        let device = device.clone().autodiff();
        let model = crate::drawing_weights(&device, seed, || config.net.init(&device));
        Self::from_model(config, model, &device)
    }

    /// A trainer around a model built on (or loaded onto) the autodiff `device`, with a fresh
    /// optimizer.
    pub(crate) fn from_model(config: TrainerConfig, model: FanoronaNet, device: &Device) -> Self {
        let device = device.clone().autodiff();
        // `fork`, not `to_device`: moving an initialised parameter is a differentiable op whose
        // result is no longer a leaf, so the optimizer would silently skip it. `fork` keeps
        // every parameter a gradient-requiring leaf.
        let model = model.fork(&device);
        let optimizer = config.build_optimizer();
        Self {
            config,
            device,
            model: Some(model),
            optimizer,
            steps: 0,
        }
    }

    /// Runs forward and backward passes on `batch` and applies one optimizer step with
    /// learning rate `lr`.
    ///
    /// Returns the batch's loss figures from before the update. A batch with wrongly sized
    /// buffers is rejected before anything runs; a non-finite loss skips the update (batchnorm
    /// running statistics have still seen the batch) and returns [`NetError::NonFiniteLoss`].
    pub fn train_step(&mut self, batch: &TrainBatch, lr: f64) -> Result<LossReport, NetError> {
        batch.check(self.config.net.input_planes)?;
        let model = self.model.take().expect("model is present between steps");
        let (planes, legal, policy, wdl) =
            batch.to_tensors(self.config.net.input_planes, &self.device);
        let out = model.forward(planes);
        let loss = compute_loss(&self.config.loss, out.policy, legal, policy, out.wdl, wdl);
        if !loss.report.total.is_finite() {
            self.model = Some(model);
            return Err(NetError::NonFiniteLoss(loss.report));
        }
        let grads = GradientsParams::from_grads(loss.total.backward(), &model);
        self.model = Some(self.optimizer.step(lr, model, grads));
        self.steps += 1;
        Ok(loss.report)
    }

    /// Loss figures of `batch` without training: batchnorm uses its running statistics, as in
    /// play. For validation sets.
    pub fn evaluate(&self, batch: &TrainBatch) -> Result<LossReport, NetError> {
        batch.check(self.config.net.input_planes)?;
        let device = self.device.clone().without_autodiff();
        let model = self.model().valid().to_device(&device);
        let (planes, legal, policy, wdl) = batch.to_tensors(self.config.net.input_planes, &device);
        let out = model.forward(planes);
        Ok(compute_loss(&self.config.loss, out.policy, legal, policy, out.wdl, wdl).report)
    }

    /// Optimizer steps taken so far (restored from checkpoints).
    pub fn steps(&self) -> u64 {
        self.steps
    }

    /// The configuration this trainer was built with.
    pub fn config(&self) -> &TrainerConfig {
        &self.config
    }

    /// The autodiff device the model trains on.
    pub fn device(&self) -> &Device {
        &self.device
    }

    /// The model being trained (on the autodiff device, in training mode).
    pub fn model(&self) -> &FanoronaNet {
        self.model.as_ref().expect("model is present between steps")
    }

    /// The current weights for play, on the training hardware without autodiff (evaluated by
    /// `backend` when that is the CPU).
    pub fn inference_model(&self, backend: Backend) -> InferenceModel {
        self.inference_model_on(&self.device.clone().without_autodiff(), backend)
    }

    /// The current weights for play, on `device` (e.g. the CPU while training on a GPU).
    pub fn inference_model_on(&self, device: &Device, backend: Backend) -> InferenceModel {
        InferenceModel::new(
            self.config.net.clone(),
            self.model().clone(),
            device,
            backend,
        )
    }

    /// The L2 term `weight_decay / 2 * sum(w^2)` over trained parameters (batchnorm running
    /// statistics excluded), for logging. With SGD this is exactly the penalty whose gradient
    /// the optimizer adds; with AdamW the decay is decoupled and this is only indicative.
    pub fn l2_penalty(&self) -> f32 {
        let mut visitor = SquaredNorm::default();
        self.model().visit(&mut visitor);
        (self.config.weight_decay / 2.0 * visitor.sum) as f32
    }
}

/// Sums squares of trained float parameters.
#[derive(Default)]
struct SquaredNorm {
    path: Vec<String>,
    sum: f64,
}

impl ModuleVisitor for SquaredNorm {
    fn enter_module(&mut self, name: &str, _container_type: &str) {
        self.path.push(name.to_string());
    }

    fn exit_module(&mut self, _name: &str, _container_type: &str) {
        self.path.pop();
    }

    fn visit_float<const D: usize>(&mut self, param: &Param<Tensor<D>>) {
        let running = self.path.last().is_some_and(|n| n.starts_with("running_"));
        if !running {
            let sq: f32 = param.val().detach().square().sum().into_scalar();
            self.sum += f64::from(sq);
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::bench::random_batch;
    use burn::tensor::activation::softmax;

    pub(crate) fn tiny_net() -> NetConfig {
        NetConfig::new()
            .with_input_planes(4)
            .with_blocks(1)
            .with_channels(8)
            .with_global_pool_every(1)
    }

    /// A random batch whose policy targets are peaked (one or two legal actions carry all the
    /// mass), so a net that memorises the batch drives the loss far below its start.
    pub(crate) fn peaked_batch(cfg: &NetConfig, batch: usize, seed: u64) -> TrainBatch {
        let mut data = random_batch(cfg, batch, seed);
        for (i, (legal, target)) in data
            .legal
            .chunks(POLICY_SIZE)
            .zip(data.policy.chunks_mut(POLICY_SIZE))
            .enumerate()
        {
            target.fill(0.0);
            let legal_moves: Vec<usize> = (0..POLICY_SIZE).filter(|&a| legal[a]).collect();
            let first = legal_moves[(i * 37 + seed as usize) % legal_moves.len()];
            let second = legal_moves[(i * 101 + 3) % legal_moves.len()];
            target[first] += 0.75;
            target[second] += 0.25;
        }
        data
    }

    #[test]
    fn batch_shape_is_checked() {
        let cfg = tiny_net();
        let mut batch = random_batch(&cfg, 3, 1);
        assert!(batch.check(cfg.input_planes).is_ok());
        batch.wdl.pop();
        assert!(matches!(
            TrainBatch::default().check(cfg.input_planes),
            Err(NetError::EmptyBatch)
        ));
        let mut trainer = Trainer::new(TrainerConfig::new(cfg), &Device::flex());
        assert!(matches!(
            trainer.train_step(&batch, 0.01),
            Err(NetError::BatchShape { field: "wdl", .. })
        ));
        assert_eq!(trainer.steps(), 0);
    }

    fn overfits(optimizer: OptimizerConfig, lr: f64) {
        let cfg = tiny_net();
        let device = Device::flex();
        device.seed(3);
        let config = TrainerConfig::new(cfg.clone()).with_optimizer(optimizer);
        let mut trainer = Trainer::new(config, &device);
        let batch = peaked_batch(&cfg, 16, 5);
        let first = trainer.train_step(&batch, lr).unwrap();
        let mut last = first;
        for _ in 0..250 {
            last = trainer.train_step(&batch, lr).unwrap();
        }
        assert_eq!(trainer.steps(), 251);
        assert!(
            last.total < 0.25 * first.total,
            "loss went from {first:?} to {last:?}"
        );
        assert!(last.policy < first.policy && last.value < first.value);
        assert!(last.policy_entropy < first.policy_entropy);
        assert!(trainer.l2_penalty() > 0.0);
        // Inference mode (running batchnorm statistics) has learned the batch too.
        let eval = trainer.evaluate(&batch).unwrap();
        assert!(eval.total < 0.5 * first.total, "{eval:?} vs {first:?}");
    }

    #[test]
    fn a_seeded_trainer_gets_the_same_weights_while_other_threads_draw_weights() {
        let cfg = tiny_net();
        let fingerprint = |seed| {
            Trainer::seeded(TrainerConfig::new(cfg.clone()), &Device::flex(), seed)
                .inference_model(Backend::Native)
                .native_weights()
                .unwrap()
                .fingerprint()
        };
        let alone = fingerprint(11);
        assert_ne!(alone, fingerprint(12), "the seed decides the weights");
        let busy = std::sync::atomic::AtomicBool::new(true);
        // The check comes after the scope: a failed round must not leave the drawers running.
        std::thread::scope(|scope| {
            for _ in 0..2 {
                scope.spawn(|| {
                    while busy.load(std::sync::atomic::Ordering::Relaxed) {
                        let _ = InferenceModel::random(&cfg, &Device::flex());
                    }
                });
            }
            let seen: Vec<u64> = (0..30).map(|_| fingerprint(11)).collect();
            busy.store(false, std::sync::atomic::Ordering::Relaxed);
            seen
        })
        .into_iter()
        .enumerate()
        .for_each(|(round, seen)| assert_eq!(seen, alone, "round {round}"));
    }

    #[test]
    fn tiny_net_overfits_with_sgd() {
        overfits(
            OptimizerConfig::Sgd {
                momentum: 0.9,
                nesterov: false,
            },
            0.05,
        );
    }

    #[test]
    fn tiny_net_overfits_with_adamw() {
        overfits(
            OptimizerConfig::AdamW {
                beta1: 0.9,
                beta2: 0.999,
                epsilon: 1e-8,
            },
            3e-3,
        );
    }

    #[test]
    fn inference_model_matches_evaluate_outputs() {
        let cfg = tiny_net();
        let mut trainer = Trainer::new(TrainerConfig::new(cfg.clone()), &Device::flex());
        let batch = peaked_batch(&cfg, 4, 9);
        trainer.train_step(&batch, 0.01).unwrap();
        let model = trainer.inference_model(Backend::Native);
        let (policy, wdl) = model.forward(&batch.planes, 4);
        assert_eq!(policy.len(), 4 * POLICY_SIZE);
        assert_eq!(wdl.len(), 4 * WDL_SIZE);
        for probs in wdl.chunks(3) {
            assert!((probs.iter().sum::<f32>() - 1.0).abs() < 1e-5);
        }
        // Same positions evaluated one by one give the same answers (batchnorm is frozen).
        let planes_per = cfg.input_len();
        for i in 0..4 {
            let (p1, w1) = model.forward(&batch.planes[i * planes_per..(i + 1) * planes_per], 1);
            let p = &policy[i * POLICY_SIZE..(i + 1) * POLICY_SIZE];
            assert!(p1.iter().zip(p).all(|(a, b)| (a - b).abs() < 1e-4));
            assert!(
                w1.iter()
                    .zip(&wdl[i * 3..i * 3 + 3])
                    .all(|(a, b)| (a - b).abs() < 1e-5)
            );
        }
        assert!(matches!(
            model.try_forward(&batch.planes[1..], 4),
            Err(NetError::BatchShape {
                field: "planes",
                ..
            })
        ));
        assert_eq!(model.forward(&[], 0), (vec![], vec![]));
    }

    #[test]
    fn folded_batchnorm_gives_the_unfolded_outputs() {
        let cfg = tiny_net();
        let mut trainer = Trainer::new(TrainerConfig::new(cfg.clone()), &Device::flex());
        let batch = peaked_batch(&cfg, 8, 5);
        for _ in 0..5 {
            trainer.train_step(&batch, 0.05).unwrap();
        }
        let device = Device::flex();
        let plain = trainer.model().valid().to_device(&device);
        let (planes, _, _, _) = batch.to_tensors(cfg.input_planes, &device);
        let out = plain.forward(planes);
        let want_policy = out.policy.into_data().try_into_vec::<f32>().unwrap();
        let want_wdl = softmax(out.wdl, 1)
            .into_data()
            .try_into_vec::<f32>()
            .unwrap();
        let (policy, wdl) = trainer
            .inference_model(Backend::Native)
            .forward(&batch.planes, 8);
        // Training steps moved the running statistics away from their initial (identity)
        // values, so the folding has real work to do.
        let moved = policy
            .iter()
            .zip(&want_policy)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0f32, f32::max);
        let scale = want_policy.iter().map(|v| v.abs()).fold(0.0f32, f32::max);
        assert!(scale > 0.1, "policy logits {scale}");
        assert!(moved < 1e-4 * scale.max(1.0), "max difference {moved}");
        assert!(wdl.iter().zip(&want_wdl).all(|(a, b)| (a - b).abs() < 1e-5));
    }

    #[test]
    fn inference_model_is_shareable() {
        fn assert_send_sync<T: Send + Sync>() {}
        assert_send_sync::<InferenceModel>();
        assert_send_sync::<Trainer>();
    }
}
