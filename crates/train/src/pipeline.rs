//! The training loop: generations of self-play, training on the replay window, checkpoints and
//! ratings, all resumable from the run directory.
//!
//! A generation is:
//! 1. **self-play**: `selfplay.games_per_generation` games with the current network, written
//!    as shards every few games (on resume, the games already on disk count);
//! 2. **ingest**: every new shard in `selfplay/`, this process's and any other's;
//! 3. **training**: `training.steps_per_generation` optimiser steps (or as many as make each
//!    new sample used `replay.sample_reuse` times), batches drawn uniformly from the window,
//!    a checkpoint every `checkpoints.every_steps` steps;
//! 4. a checkpoint marking the generation done, and every `evaluation.every_generations`
//!    generations a rating of the new network.
//!
//! The checkpoint carries the model, the optimiser and a [`RunState`] (generation, phase,
//! rated checkpoints). Random streams are derived from the seed and the counters, not stored,
//! so a resumed run draws the same batches it would have drawn.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use fanorona_engine::Rules;
use fanorona_net::{
    Device, InferenceModel, InferenceService, NetConfig, NetError, NetEvaluator, OptimizerConfig,
    Trainer, TrainerConfig, device_by_name,
};
use fanorona_search::driver::game_seed;
use fanorona_search::players::PlayerSpec;
use rand::SeedableRng;
use rand::rngs::StdRng;
use serde::{Deserialize, Serialize};

use crate::config::{OptimizerKind, TrainConfig};
use crate::eval::{Opponent, Rating, append_ratings, rate};
use crate::metrics::{Metrics, Progress};
use crate::replay::{GameEnd, GameSummary, ReplayBuffer, Shard, window_size, write_shard};
use crate::rundir::{RunDir, RunDirError};
use crate::selfplay::{FinishedGame, SelfPlayCounters, SelfPlaySettings, play};

/// Errors that stop a training run.
#[derive(Debug, thiserror::Error)]
pub enum TrainError {
    /// The run directory or config.
    #[error(transparent)]
    RunDir(#[from] RunDirError),
    /// The network (device, checkpoint files).
    #[error(transparent)]
    Net(#[from] NetError),
    /// A shard could not be written.
    #[error(transparent)]
    Replay(#[from] crate::replay::ReplayError),
    /// A checkpoint's run state could not be read.
    #[error("{path}: bad run state in checkpoint: {message}")]
    State {
        /// The checkpoint.
        path: PathBuf,
        /// What went wrong.
        message: String,
    },
}

/// Where a generation stands, stored in every checkpoint.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RunState {
    /// Generations completed.
    pub generation: u64,
    /// Set once the current generation's self-play is done: its training target.
    pub training: Option<TrainingPhase>,
    /// Steps of every rated checkpoint (kept when pruning).
    pub rated: Vec<u64>,
    /// Steps of the newest rated checkpoint.
    pub last_rated: Option<u64>,
    /// With gating: steps of the checkpoint self-play uses.
    pub best: Option<u64>,
    /// Self-play games ingested.
    pub games_seen: u64,
}

/// The training part of a generation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TrainingPhase {
    /// Optimiser steps when it started.
    pub start_steps: u64,
    /// Steps to take.
    pub target_steps: u64,
}

/// How to run.
#[derive(Clone, Debug)]
pub struct TrainOptions {
    /// The run directory.
    pub run_dir: PathBuf,
    /// Stop after this many generations in this invocation (`None`: until interrupted).
    pub generations: Option<u64>,
    /// Draw a progress bar (stderr is a terminal).
    pub interactive: bool,
    /// Set to stop cleanly (Ctrl-C): the current step finishes and a checkpoint is written.
    pub stop: Arc<AtomicBool>,
}

/// What a run did, for the command's last words.
#[derive(Clone, Debug, Default)]
pub struct TrainSummary {
    /// Generation count at the end.
    pub generation: u64,
    /// Optimiser steps at the end.
    pub steps: u64,
    /// Whether the run was resumed from a checkpoint.
    pub resumed: bool,
    /// The newest checkpoint.
    pub checkpoint: Option<PathBuf>,
}

fn trainer_config(config: &TrainConfig) -> TrainerConfig {
    let net = NetConfig::new()
        .with_blocks(config.model.blocks)
        .with_channels(config.model.channels)
        .with_global_pool_every(config.model.global_pool_every);
    let optimizer = match config.training.optimizer {
        OptimizerKind::Sgd => OptimizerConfig::Sgd {
            momentum: config.training.momentum,
            nesterov: false,
        },
        OptimizerKind::Adamw => OptimizerConfig::AdamW {
            beta1: 0.9,
            beta2: 0.999,
            epsilon: 1e-8,
        },
    };
    TrainerConfig::new(net)
        .with_optimizer(optimizer)
        .with_weight_decay(config.training.weight_decay)
}

fn selfplay_settings(config: &TrainConfig) -> SelfPlaySettings {
    SelfPlaySettings {
        search: config.search,
        rules: rules(config),
        play: config.selfplay.clone(),
    }
}

fn rules(config: &TrainConfig) -> Rules {
    Rules {
        no_progress_limit: config.rules.no_progress_limit,
    }
}

/// Load the newest readable checkpoint of the run, falling back to older ones (a corrupt file
/// is reported and skipped, never fatal while an older one exists).
fn load_latest(
    dir: &RunDir,
    device: &Device,
    progress: &Progress,
) -> Option<(Trainer, RunState, PathBuf)> {
    for (_, path) in dir.checkpoints().into_iter().rev() {
        match Trainer::load_checkpoint(&path, device) {
            Ok((trainer, extra)) => match serde_json::from_slice::<RunState>(&extra) {
                Ok(state) => return Some((trainer, state, path)),
                Err(e) => progress.line(&format!(
                    "warning: {}: bad run state ({e}); trying an older checkpoint",
                    path.display()
                )),
            },
            Err(e) => progress.line(&format!("warning: {e}; trying an older checkpoint")),
        }
    }
    None
}

fn save(
    dir: &RunDir,
    trainer: &Trainer,
    state: &RunState,
    keep: usize,
) -> Result<PathBuf, TrainError> {
    let path = dir.checkpoint_path(trainer.steps());
    let extra = serde_json::to_vec(state).unwrap_or_default();
    trainer.save_checkpoint(&path, &extra)?;
    let mut protected: Vec<PathBuf> = state
        .rated
        .iter()
        .map(|&s| dir.checkpoint_path(s))
        .collect();
    if let Some(best) = state.best {
        protected.push(dir.checkpoint_path(best));
    }
    dir.prune_checkpoints(keep, &protected);
    Ok(path)
}

/// Run (or resume) training in `opts.run_dir` with `config` (on resume the run's own
/// `config.toml` is used instead).
pub fn train(config: &TrainConfig, opts: &TrainOptions) -> Result<TrainSummary, TrainError> {
    let (dir, config, resumed) = RunDir::open(&opts.run_dir, config)?;
    let mut progress = Progress::new(opts.interactive);
    let device = device_by_name(&config.training.device)?;
    let (mut trainer, mut state) = match load_latest(&dir, &device, &progress) {
        Some((trainer, state, path)) => {
            progress.line(&format!(
                "resuming {} from {} (generation {}, {} steps)",
                dir.root().display(),
                path.display(),
                state.generation,
                trainer.steps()
            ));
            dir.log(&format!(
                "resume from {} at generation {}",
                path.display(),
                state.generation
            ));
            (trainer, state)
        }
        None => {
            device.seed(config.seed);
            progress.line(&format!(
                "starting run {} in {}",
                config.name,
                dir.root().display()
            ));
            dir.log(&format!("start run {} (seed {})", config.name, config.seed));
            (
                Trainer::new(trainer_config(&config), &device),
                RunState::default(),
            )
        }
    };
    let mut metrics = Metrics::open(&dir.tensorboard_dir());
    let mut replay = ReplayBuffer::new();
    let first_scan = replay.scan(&dir.selfplay_dir(), config.replay.window_max);
    for warning in &first_scan.skipped {
        progress.line(&format!("warning: skipping unreadable shard: {warning}"));
        dir.log(&format!("skipped shard: {warning}"));
    }
    let mut last_checkpoint = None;
    let mut generations_run = 0;
    while !opts.stop.load(Ordering::Relaxed) && opts.generations.is_none_or(|n| generations_run < n)
    {
        let generation = state.generation;
        if state.training.is_none() {
            let model = selfplay_model(&dir, &trainer, &state, &device, &progress);
            let finished = selfplay_generation(
                &dir,
                &config,
                generation,
                &model,
                "main",
                &opts.stop,
                &mut progress,
            )?;
            if opts.stop.load(Ordering::Relaxed) {
                break;
            }
            let scan = replay.scan(&dir.selfplay_dir(), config.replay.window_max);
            for warning in &scan.skipped {
                progress.line(&format!("warning: skipping unreadable shard: {warning}"));
                dir.log(&format!("skipped shard: {warning}"));
            }
            state.games_seen += scan.games.len() as u64;
            record_games(&mut metrics, &scan.games, finished, trainer.steps());
            let target = training_steps(&config, replay.total(), scan.samples);
            state.training = Some(TrainingPhase {
                start_steps: trainer.steps(),
                target_steps: target,
            });
            dir.log(&format!(
                "generation {generation}: {} new games, {} new samples, {} in total; training {target} steps",
                scan.games.len(),
                scan.samples,
                replay.total()
            ));
        }
        let Some(phase) = state.training else {
            continue;
        };
        train_phase(
            &config,
            &dir,
            &mut trainer,
            &state,
            phase,
            &replay,
            &opts.stop,
            &mut progress,
            &mut metrics,
        )?;
        if opts.stop.load(Ordering::Relaxed) {
            last_checkpoint = Some(save(&dir, &trainer, &state, config.checkpoints.keep)?);
            break;
        }
        state.generation += 1;
        state.training = None;
        last_checkpoint = Some(save(&dir, &trainer, &state, config.checkpoints.keep)?);
        let every = config.evaluation.every_generations;
        if every > 0 && state.generation % every == 0 {
            evaluate(
                &config,
                &dir,
                &trainer,
                &mut state,
                &device,
                &mut progress,
                &mut metrics,
            );
            last_checkpoint = Some(save(&dir, &trainer, &state, config.checkpoints.keep)?);
        }
        metrics.flush();
        generations_run += 1;
    }
    progress.finish();
    metrics.flush();
    dir.log(&format!(
        "stop at generation {} ({} steps)",
        state.generation,
        trainer.steps()
    ));
    Ok(TrainSummary {
        generation: state.generation,
        steps: trainer.steps(),
        resumed,
        checkpoint: last_checkpoint,
    })
}

/// The network self-play uses: the newest, or with gating the best rated one.
fn selfplay_model(
    dir: &RunDir,
    trainer: &Trainer,
    state: &RunState,
    device: &Device,
    progress: &Progress,
) -> InferenceModel {
    if let Some(best) = state.best.filter(|&b| b != trainer.steps()) {
        match Trainer::load_checkpoint(&dir.checkpoint_path(best), device) {
            Ok((best_trainer, _)) => return best_trainer.inference_model(),
            Err(e) => progress.line(&format!(
                "warning: cannot load the best checkpoint ({e}); using the newest"
            )),
        }
    }
    trainer.inference_model()
}

/// Optimiser steps for a generation that brought `new_samples` samples.
fn training_steps(config: &TrainConfig, total: usize, new_samples: usize) -> u64 {
    if total < config.replay.window_min {
        return 0;
    }
    if config.training.steps_per_generation > 0 {
        return config.training.steps_per_generation;
    }
    let samples = new_samples as f64 * config.replay.sample_reuse;
    (samples / config.training.batch_size as f64).ceil() as u64
}

/// Play the rest of `generation`'s games (those not yet on disk) as `worker`, writing shards.
/// Returns the games finished by this call.
pub fn selfplay_generation(
    dir: &RunDir,
    config: &TrainConfig,
    generation: u64,
    model: &InferenceModel,
    worker: &str,
    stop: &AtomicBool,
    progress: &mut Progress,
) -> Result<SelfPlayReport, TrainError> {
    let per_generation = config.selfplay.games_per_generation as u64;
    let (mut shards, done) = dir.shards_written(generation, worker);
    let remaining = per_generation.saturating_sub(done);
    let mut report = SelfPlayReport::default();
    if remaining == 0 {
        return Ok(report);
    }
    let settings = selfplay_settings(config);
    let counters = SelfPlayCounters::default();
    let concurrent = config.selfplay.concurrent_games;
    let threads = config.selfplay.threads;
    // Worker-specific seed: different workers on one run play different games.
    let seed = game_seed(
        config.seed,
        worker
            .bytes()
            .fold(0u64, |h, b| h.wrapping_mul(31).wrapping_add(b as u64)),
    );
    let first = generation * per_generation + done;
    let shard_games = (concurrent as u64 / 4).clamp(4, 64);
    let started = Instant::now();
    let phase = format!("gen {generation} self-play");
    progress.phase(&phase, remaining);
    let mut pending: Vec<FinishedGame> = Vec::new();
    let mut write_error = None;
    let mut finished = 0u64;
    let flush = |pending: &mut Vec<FinishedGame>, shards: &mut u64| -> Result<(), TrainError> {
        if pending.is_empty() {
            return Ok(());
        }
        let shard = Shard {
            samples: pending
                .iter()
                .flat_map(|g| g.samples.iter().cloned())
                .collect(),
            games: pending.iter().map(|g| g.summary.clone()).collect(),
            network_steps: 0,
        };
        write_shard(
            &dir.shard_path(generation, worker, *shards, pending.len() as u64),
            &shard,
        )?;
        *shards += 1;
        pending.clear();
        Ok(())
    };
    let mut on_game = |game: FinishedGame| {
        finished += 1;
        report.games += 1;
        report.samples += game.samples.len() as u64;
        report.actions += u64::from(game.summary.actions);
        pending.push(game);
        if pending.len() as u64 >= shard_games
            && write_error.is_none()
            && let Err(e) = flush(&mut pending, &mut shards)
        {
            write_error = Some(e);
        }
        let secs = started.elapsed().as_secs_f64().max(1e-9);
        let evals = counters.evaluations.load(Ordering::Relaxed) as f64;
        progress.update(
            &phase,
            finished,
            remaining,
            &format!(
                "{:.2} games/s, {:.0} evals/s",
                finished as f64 / secs,
                evals / secs
            ),
        );
    };
    if threads <= 1 {
        let evaluator = NetEvaluator::new(model.clone());
        play(
            &evaluator,
            &settings,
            seed,
            first,
            remaining,
            concurrent,
            &counters,
            stop,
            &mut on_game,
        );
    } else {
        // One inference thread merges the batches of all search threads.
        let service = InferenceService::start(
            model.clone(),
            concurrent * settings.search.batch_size as usize,
            Duration::from_millis(2),
        );
        let (sender, receiver) = std::sync::mpsc::channel::<FinishedGame>();
        std::thread::scope(|scope| {
            for t in 0..threads as u64 {
                let evaluator = service.evaluator();
                let sender = sender.clone();
                let (settings, counters) = (&settings, &counters);
                let share = remaining / threads as u64 + u64::from(t < remaining % threads as u64);
                let offset = (0..t)
                    .map(|u| remaining / threads as u64 + u64::from(u < remaining % threads as u64))
                    .sum::<u64>();
                let games_here = (concurrent / threads).max(1);
                scope.spawn(move || {
                    let mut send = |g: FinishedGame| {
                        let _ = sender.send(g);
                    };
                    play(
                        &evaluator,
                        settings,
                        seed,
                        first + offset,
                        share,
                        games_here,
                        counters,
                        stop,
                        &mut send,
                    );
                });
            }
            drop(sender);
            for game in receiver {
                on_game(game);
            }
        });
    }
    if let Some(e) = write_error {
        return Err(e);
    }
    flush(&mut pending, &mut shards)?;
    let secs = started.elapsed().as_secs_f64();
    report.seconds = secs;
    report.evaluations = counters.evaluations.load(Ordering::Relaxed);
    report.batches = counters.batches.load(Ordering::Relaxed);
    if report.games > 0 {
        progress.line(&format!(
            "gen {generation} self-play: {} games, {} samples in {:.0} s ({:.2} games/s, {:.0} evals/s, {:.1} positions per network call)",
            report.games,
            report.samples,
            secs,
            report.games as f64 / secs.max(1e-9),
            report.evaluations as f64 / secs.max(1e-9),
            report.evaluations as f64 / report.batches.max(1) as f64
        ));
    }
    Ok(report)
}

/// Rates of one self-play phase.
#[derive(Clone, Copy, Debug, Default)]
pub struct SelfPlayReport {
    /// Games finished.
    pub games: u64,
    /// Samples recorded.
    pub samples: u64,
    /// Step-level actions played.
    pub actions: u64,
    /// Network evaluations.
    pub evaluations: u64,
    /// Network calls.
    pub batches: u64,
    /// Wall time.
    pub seconds: f64,
}

fn record_games(metrics: &mut Metrics, games: &[GameSummary], report: SelfPlayReport, step: u64) {
    if report.seconds > 0.0 {
        metrics.scalar(
            "selfplay/games_per_second",
            report.games as f64 / report.seconds,
            step,
        );
        metrics.scalar(
            "selfplay/samples_per_second",
            report.samples as f64 / report.seconds,
            step,
        );
        metrics.scalar(
            "selfplay/evaluations_per_second",
            report.evaluations as f64 / report.seconds,
            step,
        );
        metrics.scalar(
            "selfplay/positions_per_network_call",
            report.evaluations as f64 / report.batches.max(1) as f64,
            step,
        );
    }
    if games.is_empty() {
        return;
    }
    let n = games.len() as f64;
    metrics.scalar(
        "selfplay/average_game_turns",
        games.iter().map(|g| g.turns as f64).sum::<f64>() / n,
        step,
    );
    metrics.scalar(
        "selfplay/draw_rate",
        games.iter().filter(|g| g.winner.is_none()).count() as f64 / n,
        step,
    );
    for end in [
        GameEnd::AllCaptured,
        GameEnd::NoLegalMove,
        GameEnd::Repetition,
        GameEnd::NoProgress,
        GameEnd::Resigned,
        GameEnd::Capped,
    ] {
        let share = games.iter().filter(|g| g.end == end).count() as f64 / n;
        metrics.scalar(&format!("selfplay/end_{}", end.tag()), share, step);
    }
    let checked: Vec<bool> = games.iter().filter_map(|g| g.false_resignation).collect();
    if !checked.is_empty() {
        let rate = checked.iter().filter(|&&f| f).count() as f64 / checked.len() as f64;
        metrics.scalar("selfplay/false_resignation_rate", rate, step);
    }
}

#[allow(clippy::too_many_arguments)]
fn train_phase(
    config: &TrainConfig,
    dir: &RunDir,
    trainer: &mut Trainer,
    state: &RunState,
    phase: TrainingPhase,
    replay: &ReplayBuffer,
    stop: &AtomicBool,
    progress: &mut Progress,
    metrics: &mut Metrics,
) -> Result<(), TrainError> {
    let end = phase.start_steps + phase.target_steps;
    if trainer.steps() >= end {
        return Ok(());
    }
    let t = &config.training;
    let r = &config.replay;
    let window = window_size(
        replay.total(),
        r.window_min,
        r.window_max,
        r.window_exponent,
    );
    let label = format!("gen {} training", state.generation);
    progress.phase(&label, phase.target_steps);
    let started = Instant::now();
    let first = trainer.steps();
    let limit = config.rules.no_progress_limit;
    let mut sums = [0f64; 5];
    let mut count = 0;
    while trainer.steps() < end && !stop.load(Ordering::Relaxed) {
        let step = trainer.steps();
        // Each batch's random stream derives from the seed and the step: resuming draws the
        // same batches.
        let mut rng = StdRng::seed_from_u64(game_seed(config.seed ^ 0x7A11, step));
        let (batch, bad) = replay.sample_batch(
            &mut rng,
            window,
            t.batch_size,
            t.symmetry_augmentation,
            limit,
        );
        if bad > 0 {
            dir.log(&format!(
                "step {step}: {bad} samples could not be decoded and were replaced"
            ));
        }
        if batch.batch_size == 0 {
            break;
        }
        let lr = t.learning_rate_at(step);
        match trainer.train_step(&batch, lr) {
            Ok(report) => {
                for (s, v) in sums.iter_mut().zip([
                    report.total,
                    report.policy,
                    report.value,
                    report.policy_entropy,
                    report.value_accuracy,
                ]) {
                    *s += f64::from(v);
                }
                count += 1;
            }
            Err(NetError::NonFiniteLoss(report)) => {
                dir.log(&format!(
                    "step {step}: non-finite loss {report:?}; step skipped"
                ));
            }
            Err(e) => return Err(e.into()),
        }
        let now = trainer.steps();
        if count > 0 && (now.is_multiple_of(10) || now == end) {
            let avg = |i: usize| sums[i] / count as f64;
            for (i, tag) in [
                "loss/total",
                "loss/policy",
                "loss/value",
                "train/policy_entropy",
                "train/value_accuracy",
            ]
            .iter()
            .enumerate()
            {
                metrics.scalar(tag, avg(i), now);
            }
            metrics.scalar("train/learning_rate", lr, now);
            metrics.scalar("train/window_samples", window as f64, now);
            let secs = started.elapsed().as_secs_f64().max(1e-9);
            let rate = (now - first) as f64 * t.batch_size as f64 / secs;
            metrics.scalar("train/samples_per_second", rate, now);
            progress.update(
                &label,
                now - phase.start_steps,
                phase.target_steps,
                &format!(
                    "loss {:.3} (policy {:.3}, value {:.3}), {rate:.0} samples/s",
                    avg(0),
                    avg(1),
                    avg(2)
                ),
            );
            sums = [0.0; 5];
            count = 0;
        }
        if now.is_multiple_of(config.checkpoints.every_steps) && now < end {
            save(dir, trainer, state, config.checkpoints.keep)?;
        }
    }
    Ok(())
}

fn evaluate(
    config: &TrainConfig,
    dir: &RunDir,
    trainer: &Trainer,
    state: &mut RunState,
    device: &Device,
    progress: &mut Progress,
    metrics: &mut Metrics,
) {
    let e = &config.evaluation;
    let steps = trainer.steps();
    let model = trainer.inference_model();
    let rules = rules(config);
    let seed = game_seed(config.seed ^ 0xE7A1, steps);
    let mut ratings: Vec<Rating> = Vec::new();
    let total = e.baselines.len() as u64 + 1;
    let label = format!("gen {} rating", state.generation);
    progress.phase(&label, total);
    for (i, text) in e.baselines.iter().enumerate() {
        let Ok(spec) = text.parse::<PlayerSpec>() else {
            continue;
        };
        match rate(
            &model,
            text,
            Opponent::Spec(&spec),
            e.games,
            e.simulations,
            e.opening_plies,
            rules,
            seed,
        ) {
            Ok(r) => ratings.push(r),
            Err(err) => progress.line(&format!("warning: rating against {text} failed: {err}")),
        }
        progress.update(&label, i as u64 + 1, total, text);
    }
    // The network opponent: the best net when gating, otherwise the previous rated one.
    let previous = if e.gating {
        state.best
    } else if e.against_previous {
        state.last_rated
    } else {
        None
    };
    let mut against_best = None;
    if let Some(prev) = previous.filter(|&p| p != steps) {
        {
            match Trainer::load_checkpoint(&dir.checkpoint_path(prev), device) {
                Ok((previous, _)) => {
                    let name = format!("ckpt-{prev:09}");
                    let opponent = previous.inference_model();
                    match rate(
                        &model,
                        &name,
                        Opponent::Net(&opponent),
                        e.games,
                        e.simulations,
                        e.opening_plies,
                        rules,
                        seed,
                    ) {
                        Ok(r) => {
                            against_best = Some(r.clone());
                            ratings.push(r);
                        }
                        Err(err) => {
                            progress.line(&format!("warning: rating against {name} failed: {err}"))
                        }
                    }
                }
                Err(err) => {
                    progress.line(&format!("warning: cannot load {} for rating: {err}", prev))
                }
            }
        }
    }
    for r in &ratings {
        let elo = r.elo.map_or(f64::NAN, |(elo, _, _)| elo);
        let name = r.opponent.replace([':', '='], "_");
        metrics.scalar(&format!("eval/score_vs_{name}"), r.score, steps);
        metrics.scalar(&format!("eval/elo_vs_{name}"), elo, steps);
        let line = match r.elo {
            Some((elo, low, high)) => format!("{elo:+.0} Elo (95% CI {low:+.0} to {high:+.0})"),
            None => "no games".to_string(),
        };
        progress.line(&format!(
            "rating ckpt-{steps:09} vs {}: +{} ={} -{} score {:.1}% {line}",
            r.opponent,
            r.wins,
            r.draws,
            r.losses,
            r.score * 100.0
        ));
        dir.log(&format!(
            "rating steps {steps} vs {}: +{} ={} -{}",
            r.opponent, r.wins, r.draws, r.losses
        ));
    }
    append_ratings(
        &dir.ratings_path(),
        steps,
        state.generation,
        state.games_seen,
        &ratings,
    );
    state.rated.push(steps);
    state.last_rated = Some(steps);
    if e.gating {
        // Draws alone never promote: the new net needs the score and enough decisive games.
        let promote = match (&against_best, state.best) {
            (_, None) => true,
            (Some(r), Some(_)) => {
                r.score >= e.gating_threshold && r.decisive() >= e.gating_min_decisive
            }
            (None, Some(_)) => false,
        };
        if promote {
            state.best = Some(steps);
        }
        dir.log(&format!("gating: self-play uses ckpt {:?}", state.best));
    }
}

/// `fanorona selfplay`: play games for a run that a trainer (maybe on another machine sharing
/// the directory) is training, with the newest checkpoint, as worker `worker`, until stopped.
pub fn selfplay_worker(
    run_dir: &std::path::Path,
    worker: &str,
    stop: &AtomicBool,
    interactive: bool,
) -> Result<u64, TrainError> {
    let (dir, config) = RunDir::open_existing(run_dir)?;
    let mut progress = Progress::new(interactive);
    let device = device_by_name(&config.training.device)?;
    let mut games = 0;
    let mut last_generation = None;
    while !stop.load(Ordering::Relaxed) {
        let Some((trainer, state, path)) = load_latest(&dir, &device, &progress) else {
            progress.line("waiting for the trainer's first checkpoint...");
            sleep_unless(stop, Duration::from_secs(5));
            continue;
        };
        let generation = state.generation;
        let (_, done) = dir.shards_written(generation, worker);
        if done >= config.selfplay.games_per_generation as u64
            || last_generation == Some((generation, trainer.steps())) && done > 0
        {
            // This generation's share is played: wait for the trainer to move on.
            sleep_unless(stop, Duration::from_secs(5));
            continue;
        }
        progress.line(&format!(
            "worker {worker}: generation {generation} with {}",
            path.display()
        ));
        let model = selfplay_model(&dir, &trainer, &state, &device, &progress);
        let report = selfplay_generation(
            &dir,
            &config,
            generation,
            &model,
            worker,
            stop,
            &mut progress,
        )?;
        games += report.games;
        last_generation = Some((generation, trainer.steps()));
    }
    progress.finish();
    Ok(games)
}

fn sleep_unless(stop: &AtomicBool, total: Duration) {
    let end = Instant::now() + total;
    while Instant::now() < end && !stop.load(Ordering::Relaxed) {
        std::thread::sleep(Duration::from_millis(100));
    }
}
