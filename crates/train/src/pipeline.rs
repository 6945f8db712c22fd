//! The training loop: generations of self-play, training on the replay window, checkpoints and
//! ratings, all resumable from the run directory.
//!
//! A generation is:
//! 1. **self-play** ([`crate::selfplay_phase`]): `selfplay.games_per_generation` games with the
//!    current network, written as shards every few games (on resume, the games already on disk
//!    count);
//! 2. **ingest**: every new shard in `selfplay/`, this process's and any other's;
//! 3. **training** ([`crate::training_phase`]): `training.steps_per_generation` optimiser steps
//!    (or as many as make each new sample used `replay.sample_reuse` times), batches drawn
//!    uniformly from the window, a checkpoint every `checkpoints.every_steps` steps;
//! 4. a checkpoint marking the generation done, and every `evaluation.every_generations`
//!    generations a rating of the new network ([`crate::rating`]).
//!
//! The checkpoint carries the model, the optimiser and a [`RunState`] (generation, phase,
//! rated checkpoints). Random streams are derived from the seed and the counters, not stored,
//! so a resumed run draws the same batches it would have drawn.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use fanorona_net::{OptimizerConfig, Trainer, TrainerConfig, device_by_name};

use crate::config::{OptimizerKind, TrainConfig};
use crate::metrics::{Metrics, Progress};
use crate::rating::rate_checkpoint;
use crate::replay::ReplayBuffer;
use crate::run::{Run, RunState, TrainError, TrainingPhase};
use crate::rundir::{RunDir, RunDirError, RunLock};
use crate::selfplay_phase::{SelfPlayNet, record_selfplay, selfplay_generation, training_steps};
use crate::training_phase::train_phase;

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
    /// Read (and build) the endgame tables here instead of the config's `tablebase.dir`: a
    /// path of this machine, so it overrides the run's archived config on resume too.
    pub tablebases: Option<PathBuf>,
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

/// The trainer settings of a config: the network shape and the optimiser.
pub fn trainer_config(config: &TrainConfig) -> TrainerConfig {
    let t = &config.training;
    let optimizer = match t.optimizer {
        OptimizerKind::Sgd => OptimizerConfig::Sgd {
            momentum: t.momentum,
            nesterov: false,
        },
        OptimizerKind::Adamw => OptimizerConfig::AdamW {
            beta1: t.adam_beta1,
            beta2: t.adam_beta2,
            epsilon: t.adam_epsilon,
        },
    };
    TrainerConfig::new(config.model.clone())
        .with_optimizer(optimizer)
        .with_weight_decay(t.weight_decay)
}

fn open_run(
    dir: RunDir,
    config: TrainConfig,
    interactive: bool,
    stop: Arc<AtomicBool>,
) -> Result<Run, TrainError> {
    let device = device_by_name(&config.training.device)?;
    fanorona_net::set_configured_backend(config.training.inference);
    let mut metrics = Metrics::open(&dir.tensorboard_dir());
    let progress = Progress::new(interactive);
    if let Some(warning) = metrics.take_warning() {
        progress.line(&format!("warning: {warning}"));
        dir.log(&format!("warning: {warning}"))?;
    }
    let tables = open_tables(&config, &progress)?;
    Ok(Run {
        dir,
        config,
        device,
        progress,
        metrics,
        stop,
        tables,
    })
}

/// The endgame tables of `[tablebase]`: built first when the directory holds fewer stones
/// than `build_stones` (resuming a build left half done), then read.
fn open_tables(
    config: &TrainConfig,
    progress: &Progress,
) -> Result<Option<Arc<fanorona_players::SearchTables>>, TrainError> {
    let t = &config.tablebase;
    if t.dir.is_empty() {
        return Ok(None);
    }
    let dir = std::path::Path::new(&t.dir);
    let rules = fanorona_engine::Rules {
        no_progress_limit: config.rules.no_progress_limit,
    };
    let mut tables = fanorona_tablebase::Tablebase::open(dir, rules)?;
    if tables.max_stones() < t.build_stones {
        progress.line(&format!(
            "building endgame tables up to {} stones in {} (once; later runs read them)",
            t.build_stones,
            dir.display()
        ));
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
        tables = fanorona_tablebase::build::build_dir(
            dir,
            t.build_stones,
            rules.no_progress_limit,
            threads,
            &mut |_| {},
        )?;
    }
    if tables.classes().next().is_none() {
        return Ok(None);
    }
    progress.line(&format!(
        "endgame tables: every position with up to {} stones ({}); {:.0}% of games play on past them",
        tables.max_stones(),
        dir.display(),
        t.play_on_fraction * 100.0
    ));
    Ok(Some(Arc::new(fanorona_players::SearchTables::new(
        Arc::new(tables),
    ))))
}

/// The trainer and state to go on from: the newest readable checkpoint, or a fresh network.
fn resume_or_start(run: &Run) -> Result<(Trainer, RunState), TrainError> {
    if let Some((trainer, state, path)) = run.load_latest()? {
        check_resumable(&run.config, trainer.config())?;
        run.progress.line(&format!(
            "resuming {} from {} (generation {}, {} steps)",
            run.dir.root().display(),
            path.display(),
            state.generation,
            trainer.steps()
        ));
        run.log(&format!(
            "resume from {} at generation {}",
            path.display(),
            state.generation
        ))?;
        return Ok((trainer, state));
    }
    run.device.seed(run.config.seed);
    run.progress.line(&format!(
        "starting run {} in {}",
        run.config.name,
        run.dir.root().display()
    ));
    run.log(&format!(
        "start run {} (seed {})",
        run.config.name, run.config.seed
    ))?;
    let trainer = Trainer::new(trainer_config(&run.config), &run.device);
    Ok((trainer, RunState::default()))
}

/// On resume the network and its optimiser come from the checkpoint: a run's `config.toml`
/// edited to another shape or optimiser would be silently ignored, so it is refused, naming
/// the key. Every other key may change between sessions.
fn check_resumable(config: &TrainConfig, saved: &TrainerConfig) -> Result<(), TrainError> {
    let wanted = trainer_config(config);
    let (a, b) = (&wanted.net, &saved.net);
    let shape = [
        ("model.blocks", a.blocks, b.blocks),
        ("model.channels", a.channels, b.channels),
        (
            "model.policy_channels",
            a.policy_channels,
            b.policy_channels,
        ),
        ("model.value_channels", a.value_channels, b.value_channels),
        ("model.value_hidden", a.value_hidden, b.value_hidden),
        (
            "model.global_pool_every",
            a.global_pool_every,
            b.global_pool_every,
        ),
    ];
    let changed = shape
        .iter()
        .find(|(_, a, b)| a != b)
        .map(|(key, a, b)| (*key, a.to_string(), b.to_string()))
        .or_else(|| {
            let (a, b) = (
                format!("{:?}", wanted.optimizer),
                format!("{:?}", saved.optimizer),
            );
            (a != b).then_some(("training.optimizer", a, b))
        })
        .or_else(|| {
            (wanted.weight_decay != saved.weight_decay).then(|| {
                (
                    "training.weight_decay",
                    wanted.weight_decay.to_string(),
                    saved.weight_decay.to_string(),
                )
            })
        });
    match changed {
        None => Ok(()),
        Some((key, now, before)) => Err(TrainError::RunDir(RunDirError::Other(format!(
            "{key} is {now} in the run's config.toml but {before} in its checkpoints: the network \
             and its optimiser cannot change on resume; set it back, or start a new run"
        )))),
    }
}

/// Reads every new shard into the replay window, reporting unreadable ones.
fn ingest(run: &Run, replay: &mut ReplayBuffer) -> Result<crate::replay::ScanReport, TrainError> {
    let scan = replay.scan(&run.dir.selfplay_dir(), run.config.replay.window_max);
    for warning in &scan.skipped {
        run.progress
            .line(&format!("warning: skipping unreadable shard: {warning}"));
        run.log(&format!("skipped shard: {warning}"))?;
    }
    Ok(scan)
}

/// Self-play, then ingest: sets the generation's training target in `state`. Returns `false`
/// when stopped during self-play.
fn selfplay_then_ingest(
    run: &mut Run,
    trainer: &Trainer,
    state: &mut RunState,
    replay: &mut ReplayBuffer,
) -> Result<bool, TrainError> {
    let generation = state.generation;
    let net = SelfPlayNet {
        model: run.selfplay_model(trainer, state)?,
        steps: trainer.steps(),
    };
    let report = selfplay_generation(run, generation, &net, "main")?;
    if run.stopped() {
        return Ok(false);
    }
    let scan = ingest(run, replay)?;
    state.games_seen += scan.games.len() as u64;
    record_selfplay(&mut run.metrics, &scan.games, &report, trainer.steps());
    let target = training_steps(&run.config, replay.total(), scan.samples);
    state.training = Some(TrainingPhase {
        start_steps: trainer.steps(),
        target_steps: target,
    });
    run.log(&format!(
        "generation {generation}: {} new games, {} new samples, {} in total; training {target} steps",
        scan.games.len(),
        scan.samples,
        replay.total()
    ))?;
    Ok(true)
}

/// Run (or resume) training in `opts.run_dir` with `config` (on resume the run's own
/// `config.toml` is used instead).
pub fn train(config: &TrainConfig, opts: &TrainOptions) -> Result<TrainSummary, TrainError> {
    // A new run is checked against this build before its folder is made: a device the build
    // lacks would otherwise be archived in config.toml, and every later start would fail.
    if !opts.run_dir.join("config.toml").exists() {
        device_by_name(&config.training.device)?;
    }
    let lock = RunLock::acquire(&opts.run_dir)?;
    let (dir, mut config, resumed) = RunDir::open(&opts.run_dir, config, &lock)?;
    if let Some(tables) = &opts.tablebases {
        config.tablebase.dir = tables.to_string_lossy().into_owned();
    }
    let mut run = open_run(dir, config, opts.interactive, Arc::clone(&opts.stop))?;
    if let Some(warning) = lock.warning() {
        run.progress.line(&format!("warning: {warning}"));
        run.log(&format!("warning: {warning}"))?;
    }
    let (mut trainer, mut state) = resume_or_start(&run)?;
    // The run's working time: what earlier sessions recorded, plus this one's.
    let clock = Instant::now();
    let seconds_before = state.seconds;
    let stamp =
        |state: &mut RunState| state.seconds = seconds_before + clock.elapsed().as_secs_f64();
    let mut replay = ReplayBuffer::new();
    ingest(&run, &mut replay)?;
    let mut last_checkpoint = None;
    let mut generations_run = 0;
    while !run.stopped() && opts.generations.is_none_or(|n| generations_run < n) {
        if state.training.is_none()
            && !selfplay_then_ingest(&mut run, &trainer, &mut state, &mut replay)?
        {
            break;
        }
        let Some(phase) = state.training else {
            continue;
        };
        train_phase(&mut run, &mut trainer, &state, phase, &replay)?;
        if run.stopped() {
            stamp(&mut state);
            last_checkpoint = Some(run.save(&trainer, &state)?);
            break;
        }
        state.generation += 1;
        state.training = None;
        stamp(&mut state);
        last_checkpoint = Some(run.save(&trainer, &state)?);
        let every = run.config.evaluation.every_generations;
        if every > 0 && state.generation.is_multiple_of(every) {
            rate_checkpoint(&mut run, &trainer, &mut state)?;
            last_checkpoint = Some(run.save(&trainer, &state)?);
        }
        run.metrics.flush();
        if let Some(warning) = run.metrics.take_warning() {
            run.progress.line(&format!("warning: {warning}"));
            run.log(&format!("warning: {warning}"))?;
        }
        generations_run += 1;
    }
    run.progress.finish();
    run.metrics.flush();
    run.log(&format!(
        "stop at generation {} ({} steps)",
        state.generation,
        trainer.steps()
    ))?;
    Ok(TrainSummary {
        generation: state.generation,
        steps: trainer.steps(),
        resumed,
        checkpoint: last_checkpoint,
    })
}

/// `fanorona selfplay`: play games for a run that a trainer (maybe on another machine sharing
/// the directory) is training, with the newest checkpoint, as worker `worker`, until stopped.
pub fn selfplay_worker(
    run_dir: &Path,
    worker: &str,
    stop: Arc<AtomicBool>,
    interactive: bool,
) -> Result<u64, TrainError> {
    let (dir, config) = RunDir::open_existing(run_dir)?;
    let mut run = open_run(dir, config, interactive, stop)?;
    let mut games = 0;
    let mut last_generation = None;
    while !run.stopped() {
        let Some((trainer, state, path)) = run.load_latest()? else {
            run.progress
                .line("waiting for the trainer's first checkpoint...");
            sleep_unless(&run, Duration::from_secs(5));
            continue;
        };
        let generation = state.generation;
        let (_, done) = run.dir.shards_written(generation, worker);
        if done >= run.config.selfplay.games_per_generation as u64
            || last_generation == Some((generation, trainer.steps())) && done > 0
        {
            // This generation's share is played: wait for the trainer to move on.
            sleep_unless(&run, Duration::from_secs(5));
            continue;
        }
        run.progress.line(&format!(
            "worker {worker}: generation {generation} with {}",
            path.display()
        ));
        let net = SelfPlayNet {
            model: run.selfplay_model(&trainer, &state)?,
            steps: trainer.steps(),
        };
        let report = selfplay_generation(&mut run, generation, &net, worker)?;
        games += report.games;
        last_generation = Some((generation, trainer.steps()));
    }
    run.progress.finish();
    Ok(games)
}

fn sleep_unless(run: &Run, total: Duration) {
    let end = Instant::now() + total;
    while Instant::now() < end && !run.stopped() {
        std::thread::sleep(Duration::from_millis(100));
    }
}
