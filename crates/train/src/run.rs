//! The context of a running training process: [`Run`] holds the run directory, the config in
//! force, the device, the progress display, the TensorBoard writer and the stop flag, so the
//! phases take one argument instead of eight. [`RunState`] is where a run stands, stored in
//! every checkpoint; [`Run::save`] and [`Run::load_latest`] write and read those checkpoints.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use fanorona_engine::Rules;
use fanorona_net::{Device, EvalTrainer, NetError, Trainer};
use serde::{Deserialize, Serialize};

use crate::config::{ModelKind, TrainConfig};
use crate::metrics::{Metrics, Progress};
use crate::rundir::{RunDir, RunDirError};

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
    /// The self-play search settings were rejected, or the network failed.
    #[error("self-play: {0}")]
    Search(#[from] fanorona_mcts::scheduler::ScheduleError),
    /// A self-play thread could not be started or died.
    #[error("self-play thread: {0}")]
    Thread(String),
    /// The run state could not be written into a checkpoint.
    #[error("cannot encode the run state: {0}")]
    State(String),
    /// The loss stayed non-finite batch after batch: the network diverged.
    #[error(
        "training diverged at step {step}: the loss was not finite for {batches} batches in a row (lower training.learning_rate, or check the replay shards); the last checkpoint is intact"
    )]
    Diverged {
        /// The optimiser step that could not be taken.
        step: u64,
        /// Batches tried.
        batches: u32,
    },
    /// The endgame tables could not be built or read.
    #[error("endgame tables (config key tablebase.dir): {0}")]
    Tablebase(#[from] fanorona_tablebase::TableError),
    /// A setting that names something unusable (a baseline whose evaluation file is missing),
    /// found when the run starts instead of at its first rating.
    #[error("config key {key} = {value:?}: {message}")]
    Setting {
        /// The key, as `evaluation.baselines[1]`.
        key: String,
        /// Its value.
        value: String,
        /// What is wrong.
        message: String,
    },
    /// A resumed run's own config (not the one given) could not be used.
    #[error(
        "{source} (from the run's own config {}: a resumed run uses it, not --config; correct it there)",
        path.display()
    )]
    RunConfig {
        /// The run's `config.toml`.
        path: PathBuf,
        /// What went wrong with it.
        source: Box<TrainError>,
    },
}

/// Where a run stands, stored in every checkpoint.
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
    /// The shards ingested so far, by name: on resume the window is rebuilt from these, and
    /// any other shard is new (so each is counted once, whenever the trainer stopped).
    #[serde(default)]
    pub ingested: std::collections::BTreeSet<String>,
    /// Games ingested from each self-play worker (by the worker name in the shard names).
    #[serde(default)]
    pub games_by_worker: std::collections::BTreeMap<String, u64>,
    /// Wall-clock seconds the run has been at work (self-play, training and rating, summed
    /// over every resume) when this state was saved: the time axis of a rating curve.
    #[serde(default)]
    pub seconds: f64,
    /// An evaluation run's teacher: the self-play depth now and what decides the next.
    #[serde(default)]
    pub teacher: crate::evalplay::Teacher,
}

/// The training part of a generation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TrainingPhase {
    /// Optimiser steps when it started.
    pub start_steps: u64,
    /// Steps to take.
    pub target_steps: u64,
}

/// What a run trains: the network, or the alpha-beta player's evaluation (`kind`).
#[derive(Debug)]
// One per run, moved rarely: boxing the larger trainer would buy nothing.
#[allow(clippy::large_enum_variant)]
pub enum Learner {
    /// The policy/value network.
    Network(Trainer),
    /// The learned evaluation.
    Eval(EvalTrainer),
}

impl Learner {
    /// Optimiser steps so far.
    pub fn steps(&self) -> u64 {
        match self {
            Learner::Network(t) => t.steps(),
            Learner::Eval(t) => t.steps(),
        }
    }
}

/// A training process at work on a run directory.
pub struct Run {
    /// The run directory.
    pub dir: RunDir,
    /// The config in force (the run's own `config.toml`).
    pub config: TrainConfig,
    /// The compute device.
    pub device: Device,
    /// The progress display.
    pub progress: Progress,
    /// TensorBoard scalars.
    pub metrics: Metrics,
    /// Set to stop cleanly (Ctrl-C).
    pub stop: Arc<AtomicBool>,
    /// Endgame tables for self-play (`[tablebase]`), with their count of decided positions.
    pub tables: Option<Arc<fanorona_players::SearchTables>>,
    /// Whether the trainer plays self-play games itself (`false`: it waits for workers').
    pub local_selfplay: bool,
    /// How networks run on the CPU (the config's `training.inference` or `--backend`).
    pub backend: fanorona_net::Backend,
    /// The value teacher of `training.value_teacher`, when set.
    pub teacher: Option<Teacher>,
    /// The expert of `[expert]`, when the run has an expert phase.
    pub expert: Option<crate::expert::Expert>,
}

/// A stronger search judging every ingested sample for the network's value target
/// (`training.value_teacher`): the alpha-beta judge with a learned evaluation.
pub struct Teacher {
    judge: std::sync::Mutex<fanorona_players::LeafJudge>,
    scale: f32,
}

impl Teacher {
    /// The teacher of `config`'s `[training]`, or `None` when it names none.
    pub fn of(config: &TrainConfig) -> Result<Option<Teacher>, TrainError> {
        let t = &config.training;
        let source = match t.value_teacher.as_str() {
            "" => return Ok(None),
            fanorona_specs::SHIPPED_EVAL => fanorona_specs::EvalSource::Shipped,
            path => fanorona_specs::EvalSource::File(PathBuf::from(path)),
        };
        let eval = fanorona_specs::load_evaluation(&source).map_err(|e| {
            TrainError::State(format!(
                "training.value_teacher = {:?}: {e}",
                t.value_teacher
            ))
        })?;
        Ok(Some(Teacher {
            judge: std::sync::Mutex::new(
                fanorona_players::LeafJudge::new(
                    t.value_teacher_depth,
                    fanorona_players::mix::LeafMix::QUIESCENCE,
                )
                .with_evaluation(eval),
            ),
            scale: t.value_teacher_scale,
        }))
    }

    /// The teacher's value of `pos` for its mover, in `[-1, 1]`.
    pub fn value(
        &self,
        pos: &fanorona_engine::Position,
        rules: Rules,
        tables: Option<&fanorona_tablebase::Tablebase>,
    ) -> Option<f32> {
        let mut judge = self.judge.lock().ok()?;
        Some(match judge.judge(pos, rules.no_progress_limit, tables) {
            fanorona_players::Judgement::Win => 1.0,
            fanorona_players::Judgement::Loss => -1.0,
            fanorona_players::Judgement::Score(s) => (s as f32 / self.scale).tanh(),
        })
    }
}

impl Run {
    /// Whether a stop was asked for.
    pub fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    /// The rules of the run's games.
    pub fn rules(&self) -> Rules {
        Rules {
            no_progress_limit: self.config.rules.no_progress_limit,
        }
    }

    /// Writes `line` to `train.log`.
    pub fn log(&self, line: &str) -> Result<(), TrainError> {
        Ok(self.dir.log(line)?)
    }

    /// Shows `line` to the user and writes it to `train.log`.
    pub fn say(&self, line: &str) -> Result<(), TrainError> {
        self.progress.line(line);
        self.log(line)
    }

    /// Writes a checkpoint of `trainer` and `state`, then prunes old checkpoints (keeping the
    /// newest few, every rated one and the gating best).
    pub fn save(&self, trainer: &Learner, state: &RunState) -> Result<PathBuf, TrainError> {
        match trainer {
            Learner::Network(t) => self.save_network(t, state),
            Learner::Eval(t) => self.save_eval(t, state),
        }
    }

    /// [`Run::save`] of a network run's trainer.
    pub fn save_network(&self, t: &Trainer, state: &RunState) -> Result<PathBuf, TrainError> {
        self.save_with(t.steps(), state, |path, extra| {
            t.save_checkpoint(path, extra)
        })
    }

    /// [`Run::save`] of an evaluation run's trainer.
    pub fn save_eval(&self, t: &EvalTrainer, state: &RunState) -> Result<PathBuf, TrainError> {
        let meta = fanorona_eval::EvalMeta {
            training_steps: t.steps(),
            games: state.games_seen,
            label: self.config.name.clone(),
        };
        self.save_with(t.steps(), state, |path, extra| {
            t.save_checkpoint(path, extra, &meta)
        })
    }

    fn save_with(
        &self,
        steps: u64,
        state: &RunState,
        write: impl FnOnce(&std::path::Path, &[u8]) -> Result<(), NetError>,
    ) -> Result<PathBuf, TrainError> {
        let path = self.dir.checkpoint_file(steps)?;
        let extra = serde_json::to_vec(state).map_err(|e| TrainError::State(e.to_string()))?;
        write(&path, &extra)?;
        self.dir.publish_checkpoint(&path, steps)?;
        let mut protected: Vec<PathBuf> = state
            .rated
            .iter()
            .map(|&s| self.dir.checkpoint_path(s))
            .collect();
        if let Some(best) = state.best {
            protected.push(self.dir.checkpoint_path(best));
        }
        self.dir
            .prune_checkpoints(self.config.checkpoints.keep, &protected)?;
        Ok(path)
    }

    /// Loads the newest readable checkpoint of the run, falling back to older ones (a corrupt
    /// file is reported and skipped, never fatal while an older one exists).
    pub fn load_latest(&self) -> Result<Option<(Learner, RunState, PathBuf)>, TrainError> {
        for (_, path) in self.dir.checkpoints()?.into_iter().rev() {
            // Pruned by the trainer since the listing: try the next.
            let Some(path) = self.dir.fetch_checkpoint(&path)? else {
                continue;
            };
            let loaded = match self.config.kind {
                ModelKind::Network => Trainer::load_checkpoint(&path, &self.device)
                    .map(|(t, extra)| (Learner::Network(t), extra)),
                ModelKind::Eval => EvalTrainer::load_checkpoint(&path, &self.device)
                    .map(|(t, extra)| (Learner::Eval(t), extra)),
            };
            match loaded {
                Ok((trainer, extra)) => match serde_json::from_slice::<RunState>(&extra) {
                    Ok(state) => return Ok(Some((trainer, state, path))),
                    Err(e) => self.say(&format!(
                        "warning: {}: bad run state ({e}); trying an older checkpoint",
                        path.display()
                    ))?,
                },
                Err(e) => self.say(&format!("warning: {e}; trying an older checkpoint"))?,
            }
        }
        Ok(None)
    }

    /// The network self-play uses: the newest, or with gating the best rated one.
    pub fn selfplay_model(
        &self,
        trainer: &Trainer,
        state: &RunState,
    ) -> Result<fanorona_net::InferenceModel, TrainError> {
        if let Some(best) = state.best.filter(|&b| b != trainer.steps()) {
            let path = self
                .dir
                .fetch_checkpoint(&self.dir.checkpoint_path(best))?
                .unwrap_or_else(|| self.dir.checkpoint_path(best));
            match Trainer::load_checkpoint(&path, &self.device) {
                Ok((best_trainer, _)) => return Ok(best_trainer.inference_model(self.backend)),
                Err(e) => self.say(&format!(
                    "warning: cannot load the best checkpoint ({e}); using the newest"
                ))?,
            }
        }
        Ok(trainer.inference_model(self.backend))
    }
}
