//! Throughput measurements of inference and training on random data.

use std::time::{Duration, Instant};

use burn::tensor::Device;

use fanorona_engine::{Action, Game, Rules};
use fanorona_mcts::{EvalRequest, Evaluator, GameState};
use fanorona_players::FanoronaState;

use crate::evaluator::NetEvaluator;
use crate::inference::{Backend, InferenceModel};
use crate::model::{NetConfig, POLICY_SIZE, WDL_SIZE};
use crate::trainer::{TrainBatch, Trainer, TrainerConfig};

/// Inference throughput.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BenchResult {
    /// Positions evaluated per second.
    pub evals_per_sec: f64,
    /// Achieved GFLOP/s, from [`NetConfig::flops_per_eval`].
    pub gflops: f64,
    /// Network calls (batches) run in the timed window.
    pub network_calls: usize,
}

/// A small deterministic generator, so benchmarks need no RNG dependency.
fn pseudo_random(n: usize, seed: u64) -> impl Iterator<Item = f32> {
    let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..n).map(move |_| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state >> 40) as f32 / (1u64 << 24) as f32
    })
}

/// A batch of random planes with uniform targets over a random half of the actions.
pub fn random_batch(cfg: &NetConfig, batch: usize, seed: u64) -> TrainBatch {
    let planes = pseudo_random(batch * cfg.input_len(), seed)
        .map(|x| if x < 0.3 { 1.0 } else { 0.0 })
        .collect();
    let mut legal: Vec<bool> = pseudo_random(batch * POLICY_SIZE, seed ^ 1)
        .map(|x| x < 0.5)
        .collect();
    let mut policy = vec![0.0; batch * POLICY_SIZE];
    for (mask, target) in legal
        .chunks_mut(POLICY_SIZE)
        .zip(policy.chunks_mut(POLICY_SIZE))
    {
        // The end-turn action keeps every position with at least one legal move.
        mask[POLICY_SIZE - 1] = true;
        let count = mask.iter().filter(|&&m| m).count() as f32;
        for (m, t) in mask.iter().zip(target.iter_mut()) {
            if *m {
                *t = 1.0 / count;
            }
        }
    }
    let mut wdl = vec![0.0; batch * WDL_SIZE];
    for (i, x) in pseudo_random(batch, seed ^ 2).enumerate() {
        wdl[i * WDL_SIZE + ((x * 3.0) as usize).min(2)] = 1.0;
    }
    TrainBatch {
        batch_size: batch,
        planes,
        legal,
        policy,
        wdl,
    }
}

/// Runs `step` once to warm up, then repeatedly for at least `seconds` (and at least twice);
/// returns (iterations, elapsed).
fn time_loop(seconds: f64, mut step: impl FnMut()) -> (usize, Duration) {
    step();
    let budget = Duration::from_secs_f64(seconds.max(0.0));
    let start = Instant::now();
    let mut iterations = 0;
    while iterations < 2 || start.elapsed() < budget {
        step();
        iterations += 1;
    }
    (iterations, start.elapsed())
}

/// Measures forward-pass throughput of a randomly initialised `cfg` network at `batch`
/// positions per call on the CPU with `backend`, for about `seconds`.
pub fn bench_forward(cfg: &NetConfig, batch: usize, seconds: f64, backend: Backend) -> BenchResult {
    let model = cpu_model(cfg, backend);
    time_forward(&model, cfg, batch, seconds)
}

/// A random `cfg` network on the CPU, evaluated by `backend`.
fn cpu_model(cfg: &NetConfig, backend: Backend) -> InferenceModel {
    let model = InferenceModel::random(cfg, &Device::flex());
    let fallback = model.clone();
    // A network built from a valid config always fits the native path.
    model.with_backend(backend).unwrap_or(fallback)
}

/// [`bench_forward`] on a chosen device (burn on a GPU; the CPU's default backend on the CPU).
pub fn bench_forward_on(
    cfg: &NetConfig,
    batch: usize,
    seconds: f64,
    device: &Device,
) -> BenchResult {
    time_forward(&InferenceModel::random(cfg, device), cfg, batch, seconds)
}

fn time_forward(
    model: &InferenceModel,
    cfg: &NetConfig,
    batch: usize,
    seconds: f64,
) -> BenchResult {
    let planes = random_batch(cfg, batch, 7).planes;
    let (network_calls, elapsed) = time_loop(seconds, || {
        let _ = model.forward(&planes, batch);
    });
    let evals_per_sec = (network_calls * batch) as f64 / elapsed.as_secs_f64();
    BenchResult {
        evals_per_sec,
        gflops: evals_per_sec * cfg.flops_per_eval() / 1e9,
        network_calls,
    }
}

/// Measures training throughput (samples per second, forward + backward + SGD step) of a
/// `cfg` network at `batch` samples per step on the CPU (flex) device, for about `seconds`.
pub fn bench_train(cfg: &NetConfig, batch: usize, seconds: f64) -> f64 {
    bench_train_on(cfg, batch, seconds, &Device::flex())
}

/// [`bench_train`] on a chosen device.
pub fn bench_train_on(cfg: &NetConfig, batch: usize, seconds: f64, device: &Device) -> f64 {
    let mut trainer = Trainer::new(TrainerConfig::new(cfg.clone()), device);
    let data = random_batch(cfg, batch, 11);
    let (steps, elapsed) = time_loop(seconds, || {
        // A tiny learning rate keeps the weights sane however long the loop runs.
        let _ = trainer.train_step(&data, 1e-4);
    });
    (steps * batch) as f64 / elapsed.as_secs_f64()
}

/// Positions from seeded random games (mid-chain ones included), as search states with their
/// legal actions, for benchmarking the full evaluation path.
pub fn sample_states(count: usize, seed: u64) -> Vec<(FanoronaState, Vec<Action>)> {
    let mut rng = pseudo_random(usize::MAX, seed);
    let mut out = Vec::with_capacity(count);
    let mut state = FanoronaState::new(Game::new(Rules::default()));
    while out.len() < count {
        let mut legal = Vec::new();
        state.legal_actions(&mut legal);
        if state.terminal().is_some() || legal.is_empty() {
            state = FanoronaState::new(Game::new(Rules::default()));
            continue;
        }
        out.push((state.clone(), legal.clone()));
        let pick = (rng.next().unwrap_or(0.0) * legal.len() as f32) as usize;
        state.apply(legal[pick.min(legal.len() - 1)]);
    }
    out
}

/// Measures the whole evaluation the search sees ([`NetEvaluator`]: encoding, forward pass,
/// masking the illegal actions and the softmax over the legal ones) at `batch` positions per
/// call, on positions from real games. Fails if the evaluator does (before any timing).
pub fn bench_evaluator(
    cfg: &NetConfig,
    batch: usize,
    seconds: f64,
    backend: Backend,
) -> Result<BenchResult, fanorona_mcts::EvalError> {
    let evaluator = NetEvaluator::new(cpu_model(cfg, backend));
    let states = sample_states(batch, 3);
    let requests: Vec<EvalRequest<'_, FanoronaState>> = states
        .iter()
        .map(|(s, l)| EvalRequest { state: s, legal: l })
        .collect();
    let mut out = Vec::new();
    evaluator.evaluate(&requests, &mut out)?;
    let mut failure = None;
    let (network_calls, elapsed) = time_loop(seconds, || {
        if let Err(e) = evaluator.evaluate(&requests, &mut out) {
            failure.get_or_insert(e);
        }
    });
    if let Some(e) = failure {
        return Err(e);
    }
    let evals_per_sec = (network_calls * batch) as f64 / elapsed.as_secs_f64();
    Ok(BenchResult {
        evals_per_sec,
        gflops: evals_per_sec * cfg.flops_per_eval() / 1e9,
        network_calls,
    })
}
