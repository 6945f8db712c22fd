//! The learned evaluation in burn: its model, the training step and its checkpoints.
//!
//! The model is [`fanorona_eval`]'s network in floats: `x` the inputs of a position from the
//! mover's view (the 90 stones, or the 2,268 line contents of which 84 are on: the first layer
//! is then a sum of the rows of `W1` picked by the inputs that are on, not a product with a
//! mostly-zero matrix), `h1 = c(x W1 + b1)`, `h2 = c(h1 W2 + b2)`, `y = h2 W3 + b3` in stones,
//! `c` clipping to `[0, 1]`. Every parameter is clipped to the bounds of the integer path in the
//! forward pass itself, so what is trained is exactly what the search runs (the exported
//! weights are the clipped ones).
//!
//! **Loss.** The search's view and the game's: the prediction is read as a winning chance
//! `sigmoid(100 y / scale)`, the target is a chance too (the search score through the same
//! sigmoid blended with the game's result, see the training loop), and the loss is their
//! squared difference, as in the trainers of Stockfish's NNUE.
//!
//! **Checkpoints** use the training checkpoint container (`FNRNCKPT`) with the sections
//! `kind` (`eval`), `counters`, `eval` (the payload of an evaluation file: what `eval=` reads
//! directly), `optimizer` and `extra` (the training loop's state).

use std::path::Path;

use burn::module::{Module, Param};
use burn::nn::{Linear, LinearConfig};
use burn::optim::{AdamWConfig, GradientsParams, ModuleOptimizer};
use burn::store::ModuleRecord;
use burn::tensor::activation::sigmoid;
use burn::tensor::{Bytes, Device, Int, Tensor, TensorData};
use fanorona_data::container::{
    self, CHECKPOINT_MAGIC, CHECKPOINT_VERSION, SectionWriter, Sections,
};
use fanorona_engine::Position;
use fanorona_eval::features::MAX_ACTIVE;
use fanorona_eval::{
    CENTISTONES_PER_UNIT, EvalMeta, EvalWeights, Inputs, L1_BIAS_MAX, L2_BIAS_MAX, L2_WEIGHT_MAX,
    Shape,
};

use crate::error::NetError;

/// The evaluation network in burn.
#[derive(Module, Debug)]
pub struct EvalModel {
    l1: Linear,
    l2: Linear,
    l3: Linear,
}

fn clip2(p: &Param<Tensor<2>>, max: f32) -> Tensor<2> {
    p.val().clamp(-max, max)
}

fn clip1(p: &Option<Param<Tensor<1>>>, max: f32) -> Option<Tensor<1>> {
    p.as_ref().map(|b| b.val().clamp(-max, max))
}

fn layer(x: Tensor<2>, w: Tensor<2>, b: Option<Tensor<1>>) -> Tensor<2> {
    let y = x.matmul(w);
    match b {
        Some(b) => y + b.unsqueeze(),
        None => y,
    }
}

fn host(t: Tensor<2>) -> Vec<f32> {
    t.into_data().try_into_vec::<f32>().unwrap_or_default()
}

fn host1(t: Option<Tensor<1>>, n: usize) -> Vec<f32> {
    t.map(|t| t.into_data().try_into_vec::<f32>().unwrap_or_default())
        .unwrap_or_else(|| vec![0.0; n])
}

impl EvalModel {
    /// A freshly initialised model of `shape` on `device` (uniform in `±1/sqrt(inputs)`).
    pub fn new(shape: Shape, device: &Device) -> EvalModel {
        EvalModel {
            l1: LinearConfig::new(shape.inputs.len(), shape.hidden1).init(device),
            l2: LinearConfig::new(shape.hidden1, shape.hidden2).init(device),
            l3: LinearConfig::new(shape.hidden2, 1).init(device),
        }
    }

    /// The model holding `weights`, on `device`.
    pub fn from_weights(weights: &EvalWeights, device: &Device) -> EvalModel {
        let (h1, h2) = (weights.shape.hidden1, weights.shape.hidden2);
        let mat = |v: Vec<f32>, rows: usize, cols: usize| {
            Param::from_data(TensorData::new(v, [rows, cols]), device)
        };
        let vec1 = |v: Vec<f32>| {
            Some(Param::from_data(
                TensorData::new(v.clone(), [v.len()]),
                device,
            ))
        };
        // W2 is stored output-major; burn's linear weights are [inputs, outputs].
        let mut w2 = vec![0.0; h1 * h2];
        for j in 0..h2 {
            for h in 0..h1 {
                w2[h * h2 + j] = weights.l2[j * h1 + h];
            }
        }
        EvalModel {
            l1: Linear {
                weight: mat(weights.l1.clone(), weights.shape.inputs.len(), h1),
                bias: vec1(weights.b1.clone()),
            },
            l2: Linear {
                weight: mat(w2, h1, h2),
                bias: vec1(weights.b2.clone()),
            },
            l3: Linear {
                weight: mat(weights.l3.clone(), h2, 1),
                bias: vec1(vec![weights.b3]),
            },
        }
    }

    /// The shape.
    pub fn shape(&self) -> Shape {
        let [inputs, hidden1] = self.l1.weight.val().dims();
        let [_, hidden2] = self.l2.weight.val().dims();
        Shape {
            // The model is only made from a shape, whose input set has this many inputs.
            inputs: Inputs::from_len(inputs).unwrap_or_default(),
            hidden1,
            hidden2,
        }
    }

    /// The evaluation of a batch of positions' inputs, in stones (`[batch, 1]`).
    pub fn forward(&self, x: EvalInput) -> Tensor<2> {
        let w1 = clip2(&self.l1.weight, self.shape().inputs.l1_weight_max());
        let b1 = clip1(&self.l1.bias, L1_BIAS_MAX);
        let h1 = match x {
            EvalInput::Dense(x) => layer(x, w1, b1),
            EvalInput::Active { on, per_row } => {
                let [rows, hidden] = [on.dims()[0] / per_row.max(1), w1.dims()[1]];
                let sum = w1
                    .select(0, on)
                    .reshape([rows, per_row, hidden])
                    .sum_dim(1)
                    .reshape([rows, hidden]);
                match b1 {
                    Some(b) => sum + b.unsqueeze(),
                    None => sum,
                }
            }
        }
        .clamp(0.0, 1.0);
        let h2 = layer(
            h1,
            clip2(&self.l2.weight, L2_WEIGHT_MAX),
            clip1(&self.l2.bias, L2_BIAS_MAX),
        )
        .clamp(0.0, 1.0);
        layer(
            h2,
            clip2(&self.l3.weight, L2_WEIGHT_MAX),
            clip1(&self.l3.bias, L2_BIAS_MAX),
        )
    }

    /// The weights (clipped as the forward pass uses them), for the integer path and files.
    pub fn to_weights(&self) -> EvalWeights {
        let shape = self.shape();
        let (h1, h2) = (shape.hidden1, shape.hidden2);
        let w2 = host(clip2(&self.l2.weight, L2_WEIGHT_MAX));
        let mut l2 = vec![0.0; h1 * h2];
        for h in 0..h1 {
            for j in 0..h2 {
                l2[j * h1 + h] = w2[h * h2 + j];
            }
        }
        EvalWeights {
            shape,
            l1: host(clip2(&self.l1.weight, shape.inputs.l1_weight_max())),
            b1: host1(clip1(&self.l1.bias, L1_BIAS_MAX), h1),
            l2,
            b2: host1(clip1(&self.l2.bias, L2_BIAS_MAX), h2),
            l3: host(clip2(&self.l3.weight, L2_WEIGHT_MAX)),
            b3: host1(clip1(&self.l3.bias, L2_BIAS_MAX), 1)[0],
        }
    }
}

/// A batch of positions' inputs as the model reads them.
#[derive(Clone, Debug)]
pub enum EvalInput {
    /// `[batch, inputs]` 0/1 values (the stones set).
    Dense(Tensor<2>),
    /// The indices of the inputs that are on, `per_row` for each position one after another
    /// (the lines set, where every position has the same number on).
    Active {
        /// `batch * per_row` indices.
        on: Tensor<1, Int>,
        /// Inputs on in each position.
        per_row: usize,
    },
}

/// One batch of training positions: their inputs and target winning chances.
#[derive(Clone, Debug, Default)]
pub struct EvalBatch {
    /// The input set the positions are read with.
    pub inputs: Inputs,
    /// The inputs on in each position: `inputs.max_active()` per position, the unused ones
    /// [`EvalBatch::NONE`].
    pub active: Vec<u16>,
    /// `batch` targets in `[0, 1]`: the winning chance, or its lower end where
    /// [`EvalBatch::upper`] gives a range.
    pub targets: Vec<f32>,
    /// The upper ends of the targets' ranges (a search's bound allows any chance from
    /// `targets[i]` to `upper[i]` without loss); empty: every target is exact.
    pub upper: Vec<f32>,
}

impl EvalBatch {
    /// An unused slot of [`EvalBatch::active`].
    pub const NONE: u16 = u16::MAX;

    /// An empty batch of positions read with `inputs`.
    pub fn new(inputs: Inputs) -> EvalBatch {
        EvalBatch {
            inputs,
            ..EvalBatch::default()
        }
    }

    /// Adds `pos` with the target range `low..=high` (`upper` is kept only while every
    /// position has one: pass `None` for exact targets throughout).
    pub fn push(&mut self, pos: &Position, low: f32, high: Option<f32>) {
        let mut on = [Self::NONE; MAX_ACTIVE];
        self.inputs.active(pos, &mut on);
        self.active
            .extend_from_slice(&on[..self.inputs.max_active()]);
        self.targets.push(low);
        if let Some(high) = high {
            self.upper.push(high);
        }
    }

    /// The inputs as the model reads them, on `device`.
    fn input(&self, device: &Device) -> Result<EvalInput, NetError> {
        let (n, per_row) = (self.len(), self.inputs.max_active());
        if n == 0 || self.active.len() != n * per_row {
            return Err(NetError::BatchShape {
                field: "active",
                expected: n * per_row,
                found: self.active.len(),
            });
        }
        let width = self.inputs.len();
        if let Some(bad) = self
            .active
            .iter()
            .find(|&&f| f != Self::NONE && usize::from(f) >= width)
        {
            return Err(NetError::Device(format!(
                "input {bad} of a batch read with {} inputs",
                width
            )));
        }
        Ok(match self.inputs {
            Inputs::Stones => {
                let mut dense = vec![0.0f32; n * width];
                for (row, on) in dense
                    .chunks_exact_mut(width)
                    .zip(self.active.chunks_exact(per_row))
                {
                    for &f in on.iter().filter(|&&f| f != Self::NONE) {
                        row[usize::from(f)] = 1.0;
                    }
                }
                EvalInput::Dense(Tensor::from_data(
                    TensorData::new(dense, [n, width]),
                    device,
                ))
            }
            Inputs::Lines => {
                if self.active.contains(&Self::NONE) {
                    return Err(NetError::Device(
                        "a position of the lines set with fewer than 84 inputs on".into(),
                    ));
                }
                let on: Vec<i64> = self.active.iter().map(|&f| i64::from(f)).collect();
                EvalInput::Active {
                    on: Tensor::from_data(TensorData::new(on, [n * per_row]), device),
                    per_row,
                }
            }
        })
    }

    /// Positions in the batch.
    pub fn len(&self) -> usize {
        self.targets.len()
    }

    /// No positions.
    pub fn is_empty(&self) -> bool {
        self.targets.is_empty()
    }
}

/// The mean squared distance of the predicted chances `p` (`[n, 1]`) from the batch's target
/// ranges: from `targets[i]` to `upper[i]`, nothing inside (a bound's loss, as in TreeStrap),
/// the squared difference for an exact target.
fn range_loss(p: Tensor<2>, batch: &EvalBatch, device: &Device) -> Tensor<1> {
    let n = batch.len();
    let low = Tensor::<2>::from_data(TensorData::new(batch.targets.clone(), [n, 1]), device);
    if batch.upper.len() != n {
        return (p - low).square().mean();
    }
    let high = Tensor::<2>::from_data(TensorData::new(batch.upper.clone(), [n, 1]), device);
    let below = (low - p.clone()).clamp_min(0.0);
    let above = (p - high).clamp_min(0.0);
    (below + above).square().mean()
}

/// Settings of the evaluation's training.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EvalTrainerConfig {
    /// The network's shape.
    pub shape: Shape,
    /// Centi-stones read as one unit of the sigmoid that turns a score into a winning chance.
    pub score_scale: f32,
    /// AdamW's decoupled weight decay.
    pub weight_decay: f32,
}

/// The evaluation being trained, its optimizer and step counter.
pub struct EvalTrainer {
    config: EvalTrainerConfig,
    device: Device,
    model: Option<EvalModel>,
    optimizer: ModuleOptimizer,
    steps: u64,
}

impl std::fmt::Debug for EvalTrainer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EvalTrainer")
            .field("config", &self.config)
            .field("steps", &self.steps)
            .finish_non_exhaustive()
    }
}

fn optimizer(config: &EvalTrainerConfig) -> ModuleOptimizer {
    AdamWConfig::new()
        .with_weight_decay(config.weight_decay)
        .init()
}

impl EvalTrainer {
    /// A trainer with a freshly initialised model on `device` (autodiff is enabled on it).
    pub fn new(config: EvalTrainerConfig, device: &Device) -> EvalTrainer {
        Self::init(config, device, None)
    }

    /// A trainer whose initial weights are drawn from `seed`: the same seed gives the same
    /// model, whatever else in the process draws random numbers at the same time.
    pub fn seeded(config: EvalTrainerConfig, device: &Device, seed: u64) -> EvalTrainer {
        Self::init(config, device, Some(seed))
    }

    fn init(config: EvalTrainerConfig, device: &Device, seed: Option<u64>) -> EvalTrainer {
        let device = device.clone().autodiff();
        let model = crate::drawing_weights(&device, seed, || EvalModel::new(config.shape, &device));
        Self::around(config, model, &device)
    }

    fn around(config: EvalTrainerConfig, model: EvalModel, device: &Device) -> EvalTrainer {
        let device = device.clone().autodiff();
        // `fork` keeps every parameter a gradient-requiring leaf on the autodiff device.
        let model = model.fork(&device);
        EvalTrainer {
            optimizer: optimizer(&config),
            config,
            device,
            model: Some(model),
            steps: 0,
        }
    }

    /// The settings.
    pub fn config(&self) -> &EvalTrainerConfig {
        &self.config
    }

    /// Optimizer steps so far.
    pub fn steps(&self) -> u64 {
        self.steps
    }

    fn model(&self) -> &EvalModel {
        self.model
            .as_ref()
            .expect("the model is present between steps")
    }

    /// The current weights, as the search runs them.
    pub fn weights(&self) -> EvalWeights {
        self.model().to_weights()
    }

    /// One optimizer step on `batch` with learning rate `lr`; returns the loss before it.
    pub fn train_step(&mut self, batch: &EvalBatch, lr: f64) -> Result<f32, NetError> {
        let n = batch.len();
        if batch.inputs != self.config.shape.inputs {
            return Err(NetError::Device(format!(
                "a batch read with the {:?} inputs for an evaluation of the {:?} inputs",
                batch.inputs, self.config.shape.inputs
            )));
        }
        let x = batch.input(&self.device)?;
        if !batch.upper.is_empty() && batch.upper.len() != n {
            return Err(NetError::BatchShape {
                field: "upper",
                expected: n,
                found: batch.upper.len(),
            });
        }
        let model = self
            .model
            .take()
            .expect("the model is present between steps");
        let y = model.forward(x);
        let p = sigmoid(y.mul_scalar(CENTISTONES_PER_UNIT / self.config.score_scale));
        let loss = range_loss(p, batch, &self.device);
        let value: f32 = loss.clone().into_scalar();
        if !value.is_finite() {
            self.model = Some(model);
            return Err(NetError::Device(format!(
                "non-finite evaluation loss {value}"
            )));
        }
        let grads = GradientsParams::from_grads(loss.backward(), &model);
        self.model = Some(self.optimizer.step(lr, model, grads));
        self.steps += 1;
        Ok(value)
    }

    /// The loss of `batch` without training (an `upper` of another length than the targets
    /// counts as none; NaN for a batch whose inputs do not fit it, which `train_step` refuses).
    pub fn loss(&self, batch: &EvalBatch) -> f32 {
        let n = batch.len();
        if n == 0 {
            return 0.0;
        }
        let device = self.device.clone().without_autodiff();
        let model = self.model().valid().to_device(&device);
        let Ok(x) = batch.input(&device) else {
            return f32::NAN;
        };
        let p = sigmoid(
            model
                .forward(x)
                .mul_scalar(CENTISTONES_PER_UNIT / self.config.score_scale),
        );
        range_loss(p, batch, &device).into_scalar()
    }

    /// Writes a checkpoint (atomically); `extra` is kept for the training loop.
    pub fn save_checkpoint(
        &self,
        path: &Path,
        extra: &[u8],
        meta: &EvalMeta,
    ) -> Result<(), NetError> {
        let optimizer = self
            .optimizer
            .into_bytes()
            .map_err(|e| record(path, "optimizer state", e))?;
        let counters = serde_json::to_vec(&Counters {
            steps: self.steps,
            score_scale: self.config.score_scale,
            weight_decay: self.config.weight_decay,
        })
        .unwrap_or_default();
        // The module record keeps the parameters' ids, which key the optimizer's state.
        let record = self
            .model()
            .clone()
            .into_record()
            .into_bytes()
            .map_err(|e| record(path, "weights", e))?;
        let payload = SectionWriter::new()
            .section("kind", b"eval")
            .section("counters", &counters)
            .section("eval", &self.weights().payload(meta))
            .section("record", &record)
            .section("optimizer", &optimizer)
            .section("extra", extra)
            .finish();
        container::write_atomic(path, &CHECKPOINT_MAGIC, CHECKPOINT_VERSION, &payload)?;
        Ok(())
    }

    /// Restores a trainer from a checkpoint onto `device` and returns it with the checkpoint's
    /// `extra` bytes.
    pub fn load_checkpoint(
        path: &Path,
        device: &Device,
    ) -> Result<(EvalTrainer, Vec<u8>), NetError> {
        let payload = container::read(path, &CHECKPOINT_MAGIC, CHECKPOINT_VERSION)?;
        let sections = Sections::parse(path, &payload)?;
        if sections.get("kind") != Some(b"eval".as_slice()) {
            return Err(record(
                path,
                "checkpoint",
                "a checkpoint of a network run, not of an evaluation run",
            ));
        }
        let counters: Counters = serde_json::from_slice(sections.require("counters")?)
            .map_err(|e| record(path, "counters", e))?;
        let (weights, _) = EvalWeights::decode(path, sections.require("eval")?)
            .map_err(|e| record(path, "evaluation", e))?;
        let config = EvalTrainerConfig {
            shape: weights.shape,
            score_scale: counters.score_scale,
            weight_decay: counters.weight_decay,
        };
        let device = device.clone().autodiff();
        let saved =
            ModuleRecord::from_bytes(Bytes::from_bytes_vec(sections.require("record")?.to_vec()))
                .map_err(|e| record(path, "weights", e))?;
        let model = EvalModel::new(weights.shape, &device)
            .try_load_record(saved)
            .map_err(|e| record(path, "weights", e))?;
        if model.to_weights() != weights {
            return Err(record(
                path,
                "weights",
                "the record and the evaluation disagree",
            ));
        }
        let mut trainer = Self::around(config, model, &device);
        trainer.optimizer = trainer
            .optimizer
            .clone()
            .from_bytes(Bytes::from_bytes_vec(
                sections.require("optimizer")?.to_vec(),
            ))
            .map_err(|e| record(path, "optimizer state", e))?;
        trainer.steps = counters.steps;
        Ok((trainer, sections.require("extra")?.to_vec()))
    }
}

#[derive(serde::Serialize, serde::Deserialize)]
struct Counters {
    steps: u64,
    score_scale: f32,
    weight_decay: f32,
}

fn record(path: &Path, what: &'static str, e: impl std::fmt::Display) -> NetError {
    NetError::Record {
        path: path.to_path_buf(),
        what,
        detail: e.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fanorona_eval::EvalNet;

    fn positions() -> Vec<Position> {
        let mut out = vec![Position::start()];
        let mut pos = Position::start();
        for i in 0..60 {
            let turns = pos.legal_turns();
            if turns.is_empty() {
                break;
            }
            pos = pos.try_play_turn(&turns[i * 7 % turns.len()]).unwrap();
            out.push(pos);
        }
        out
    }

    /// A batch of `positions` read with `inputs`, with these targets.
    fn batch_of(
        inputs: Inputs,
        positions: &[Position],
        targets: &[f32],
        upper: &[f32],
    ) -> EvalBatch {
        let mut batch = EvalBatch::new(inputs);
        for (i, (pos, &t)) in positions.iter().zip(targets).enumerate() {
            batch.push(pos, t, upper.get(i).copied());
        }
        batch
    }

    #[test]
    fn burn_the_float_reference_and_the_integer_path_agree() {
        let device = Device::flex();
        for inputs in Inputs::ALL {
            let model = EvalModel::new(
                Shape {
                    inputs,
                    hidden1: 64,
                    hidden2: 16,
                },
                &device,
            );
            let mut weights = model.to_weights();
            // Fresh weights are small: spread the first layer to its bound so that the
            // hidden units' clipping is exercised too.
            let max = inputs.l1_weight_max();
            for (i, w) in weights.l1.iter_mut().enumerate() {
                *w = (*w * 8.0 + ((i * 37 % 11) as f32 - 5.0) * 0.02).clamp(-max, max);
            }
            weights.check().unwrap();
            let model = EvalModel::from_weights(&weights, &device);
            assert_eq!(model.shape().inputs, inputs);
            let net = EvalNet::new(weights.clone()).unwrap();
            let positions = positions();
            let batch = batch_of(inputs, &positions, &vec![0.5; positions.len()], &[]);
            let burn = host(model.forward(batch.input(&device).unwrap()));
            for (pos, y) in positions.iter().zip(&burn) {
                let cs = y * CENTISTONES_PER_UNIT;
                let reference = weights.evaluate_f32(pos);
                assert!(
                    (cs - reference).abs() < 0.01,
                    "{inputs:?} {pos}: {cs} {reference}"
                );
                assert!(
                    (net.evaluate(pos) as f32 - cs).abs() <= 3.0,
                    "{inputs:?} {pos}: {} {cs}",
                    net.evaluate(pos)
                );
            }
            // The weights round-trip through the model.
            let back = EvalModel::from_weights(&weights, &device).to_weights();
            assert_eq!(back, weights);
        }
    }

    /// A 32x8 evaluation's trainer from random weights.
    fn small_trainer(device: &Device) -> EvalTrainer {
        trainer_of(device, Inputs::Stones)
    }

    fn trainer_of(device: &Device, inputs: Inputs) -> EvalTrainer {
        let config = EvalTrainerConfig {
            shape: Shape {
                inputs,
                hidden1: 32,
                hidden2: 8,
            },
            score_scale: 200.0,
            weight_decay: 0.0,
        };
        EvalTrainer::new(config, device)
    }

    #[test]
    fn a_bound_costs_nothing_on_its_side_and_training_moves_predictions_onto_it() {
        let device = Device::flex();
        let mut trainer = small_trainer(&device);
        let positions = positions();
        let n = positions.len();
        let predicted: Vec<f32> = positions
            .iter()
            .map(|p| 1.0 / (1.0 + (-trainer.weights().evaluate_f32(p) / 200.0).exp()))
            .collect();
        let batch = |targets: Vec<f32>, upper: Vec<f32>| {
            let mut b = batch_of(Inputs::Stones, &positions, &targets, &upper);
            // Ranges of another length than the targets are kept as given.
            b.upper = upper;
            b
        };
        // Ranges that hold the predictions cost nothing; an exact target at them neither.
        let around = batch(
            predicted.iter().map(|p| p - 0.01).collect(),
            predicted.iter().map(|p| p + 0.01).collect(),
        );
        assert!(trainer.loss(&around) < 1e-9, "{}", trainer.loss(&around));
        let exact = batch(predicted.clone(), Vec::new());
        assert!(trainer.loss(&exact) < 1e-9);
        // "At least 0.9" everywhere: the loss is the squared distance below it, and training
        // lifts every prediction towards it.
        let at_least = batch(vec![0.9; n], vec![1.0; n]);
        let expected: f32 = predicted
            .iter()
            .map(|p| (0.9 - p).max(0.0).powi(2))
            .sum::<f32>()
            / n as f32;
        let first = trainer.loss(&at_least);
        assert!((first - expected).abs() < 1e-4, "{first} {expected}");
        for _ in 0..300 {
            trainer.train_step(&at_least, 0.01).unwrap();
        }
        assert!(trainer.loss(&at_least) < first / 2.0);
        // ... and "at most 0.1" the other way (from fresh weights, not from the saturated ones).
        let mut trainer = small_trainer(&device);
        let at_most = batch(vec![0.0; n], vec![0.1; n]);
        let before = trainer.loss(&at_most);
        for _ in 0..300 {
            trainer.train_step(&at_most, 0.01).unwrap();
        }
        assert!(trainer.loss(&at_most) < before / 2.0);
        // A range of another length is refused by name.
        let err = trainer
            .train_step(&batch(vec![0.5; n], vec![0.5; 3]), 0.01)
            .unwrap_err();
        assert!(err.to_string().contains("upper"), "{err}");
    }

    #[test]
    fn training_learns_material_and_checkpoints_resume_exactly() {
        for inputs in Inputs::ALL {
            learns_material_and_resumes(inputs);
        }
    }

    fn learns_material_and_resumes(inputs: Inputs) {
        let device = Device::flex();
        let mut trainer = trainer_of(&device, inputs);
        let positions = positions();
        // Target: the material balance as a winning chance.
        let targets: Vec<f32> = positions
            .iter()
            .map(|p| {
                let us = p.side_to_move();
                let m = p.stones(us).count() as f32 - p.stones(!us).count() as f32;
                1.0 / (1.0 + (-(100.0 * m) / 200.0).exp())
            })
            .collect();
        let batch = batch_of(inputs, &positions, &targets, &[]);
        let first = trainer.loss(&batch);
        for _ in 0..300 {
            trainer.train_step(&batch, 0.01).unwrap();
        }
        let last = trainer.loss(&batch);
        assert!(last < first / 4.0, "{inputs:?}: loss {first} -> {last}");
        // A batch read with the other inputs is refused.
        let other = Inputs::ALL.into_iter().find(|&i| i != inputs).unwrap();
        let err = trainer
            .train_step(
                &batch_of(other, &positions, &vec![0.5; positions.len()], &[]),
                0.01,
            )
            .unwrap_err();
        assert!(err.to_string().contains("inputs"), "{err}");
        let dir = fanorona_testkit::TempDir::new("eval-ckpt");
        let path = dir.join("c.ckpt");
        trainer
            .save_checkpoint(&path, b"state", &EvalMeta::default())
            .unwrap();
        let saved = trainer.weights();
        let (mut back, extra) = EvalTrainer::load_checkpoint(&path, &device).unwrap();
        assert_eq!(extra, b"state");
        assert_eq!(back.steps(), 300);
        assert_eq!(back.weights(), trainer.weights());
        // Training goes on from the checkpoint as it would have (the optimizer's moments are
        // restored: a fresh optimizer would move the weights by far more than this).
        let a = trainer.train_step(&batch, 0.01).unwrap();
        let b = back.train_step(&batch, 0.01).unwrap();
        assert_eq!(a, b);
        let (x, y) = (back.weights().to_vec(), trainer.weights().to_vec());
        let largest = x
            .iter()
            .zip(&y)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f32::max);
        assert!(largest < 1e-5, "{largest}");
        // `eval=` reads the checkpoint directly.
        let (w, _) = EvalWeights::load_any(&path).unwrap();
        assert_eq!(w, saved);
    }
}
