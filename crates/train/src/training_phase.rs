//! The training phase of a generation: optimiser steps on batches drawn from the replay
//! window, losses averaged into TensorBoard and the progress line, a checkpoint every
//! `checkpoints.every_steps` steps.

use std::time::Instant;

use fanorona_mcts::derive_seed;
use fanorona_net::{LossReport, NetError, Trainer};
use rand::SeedableRng;
use rand::rngs::StdRng;

use crate::replay::{ReplayBuffer, window_size};
use crate::run::{Run, RunState, TrainError, TrainingPhase};

/// Losses summed over the steps since the last report.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LossSums {
    /// Total, policy and value loss, policy entropy, value accuracy.
    pub sums: [f64; 5],
    /// Steps summed.
    pub count: u32,
}

impl LossSums {
    /// The TensorBoard tags of the five sums.
    pub const TAGS: [&'static str; 5] = [
        "loss/total",
        "loss/policy",
        "loss/value",
        "train/policy_entropy",
        "train/value_accuracy",
    ];

    /// Adds one step's report.
    pub fn add(&mut self, report: &LossReport) {
        let values = [
            report.total,
            report.policy,
            report.value,
            report.policy_entropy,
            report.value_accuracy,
        ];
        for (s, v) in self.sums.iter_mut().zip(values) {
            *s += f64::from(v);
        }
        self.count += 1;
    }

    /// The mean of sum `i` (0 with nothing summed).
    pub fn mean(&self, i: usize) -> f64 {
        if self.count == 0 {
            0.0
        } else {
            self.sums[i] / f64::from(self.count)
        }
    }
}

/// The random stream of the batch of optimiser step `step`: derived from the seed and the
/// step, so a resumed run draws the same batches.
pub fn batch_rng(seed: u64, step: u64) -> StdRng {
    StdRng::seed_from_u64(derive_seed(seed ^ 0x7A11, step))
}

/// Trains `trainer` until the phase's target steps (or a stop), checkpointing on the way.
pub fn train_phase(
    run: &mut Run,
    trainer: &mut Trainer,
    state: &RunState,
    phase: TrainingPhase,
    replay: &ReplayBuffer,
) -> Result<(), TrainError> {
    let Some((end, window, label)) = start_phase(run, trainer.steps(), state, phase, replay) else {
        return Ok(());
    };
    let started = Instant::now();
    let first = trainer.steps();
    let mut sums = LossSums::default();
    while trainer.steps() < end && !run.stopped() {
        if !train_step(run, trainer, replay, window, &mut sums)? {
            break;
        }
        let now = trainer.steps();
        if sums.count > 0 && (now.is_multiple_of(10) || now == end) {
            let rate = (now - first) as f64 * run.config.training.batch_size as f64 / secs(started);
            report(run, &sums, now, window, rate);
            let message = format!(
                "loss {:.3} (policy {:.3}, value {:.3}), {rate:.0} samples/s",
                sums.mean(0),
                sums.mean(1),
                sums.mean(2)
            );
            run.progress.update(
                &label,
                now - phase.start_steps,
                phase.target_steps,
                &message,
            );
            sums = LossSums::default();
        }
        if now.is_multiple_of(run.config.checkpoints.every_steps) && now < end {
            run.save_network(trainer, state)?;
        }
    }
    Ok(())
}

/// The start of a training phase of either model kind at `steps`: its last step, the window
/// it samples from and its progress label (shown), or `None` when it is already done.
pub fn start_phase(
    run: &mut Run,
    steps: u64,
    state: &RunState,
    phase: TrainingPhase,
    replay: &ReplayBuffer,
) -> Option<(u64, usize, String)> {
    let end = phase.start_steps + phase.target_steps;
    if steps >= end {
        return None;
    }
    let r = &run.config.replay;
    let window = window_size(
        replay.total(),
        r.window_min,
        r.window_max,
        r.window_exponent,
    );
    let label = format!("gen {} training", state.generation);
    run.progress.phase(&label, phase.target_steps);
    Some((end, window, label))
}

fn secs(since: Instant) -> f64 {
    since.elapsed().as_secs_f64().max(1e-9)
}

/// Batches in a row with a non-finite loss before training stops: one bad batch is skipped
/// (another is drawn), a diverged network is not trained on forever.
pub const MAX_NON_FINITE_BATCHES: u32 = 8;

/// One optimiser step on a batch from the window; `false` when there is nothing to train on.
///
/// A batch whose loss is not finite is skipped and another one drawn (the step does not
/// advance, so the batch stream of the step is redrawn with the attempt number); after
/// [`MAX_NON_FINITE_BATCHES`] in a row the network has diverged and training stops with
/// [`TrainError::Diverged`].
fn train_step(
    run: &Run,
    trainer: &mut Trainer,
    replay: &ReplayBuffer,
    window: usize,
    sums: &mut LossSums,
) -> Result<bool, TrainError> {
    let step = trainer.steps();
    for attempt in 0..MAX_NON_FINITE_BATCHES {
        match try_step(run, trainer, replay, window, step, attempt)? {
            Attempt::Nothing => return Ok(false),
            Attempt::Trained(report) => {
                sums.add(&report);
                return Ok(true);
            }
            Attempt::NonFinite(report) => {
                run.log(&format!(
                    "step {step}: non-finite loss {report:?}; batch skipped (attempt {})",
                    attempt + 1
                ))?;
            }
        }
    }
    Err(TrainError::Diverged {
        step,
        batches: MAX_NON_FINITE_BATCHES,
    })
}

enum Attempt {
    Nothing,
    Trained(LossReport),
    NonFinite(LossReport),
}

fn try_step(
    run: &Run,
    trainer: &mut Trainer,
    replay: &ReplayBuffer,
    window: usize,
    step: u64,
    attempt: u32,
) -> Result<Attempt, TrainError> {
    let t = &run.config.training;
    let mut rng = if attempt == 0 {
        batch_rng(run.config.seed, step)
    } else {
        batch_rng(derive_seed(run.config.seed, u64::from(attempt)), step)
    };
    let limit = run.config.rules.no_progress_limit;
    let (batch, bad) = replay.sample_batch(
        &mut rng,
        window,
        t.batch_size,
        t.symmetry_augmentation,
        limit,
        t.search_value_weight,
    );
    if bad > 0 {
        run.log(&format!(
            "step {step}: {bad} samples could not be decoded and were replaced"
        ))?;
    }
    if batch.batch_size == 0 {
        return Ok(Attempt::Nothing);
    }
    match trainer.train_step(&batch, t.learning_rate_at(step)) {
        Ok(report) => Ok(Attempt::Trained(report)),
        Err(NetError::NonFiniteLoss(report)) => Ok(Attempt::NonFinite(report)),
        Err(e) => Err(e.into()),
    }
}

fn report(run: &mut Run, sums: &LossSums, step: u64, window: usize, rate: f64) {
    for (i, tag) in LossSums::TAGS.iter().enumerate() {
        run.metrics.scalar(tag, sums.mean(i), step);
    }
    let lr = run.config.training.learning_rate_at(step.saturating_sub(1));
    run.metrics.scalar("train/learning_rate", lr, step);
    run.metrics
        .scalar("train/window_samples", window as f64, step);
    run.metrics.scalar("train/samples_per_second", rate, step);
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::RngExt;

    #[test]
    fn loss_sums_average_the_reports() {
        let mut sums = LossSums::default();
        assert_eq!(sums.mean(0), 0.0);
        for total in [1.0, 3.0] {
            sums.add(&LossReport {
                total,
                policy: total / 2.0,
                value: 0.5,
                policy_entropy: 2.0,
                value_accuracy: 0.25,
            });
        }
        assert_eq!(sums.count, 2);
        assert_eq!([sums.mean(0), sums.mean(1), sums.mean(2)], [2.0, 1.0, 0.5]);
        assert_eq!([sums.mean(3), sums.mean(4)], [2.0, 0.25]);
    }

    #[test]
    fn batch_streams_repeat_per_step_and_differ_between_steps() {
        let draw = |seed, step| batch_rng(seed, step).random::<u64>();
        assert_eq!(draw(1, 5), draw(1, 5));
        assert_ne!(draw(1, 5), draw(1, 6));
        assert_ne!(draw(1, 5), draw(2, 5));
    }
}
