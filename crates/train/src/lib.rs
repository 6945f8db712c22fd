//! The self-play training pipeline behind `fanorona train` and `fanorona selfplay`.
//!
//! - [`config`]: the TOML config file, validated key by key.
//! - [`rundir`]: the run directory (config copy, metadata, log, shards, checkpoints,
//!   TensorBoard, ratings) that every stage reads and writes.
//! - [`selfplay`]: many games at once with one batched network evaluator; playout cap
//!   randomisation and resignation.
//! - [`replay`]: samples, the shard file format, the replay window and batch sampling with
//!   symmetry augmentation.
//! - [`pipeline`]: the generation loop (self-play, ingest, training, checkpoints, ratings),
//!   resumable after any interruption, and the stand-alone self-play worker.
//! - [`eval`]: rating matches against fixed baselines and the previous network.
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
//!     generations: Some(2),
//!     interactive: false,
//!     stop: Arc::new(AtomicBool::new(false)),
//! };
//! let summary = train(&config, &options).unwrap();
//! println!("{} generations, {} steps", summary.generation, summary.steps);
//! ```

pub mod config;
pub mod eval;
pub mod metrics;
pub mod pipeline;
pub mod replay;
pub mod rundir;
pub mod selfplay;

pub use config::{ConfigError, TrainConfig};
pub use pipeline::{RunState, TrainError, TrainOptions, TrainSummary, selfplay_worker, train};
pub use rundir::RunDir;
