//! The self-play training pipeline behind `fanorona train` and `fanorona selfplay`.
//!
//! - [`config`]: the TOML config file, validated key by key; its `[model]` section is the
//!   network crate's `NetConfig` itself.
//! - [`rundir`]: the run directory (config copy, metadata, log, shards, checkpoints,
//!   TensorBoard, ratings) that every stage reads and writes.
//! - [`store`]: runs on object storage (`s3://bucket/prefix` and the other stores of the
//!   `object_store` crate): the store client, the trainer's lease, the local cache.
//! - [`run`]: [`Run`], the context of a training process (directory, config, device, progress,
//!   metrics, stop flag), and [`RunState`], where a run stands, kept in every checkpoint.
//! - [`selfplay`]: the per-game policy of a self-play game (playout cap randomisation,
//!   resignation, the action cap), played by `fanorona_mcts::scheduler`.
//! - [`selfplay_phase`], [`training_phase`], [`rating`]: the three phases of a generation
//!   (self-play into shards; optimiser steps on the window; rating and gating).
//! - [`replay`]: samples, the shard file format, the replay window and batch sampling with
//!   symmetry augmentation.
//! - [`pipeline`]: the generation loop, resumable after any interruption, and the stand-alone
//!   self-play worker.
//! - [`metrics`]: TensorBoard scalars and the progress display.
//!
//! ```no_run
//! use std::sync::Arc;
//! use std::sync::atomic::AtomicBool;
//! use fanorona_train::{TrainConfig, TrainOptions, train};
//!
//! let config = TrainConfig::load("configs/tiny.toml".as_ref()).unwrap();
//! let options = TrainOptions {
//!     run_dir: "runs/tiny".into(),
//!     work_dir: None,
//!     selfplay: true,
//!     generations: Some(2),
//!     interactive: false,
//!     stop: Arc::new(AtomicBool::new(false)),
//!     tablebases: None,
//!     backend: None,
//! };
//! let summary = train(&config, &options).unwrap();
//! println!("{} generations, {} steps", summary.generation, summary.steps);
//! ```

pub mod config;
pub mod evalplay;
pub mod expert;
pub mod metrics;
pub mod pipeline;
pub mod rating;
pub mod replay;
pub mod run;
pub mod rundir;
pub mod selfplay;
pub mod selfplay_phase;
pub mod store;
pub mod training_phase;

pub use config::{ConfigError, TrainConfig};
pub use pipeline::{TrainOptions, TrainSummary, selfplay_worker, train};
pub use run::{Run, RunState, TrainError};
pub use rundir::{RunDir, RunLock};
pub use store::RunLocation;
pub use training_phase::MAX_NON_FINITE_BATCHES;
