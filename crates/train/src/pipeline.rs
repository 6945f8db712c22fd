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

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use fanorona_net::{
    Backend, EvalTrainer, EvalTrainerConfig, OptimizerConfig, Trainer, TrainerConfig,
    device_by_name,
};

use crate::config::{ModelKind, OptimizerKind, TrainConfig};
use crate::evalplay::{
    eval_selfplay_generation, eval_train_phase, evaluation_of, rate_eval_checkpoint,
};
use crate::expert::{Expert, expert_generation};
use crate::metrics::{Metrics, Progress};
use crate::rating::rate_checkpoint;
use crate::replay::{GameSummary, ReplayBuffer};
use crate::run::{Learner, Run, RunState, TrainError, TrainingPhase};
use crate::rundir::{RunDir, RunDirError, RunLock};
use crate::selfplay_phase::{SelfPlayNet, record_selfplay, selfplay_generation, training_steps};
use crate::store::{RunLocation, StoreRun, default_cache_dir};
use crate::training_phase::train_phase;

/// How to run.
#[derive(Clone, Debug)]
pub struct TrainOptions {
    /// The run directory: a folder, or a URL of an object store (`s3://bucket/prefix`).
    pub run_dir: RunLocation,
    /// For a run on a store: this process's local folder for it (default: under
    /// [`default_cache_dir`]).
    pub work_dir: Option<PathBuf>,
    /// Whether the trainer plays self-play games itself; `false` leaves them to `fanorona
    /// selfplay` workers and waits for `selfplay.games_per_generation` of theirs a generation.
    pub selfplay: bool,
    /// Stop after this many generations in this invocation (`None`: until interrupted).
    pub generations: Option<u64>,
    /// Draw a progress bar (stderr is a terminal).
    pub interactive: bool,
    /// Set to stop cleanly (Ctrl-C): the current step finishes and a checkpoint is written.
    pub stop: Arc<AtomicBool>,
    /// Read (and build) the endgame tables here instead of the config's `tablebase.dir`: a
    /// path of this machine, so it overrides the run's archived config on resume too.
    pub tablebases: Option<PathBuf>,
    /// How networks run on the CPU, overriding the config's `training.inference` (the
    /// command line's `--backend`).
    pub backend: Option<Backend>,
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
    local_selfplay: bool,
    backend: Option<Backend>,
) -> Result<Run, TrainError> {
    let device = device_by_name(&config.training.device)?;
    let backend = backend.unwrap_or(config.training.inference);
    let config_for_teacher = config.clone();
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
        local_selfplay,
        backend,
        teacher: crate::run::Teacher::of(&config_for_teacher)?,
        expert: crate::expert::Expert::of(&config_for_teacher)?,
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
fn resume_or_start(run: &Run) -> Result<(Learner, RunState), TrainError> {
    if let Some((trainer, state, path)) = run.load_latest()? {
        match &trainer {
            Learner::Network(t) => check_resumable(&run.config, t.config())?,
            Learner::Eval(t) => check_eval_resumable(&run.config, t.config())?,
        }
        run.progress.line(&format!(
            "resuming {} from {} (generation {}, {} steps)",
            run.dir.location(),
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
    run.progress.line(&format!(
        "starting run {} in {}",
        run.config.name,
        run.dir.location()
    ));
    run.log(&format!(
        "start run {} (seed {})",
        run.config.name, run.config.seed
    ))?;
    let start_from = &run.config.training.start_from;
    let trainer = match run.config.kind {
        ModelKind::Network if !start_from.is_empty() => {
            let trainer = Trainer::from_exported(
                trainer_config(&run.config),
                Path::new(start_from),
                &run.device,
            )?;
            run.progress
                .line(&format!("starting from the weights of {start_from}"));
            run.log(&format!("start from the weights of {start_from}"))?;
            Learner::Network(trainer)
        }
        ModelKind::Network => Learner::Network(Trainer::seeded(
            trainer_config(&run.config),
            &run.device,
            run.config.seed,
        )),
        ModelKind::Eval => Learner::Eval(EvalTrainer::seeded(
            eval_trainer_config(&run.config),
            &run.device,
            run.config.seed,
        )),
    };
    Ok((trainer, RunState::default()))
}

/// The evaluation trainer's settings of a config.
pub fn eval_trainer_config(config: &TrainConfig) -> EvalTrainerConfig {
    EvalTrainerConfig {
        shape: fanorona_eval::Shape {
            inputs: config.eval.inputs,
            hidden1: config.eval.hidden1,
            hidden2: config.eval.hidden2,
        },
        score_scale: config.eval.score_scale,
        weight_decay: config.training.weight_decay as f32,
    }
}

/// On resume the evaluation's shape comes from the checkpoint: a changed one is refused.
fn check_eval_resumable(config: &TrainConfig, saved: &EvalTrainerConfig) -> Result<(), TrainError> {
    let wanted = eval_trainer_config(config);
    if wanted.shape.inputs != saved.shape.inputs {
        return Err(TrainError::RunDir(RunDirError::Other(format!(
            "eval.inputs is {:?} in the run's config.toml but {:?} in its checkpoints: the \
             evaluation's inputs cannot change on resume; set them back, or start a new run",
            wanted.shape.inputs, saved.shape.inputs
        ))));
    }
    let changed = [
        ("eval.hidden1", wanted.shape.hidden1, saved.shape.hidden1),
        ("eval.hidden2", wanted.shape.hidden2, saved.shape.hidden2),
    ]
    .into_iter()
    .find(|(_, a, b)| a != b);
    match changed {
        None => Ok(()),
        Some((key, now, before)) => Err(TrainError::RunDir(RunDirError::Other(format!(
            "{key} is {now} in the run's config.toml but {before} in its checkpoints: the \
             evaluation's shape cannot change on resume; set it back, or start a new run"
        )))),
    }
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

/// New games read into the replay window by one or more ingests.
#[derive(Default)]
struct Ingested {
    games: Vec<GameSummary>,
    samples: usize,
    by_worker: BTreeMap<String, u64>,
}

/// The worker name in a shard name (`sp-g<generation>-<worker>-<seq>-n<games>.shard`).
fn shard_worker(name: &str) -> &str {
    name.strip_prefix("sp-g")
        .and_then(|rest| rest.split('-').nth(1))
        .unwrap_or("unknown")
}

fn report_skipped(run: &Run, scan: &crate::replay::ScanReport) -> Result<(), TrainError> {
    for warning in &scan.skipped {
        run.progress
            .line(&format!("warning: skipping unreadable shard: {warning}"));
        run.log(&format!("skipped shard: {warning}"))?;
    }
    Ok(())
}

/// Reads every new shard of the run into the replay window, reporting unreadable ones, and
/// records each shard in `state` (so it counts once, also across restarts).
fn ingest(
    run: &Run,
    replay: &mut ReplayBuffer,
    state: &mut RunState,
    into: &mut Ingested,
) -> Result<(), TrainError> {
    let names = run.dir.shard_names()?;
    let scan = replay.load(
        names,
        |name| run.dir.read_shard(name),
        run.config.replay.window_max,
    );
    report_skipped(run, &scan)?;
    teach(run, replay, scan.samples);
    for (name, games) in &scan.names {
        if state.ingested.insert(name.clone()) {
            state.games_seen += games;
            *state
                .games_by_worker
                .entry(shard_worker(name).to_string())
                .or_default() += games;
            *into
                .by_worker
                .entry(shard_worker(name).to_string())
                .or_default() += games;
        }
    }
    into.games.extend(scan.games);
    into.samples += scan.samples;
    Ok(())
}

/// The value teacher's judgement of the newest `count` samples (when the run has one).
fn teach(run: &Run, replay: &mut ReplayBuffer, count: usize) {
    let Some(teacher) = &run.teacher else {
        return;
    };
    let rules = run.rules();
    let tables = run
        .tables
        .as_ref()
        .map(|t| t.tables().as_ref())
        .filter(|t| t.fits(rules));
    replay.judge_newest(count, |pos| teacher.value(pos, rules, tables));
}

/// On start: the replay window rebuilt from the shards the checkpoint's state records as
/// ingested (a run from before that record: every shard there is).
fn rebuild_window(
    run: &Run,
    replay: &mut ReplayBuffer,
    state: &mut RunState,
) -> Result<(), TrainError> {
    let mut names = run.dir.shard_names()?;
    let legacy = state.ingested.is_empty() && state.games_seen > 0;
    if !legacy {
        names.retain(|n| state.ingested.contains(n));
    }
    let scan = replay.load(
        names,
        |name| run.dir.read_shard(name),
        run.config.replay.window_max,
    );
    report_skipped(run, &scan)?;
    teach(run, replay, scan.samples);
    if legacy {
        state
            .ingested
            .extend(scan.names.into_iter().map(|(name, _)| name));
    }
    Ok(())
}

/// Without self-play of its own: waits until workers have written at least a generation's
/// games since the last ingest (or a stop).
fn wait_for_workers(
    run: &mut Run,
    state: &mut RunState,
    replay: &mut ReplayBuffer,
    into: &mut Ingested,
) -> Result<(), TrainError> {
    let wanted = run.config.selfplay.games_per_generation;
    let phase = format!("gen {} waiting for workers' games", state.generation);
    run.progress.phase(&phase, wanted as u64);
    let mut shown = None;
    loop {
        ingest(run, replay, state, into)?;
        let have = into.games.len();
        if shown != Some(have) {
            run.progress
                .update(&phase, have.min(wanted) as u64, wanted as u64, "");
            shown = Some(have);
        }
        if have >= wanted || run.stopped() {
            return Ok(());
        }
        sleep_unless(run, Duration::from_secs(2));
    }
}

/// Plays `generation`'s games not yet on disk as `worker`, with what `trainer` trains: the
/// network searched by MCTS (or the expert while it teaches, `[expert]`), or the evaluation
/// inside the alpha-beta player.
fn selfplay_round(
    run: &mut Run,
    trainer: &Learner,
    state: &RunState,
    generation: u64,
    worker: &str,
) -> Result<crate::selfplay_phase::SelfPlayReport, TrainError> {
    match trainer {
        Learner::Network(t) if Expert::teaches(&run.config, t.steps()) && run.expert.is_some() => {
            let expert = run.expert.clone().expect("checked above");
            expert_generation(run, generation, &expert, t.steps(), worker)
        }
        Learner::Network(t) => {
            let net = SelfPlayNet {
                model: run.selfplay_model(t, state)?,
                steps: t.steps(),
            };
            selfplay_generation(run, generation, &net, worker)
        }
        Learner::Eval(t) => {
            let eval = evaluation_of(t)?;
            let depth = state.teacher.depth(&run.config.eval);
            eval_selfplay_generation(run, generation, (&eval, depth), t.steps(), worker)
        }
    }
}

/// Self-play, then ingest: sets the generation's training target in `state`. Returns `false`
/// when stopped during self-play.
fn selfplay_then_ingest(
    run: &mut Run,
    trainer: &Learner,
    state: &mut RunState,
    replay: &mut ReplayBuffer,
) -> Result<bool, TrainError> {
    let generation = state.generation;
    let mut new = Ingested::default();
    let report = if run.local_selfplay {
        selfplay_round(run, trainer, state, generation, "main")?
    } else {
        wait_for_workers(run, state, replay, &mut new)?;
        Default::default()
    };
    if run.stopped() {
        return Ok(false);
    }
    ingest(run, replay, state, &mut new)?;
    record_selfplay(&mut run.metrics, &new.games, &report, trainer.steps());
    for (worker, games) in &state.games_by_worker {
        run.metrics.scalar(
            &format!("selfplay/games_by_worker/{worker}"),
            *games as f64,
            trainer.steps(),
        );
    }
    let target = training_steps(&run.config, replay.total(), new.samples);
    state.training = Some(TrainingPhase {
        start_steps: trainer.steps(),
        target_steps: target,
    });
    let workers = new
        .by_worker
        .iter()
        .map(|(w, g)| format!("{w} {g}"))
        .collect::<Vec<_>>()
        .join(", ");
    run.log(&format!(
        "generation {generation}: {} new games ({workers}), {} new samples, {} in total; training {target} steps",
        new.games.len(),
        new.samples,
        replay.total()
    ))?;
    Ok(true)
}

/// Checks what `config` names that would otherwise fail only later: the training device (a
/// device this build lacks), every rating baseline (built once: a missing evaluation file or
/// model), and with `tables` (a new run) the network it starts from (`training.start_from`)
/// and the endgame tables' folder (readable as tables for these rules, when it exists). A new run is checked before its folder is made, so that a bad setting leaves
/// nothing behind; a resumed run, in its own config.
fn check_settings(
    config: &TrainConfig,
    opts: &TrainOptions,
    tables: bool,
) -> Result<(), TrainError> {
    let device = device_by_name(&config.training.device)?;
    let registry = fanorona_net::player_registry(opts.backend.unwrap_or(config.training.inference));
    for (i, text) in config.evaluation.baselines.iter().enumerate() {
        let built = registry
            .parse(text)
            .map_err(|e| e.to_string())
            .and_then(|settings| registry.build(&settings, 0).map_err(|e| e.to_string()));
        if let Err(message) = built {
            return Err(TrainError::Setting {
                key: format!("evaluation.baselines[{i}]"),
                value: text.clone(),
                message,
            });
        }
    }
    if !tables {
        return Ok(());
    }
    let start_from = &config.training.start_from;
    if !start_from.is_empty() && config.kind == ModelKind::Network {
        Trainer::from_exported(trainer_config(config), Path::new(start_from), &device).map_err(
            |e| TrainError::Setting {
                key: "training.start_from".into(),
                value: start_from.clone(),
                message: e.to_string(),
            },
        )?;
    }
    let tables = opts
        .tablebases
        .as_ref()
        .map(|p| p.to_string_lossy().into_owned())
        .unwrap_or_else(|| config.tablebase.dir.clone());
    if !tables.is_empty() {
        let rules = fanorona_engine::Rules {
            no_progress_limit: config.rules.no_progress_limit,
        };
        // A folder not there yet is made by the build.
        fanorona_tablebase::Tablebase::open(std::path::Path::new(&tables), rules)?;
    }
    Ok(())
}

/// Takes the trainer's hold on the run (file lock or lease) and opens it: the lock, the run
/// directory, the config in force and whether the run is resumed.
fn open_for_training(
    config: &TrainConfig,
    opts: &TrainOptions,
) -> Result<(RunLock, RunDir, TrainConfig, bool), TrainError> {
    // A new run is checked against this build before its folder is made: a device the build
    // lacks would otherwise be archived in config.toml, and every later start would fail.
    Ok(match &opts.run_dir {
        RunLocation::Local(root) => {
            if !root.join("config.toml").exists() {
                check_settings(config, opts, true)?;
            }
            let lock = RunLock::acquire(root)?;
            let (dir, config, resumed) = RunDir::open(root, config, &lock)?;
            (lock, dir, config, resumed)
        }
        RunLocation::Store(url) => {
            let store = Arc::new(StoreRun::open(url).map_err(RunDirError::from)?);
            if !store.exists("config.toml").map_err(RunDirError::from)? {
                check_settings(config, opts, true)?;
            }
            let lock = RunLock::acquire_lease(Arc::clone(&store))?;
            let work = opts
                .work_dir
                .clone()
                .unwrap_or_else(|| default_cache_dir(url).join("trainer"));
            let (dir, config, resumed) = RunDir::open_store(store, &work, config, &lock)?;
            (lock, dir, config, resumed)
        }
    })
}

/// Shows `warning` and writes it to the run's log.
fn warn(run: &Run, warning: &str) -> Result<(), TrainError> {
    run.progress.line(&format!("warning: {warning}"));
    run.log(&format!("warning: {warning}"))?;
    Ok(())
}

/// Rates the newest checkpoint of either kind of model on the run's scale.
fn rate_learner(run: &mut Run, trainer: &Learner, state: &mut RunState) -> Result<(), TrainError> {
    match trainer {
        Learner::Network(t) => rate_checkpoint(run, t, state),
        Learner::Eval(t) => {
            let path = run
                .dir
                .fetch_checkpoint(&run.dir.checkpoint_path(t.steps()))?
                .unwrap_or_else(|| run.dir.checkpoint_path(t.steps()));
            rate_eval_checkpoint(run, &path, t.steps(), state)
        }
    }
}

/// Takes the run (its lock, its folder, the config in force) and opens it for training: the
/// lock, the run and whether it is resumed. A resumed run's errors of settings come from its
/// own `config.toml`, and say so.
fn start_training(
    config: &TrainConfig,
    opts: &TrainOptions,
) -> Result<(RunLock, Run, bool), TrainError> {
    let (lock, dir, mut config, resumed) = open_for_training(config, opts)?;
    if let Some(tables) = &opts.tablebases {
        config.tablebase.dir = tables.to_string_lossy().into_owned();
    }
    let run_config = dir.config_path();
    let own_config = |e: TrainError| match resumed {
        true => TrainError::RunConfig {
            path: run_config.clone(),
            source: Box::new(e),
        },
        false => e,
    };
    if resumed {
        // The tables are read (and their errors named) by `open_run` just below.
        check_settings(&config, opts, false).map_err(own_config)?;
    }
    let run = open_run(
        dir,
        config,
        opts.interactive,
        Arc::clone(&opts.stop),
        opts.selfplay,
        opts.backend,
    )
    .map_err(own_config)?;
    if let Some(warning) = lock.warning() {
        warn(&run, warning)?;
    }
    Ok((lock, run, resumed))
}

/// Run (or resume) training in `opts.run_dir` with `config` (on resume the run's own
/// `config.toml` is used instead).
pub fn train(config: &TrainConfig, opts: &TrainOptions) -> Result<TrainSummary, TrainError> {
    let (lock, mut run, resumed) = start_training(config, opts)?;
    let (mut trainer, mut state) = resume_or_start(&run)?;
    // The run's working time: what earlier sessions recorded, plus this one's.
    let clock = Instant::now();
    let seconds_before = state.seconds;
    let stamp =
        |state: &mut RunState| state.seconds = seconds_before + clock.elapsed().as_secs_f64();
    let mut replay = ReplayBuffer::new();
    rebuild_window(&run, &mut replay, &mut state)?;
    let mut last_checkpoint = None;
    if run.dir.checkpoints()?.is_empty() {
        // The starting network, published at once: self-play workers play with it.
        last_checkpoint = Some(run.save(&trainer, &state)?);
        run.dir.sync()?;
    }
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
        match &mut trainer {
            Learner::Network(t) => train_phase(&mut run, t, &state, phase, &replay)?,
            Learner::Eval(t) => eval_train_phase(&mut run, t, &state, phase, &replay)?,
        }
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
            rate_learner(&mut run, &trainer, &mut state)?;
            last_checkpoint = Some(run.save(&trainer, &state)?);
        }
        run.metrics.flush();
        if let Some(warning) = run.metrics.take_warning() {
            warn(&run, &warning)?;
        }
        run.dir.sync()?;
        generations_run += 1;
    }
    run.progress.finish();
    run.metrics.flush();
    run.log(&format!(
        "stop at generation {} ({} steps)",
        state.generation,
        trainer.steps()
    ))?;
    run.dir.sync()?;
    drop(lock);
    Ok(TrainSummary {
        generation: state.generation,
        steps: trainer.steps(),
        resumed,
        checkpoint: last_checkpoint,
    })
}

/// `fanorona selfplay`: play games for a run that a trainer (maybe on another machine sharing
/// the directory or the store) is training, with the newest checkpoint, as worker `worker`,
/// until stopped. `work_dir` is, for a run on a store, this process's local folder for it.
///
/// Failures to reach the store (after each request's own retries) are retried with backoff,
/// 5 s doubling to a minute; ten in a row end the worker with the error.
pub fn selfplay_worker(
    run_dir: &RunLocation,
    worker: &str,
    work_dir: Option<PathBuf>,
    stop: Arc<AtomicBool>,
    interactive: bool,
    backend: Option<Backend>,
) -> Result<u64, TrainError> {
    let work = match (run_dir, work_dir) {
        (RunLocation::Store(url), None) => {
            Some(default_cache_dir(url).join(format!("worker-{worker}")))
        }
        (_, work) => work,
    };
    let (dir, config) = RunDir::open_existing(run_dir, work.as_deref())?;
    let mut run = open_run(dir, config, interactive, stop, true, backend)?;
    let mut games = 0;
    let mut last_generation = None;
    let mut failures = 0u32;
    while !run.stopped() {
        match worker_round(&mut run, worker, &mut last_generation) {
            Ok(played) => {
                games += played;
                failures = 0;
            }
            Err(e) if run.dir.is_remote() && failures < 10 => {
                failures += 1;
                let wait = Duration::from_secs((5u64 << (failures - 1).min(4)).min(60));
                run.progress.line(&format!(
                    "worker {worker}: {e}; trying again in {} s ({failures} of 10)",
                    wait.as_secs()
                ));
                sleep_unless(&run, wait);
            }
            Err(e) => return Err(e),
        }
    }
    run.progress.finish();
    Ok(games)
}

/// One round of a worker: the newest checkpoint's generation played (its unplayed part), or a
/// short wait for the trainer. Returns the games played.
fn worker_round(
    run: &mut Run,
    worker: &str,
    last_generation: &mut Option<(u64, u64)>,
) -> Result<u64, TrainError> {
    let Some((trainer, state, path)) = run.load_latest()? else {
        run.progress
            .line("waiting for the trainer's first checkpoint...");
        sleep_unless(run, Duration::from_secs(5));
        return Ok(0);
    };
    let generation = state.generation;
    let (_, done) = run.dir.shards_written(generation, worker)?;
    if done >= run.config.selfplay.games_per_generation as u64
        || *last_generation == Some((generation, trainer.steps())) && done > 0
    {
        // This generation's share is played: wait for the trainer to move on.
        sleep_unless(run, Duration::from_secs(2));
        return Ok(0);
    }
    run.progress.line(&format!(
        "worker {worker}: generation {generation} with {}",
        path.file_name().map_or_else(
            || path.display().to_string(),
            |n| n.to_string_lossy().into_owned()
        )
    ));
    let report = selfplay_round(run, &trainer, &state, generation, worker)?;
    *last_generation = Some((generation, trainer.steps()));
    Ok(report.games)
}

fn sleep_unless(run: &Run, total: Duration) {
    let end = Instant::now() + total;
    while Instant::now() < end && !run.stopped() {
        std::thread::sleep(Duration::from_millis(100));
    }
}
