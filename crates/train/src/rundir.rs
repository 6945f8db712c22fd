//! The run directory: everything a training run writes, and what resuming reads back.
//!
//! ```text
//! runs/<name>/
//!   config.toml        the config this run uses (on resume this copy is authoritative)
//!   meta.json          program version, git revision, start time, command line
//!   train.log          human-readable log, one line per event
//!   ratings.csv        evaluation results: checkpoint, opponent, W/D/L, score, Elo and 95% CI
//!   selfplay/          replay shards, sp-g<generation>-<worker>-<seq>-n<games>.shard
//!   checkpoints/       ckpt-<steps>.ckpt (model, optimizer, counters, run state; with gating
//!                      the run state names the best checkpoint)
//!   tensorboard/       TensorBoard event files
//!   train.lock         held (an OS file lock) by the one trainer of the run
//! ```
//!
//! Stages talk only through this directory, so a `fanorona selfplay` process on another
//! machine sharing it can feed the same trainer. One trainer at a time: `fanorona train` takes
//! the lock on `train.lock` ([`RunLock`]) before it reads or writes anything else, and the
//! operating system releases it however the trainer ends; self-play workers take no lock.

use std::fs::{self, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use crate::config::{ConfigError, TrainConfig};

/// Errors of the run directory.
#[derive(Debug, thiserror::Error)]
pub enum RunDirError {
    /// A file operation failed.
    #[error("{path}: {error}")]
    Io {
        /// The path involved.
        path: PathBuf,
        /// The underlying error.
        error: std::io::Error,
    },
    /// The archived config is invalid.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// Something else is wrong with the directory.
    #[error("{0}")]
    Other(String),
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> RunDirError + '_ {
    move |error| RunDirError::Io {
        path: path.to_path_buf(),
        error,
    }
}

/// Written once when a run starts.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RunMeta {
    /// `fanorona` version.
    pub program_version: String,
    /// Git revision the binary was built from (`unknown` outside a checkout).
    pub git_revision: String,
    /// Seconds since the Unix epoch.
    pub started_unix: u64,
    /// The command line.
    pub command: Vec<String>,
}

/// A run directory.
#[derive(Clone, Debug)]
pub struct RunDir {
    root: PathBuf,
}

/// The trainer's lock on a run directory: held while the value lives, released when it is
/// dropped or the process ends in any way (the operating system's file lock on `train.lock`).
#[derive(Debug)]
pub struct RunLock {
    _file: fs::File,
    /// Set when the file system cannot lock files (some NFS mounts): no lock is held.
    unsupported: Option<String>,
}

/// Highest step count a checkpoint's name may carry: names beyond it (which no run reaches:
/// a million steps a day for 2,700 years) are ignored rather than taken as the newest.
pub const MAX_CHECKPOINT_STEPS: u64 = 999_999_999_999;

impl RunLock {
    /// The file holding the lock.
    pub const FILE: &'static str = "train.lock";

    /// Takes the trainer's lock on the run in `root` (creating the folder if needed), or says
    /// that another trainer holds it, with the process id it recorded.
    pub fn acquire(root: &Path) -> Result<RunLock, RunDirError> {
        fs::create_dir_all(root).map_err(io(root))?;
        let path = root.join(Self::FILE);
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(io(&path))?;
        match file.try_lock() {
            Ok(()) => {}
            Err(fs::TryLockError::WouldBlock) => {
                let holder = fs::read_to_string(&path).unwrap_or_default();
                let holder = holder.trim();
                return Err(RunDirError::Other(format!(
                    "{} is in use by another trainer{} ({} is locked); one trainer per run \
                     (self-play workers may join it with `fanorona selfplay`)",
                    root.display(),
                    if holder.is_empty() {
                        String::new()
                    } else {
                        format!(" (process {holder})")
                    },
                    path.display()
                )));
            }
            // Some network file systems cannot lock: train without the lock, and say so.
            Err(fs::TryLockError::Error(e))
                if e.kind() == std::io::ErrorKind::Unsupported || e.raw_os_error() == Some(37) =>
            {
                return Ok(RunLock {
                    _file: file,
                    unsupported: Some(format!(
                        "{} cannot be locked ({e}): make sure no other trainer runs on {}",
                        path.display(),
                        root.display()
                    )),
                });
            }
            Err(fs::TryLockError::Error(e)) => return Err(io(&path)(e)),
        }
        // Record who holds it, for the message above; the lock itself is what counts.
        let pid = std::process::id().to_string();
        file.set_len(0)
            .and_then(|()| file.write_all(pid.as_bytes()))
            .map_err(io(&path))?;
        Ok(RunLock {
            _file: file,
            unsupported: None,
        })
    }

    /// Why no lock is held although this value exists (a file system without locks), to be
    /// shown to the user.
    pub fn warning(&self) -> Option<&str> {
        self.unsupported.as_deref()
    }
}

/// The git revision baked in at build time.
pub fn git_revision() -> &'static str {
    option_env!("FANORONA_GIT_REVISION").unwrap_or("unknown")
}

/// Write `bytes` to `path` atomically (the project's one atomic write,
/// [`fanorona_data::write_atomic`]).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), RunDirError> {
    fanorona_data::write_atomic(path, bytes).map_err(|e| match e {
        fanorona_data::AtomicWriteError::Io { path, error } => RunDirError::Io { path, error },
        other => RunDirError::Other(other.to_string()),
    })
}

impl RunDir {
    /// Open `root` as a run: create it for a new run (archiving `config`), or, when it already
    /// holds a run, read its own `config.toml` back. Returns the directory, the config to use
    /// and whether the run is resumed.
    ///
    /// Taking `_lock` proves the caller holds the run's [`RunLock`].
    pub fn open(
        root: &Path,
        config: &TrainConfig,
        _lock: &RunLock,
    ) -> Result<(RunDir, TrainConfig, bool), RunDirError> {
        let dir = RunDir {
            root: root.to_path_buf(),
        };
        let archived = dir.config_path();
        if archived.exists() {
            let used = TrainConfig::load(&archived)?;
            dir.remove_stale_temporaries();
            return Ok((dir, used, true));
        }
        let other_entry = fs::read_dir(root)
            .map_err(io(root))?
            .filter_map(|e| e.ok())
            .any(|e| e.file_name() != RunLock::FILE);
        if other_entry {
            return Err(RunDirError::Other(format!(
                "{} exists and is not a run directory (no config.toml); choose another --run-dir",
                root.display()
            )));
        }
        for sub in [
            dir.selfplay_dir(),
            dir.checkpoint_dir(),
            dir.tensorboard_dir(),
        ] {
            fs::create_dir_all(&sub).map_err(io(&sub))?;
        }
        let meta = RunMeta {
            program_version: env!("CARGO_PKG_VERSION").to_string(),
            git_revision: git_revision().to_string(),
            started_unix: SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| d.as_secs()),
            command: std::env::args().collect(),
        };
        let meta_json = serde_json::to_string_pretty(&meta)
            .map_err(|e| RunDirError::Other(format!("cannot write meta.json: {e}")))?;
        write_atomic(&dir.root.join("meta.json"), meta_json.as_bytes())?;
        let text = format!(
            "# The config of this run. On resume this file is used; edit it here to change settings.\n{}",
            config.to_toml()?
        );
        write_atomic(&archived, text.as_bytes())?;
        Ok((dir, config.clone(), false))
    }

    /// Open an existing run (for `fanorona selfplay`), reading its config.
    pub fn open_existing(root: &Path) -> Result<(RunDir, TrainConfig), RunDirError> {
        let dir = RunDir {
            root: root.to_path_buf(),
        };
        if !dir.config_path().exists() {
            return Err(RunDirError::Other(format!(
                "{} is not a run directory (no config.toml); start one with `fanorona train`",
                root.display()
            )));
        }
        let config = TrainConfig::load(&dir.config_path())?;
        for sub in [dir.selfplay_dir(), dir.checkpoint_dir()] {
            fs::create_dir_all(&sub).map_err(io(&sub))?;
        }
        Ok((dir, config))
    }

    /// Delete temporary files that writers killed mid-write left behind (`.name.*.tmp`): at
    /// once in the run's root and `checkpoints/`, which only the trainer (holding the lock)
    /// writes; in `selfplay/` only when older than ten minutes, so that a live worker on another
    /// machine is never disturbed.
    fn remove_stale_temporaries(&self) {
        let old = std::time::Duration::from_secs(600);
        for (dir, min_age) in [
            (self.root.clone(), std::time::Duration::ZERO),
            (self.checkpoint_dir(), std::time::Duration::ZERO),
            (self.selfplay_dir(), old),
        ] {
            for entry in fs::read_dir(&dir)
                .into_iter()
                .flatten()
                .filter_map(|e| e.ok())
            {
                let name = entry.file_name().to_string_lossy().into_owned();
                let stale = entry
                    .metadata()
                    .and_then(|m| m.modified())
                    .ok()
                    .and_then(|t| t.elapsed().ok())
                    .is_some_and(|age| age >= min_age);
                if name.starts_with('.') && name.ends_with(".tmp") && stale {
                    let _ = fs::remove_file(entry.path());
                }
            }
        }
    }

    /// The run's root folder.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// `config.toml`.
    pub fn config_path(&self) -> PathBuf {
        self.root.join("config.toml")
    }

    /// `selfplay/`.
    pub fn selfplay_dir(&self) -> PathBuf {
        self.root.join("selfplay")
    }

    /// `checkpoints/`.
    pub fn checkpoint_dir(&self) -> PathBuf {
        self.root.join("checkpoints")
    }

    /// `tensorboard/`.
    pub fn tensorboard_dir(&self) -> PathBuf {
        self.root.join("tensorboard")
    }

    /// `ratings.csv`.
    pub fn ratings_path(&self) -> PathBuf {
        self.root.join("ratings.csv")
    }

    /// Append a line to `train.log` (with a timestamp).
    pub fn log(&self, line: &str) -> Result<(), RunDirError> {
        let path = self.root.join("train.log");
        let secs = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        let mut f = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .map_err(io(&path))?;
        writeln!(f, "{secs} {line}").map_err(io(&path))
    }

    /// The path of the checkpoint after `steps` optimiser steps.
    pub fn checkpoint_path(&self, steps: u64) -> PathBuf {
        self.checkpoint_dir().join(format!("ckpt-{steps:09}.ckpt"))
    }

    /// Checkpoints on disk, oldest first, with their step counts.
    pub fn checkpoints(&self) -> Vec<(u64, PathBuf)> {
        let mut out: Vec<(u64, PathBuf)> = fs::read_dir(self.checkpoint_dir())
            .into_iter()
            .flatten()
            .filter_map(|e| e.ok())
            .filter_map(|e| {
                let name = e.file_name().to_string_lossy().into_owned();
                let steps: u64 = name
                    .strip_prefix("ckpt-")?
                    .strip_suffix(".ckpt")?
                    .parse()
                    .ok()?;
                (steps <= MAX_CHECKPOINT_STEPS).then(|| (steps, e.path()))
            })
            .collect();
        out.sort();
        out
    }

    /// Delete old checkpoints: keep the newest `keep` and every one in `protected`. A file
    /// already gone (another process pruned it) is no error.
    pub fn prune_checkpoints(&self, keep: usize, protected: &[PathBuf]) -> Result<(), RunDirError> {
        let all = self.checkpoints();
        let cut = all.len().saturating_sub(keep);
        for (_, path) in &all[..cut] {
            if protected.contains(path) {
                continue;
            }
            match fs::remove_file(path) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(io(path)(e)),
                _ => {}
            }
        }
        Ok(())
    }

    /// The shard file name for the `seq`-th shard of `generation` written by `worker`,
    /// holding `games` games.
    pub fn shard_path(&self, generation: u64, worker: &str, seq: u64, games: u64) -> PathBuf {
        self.selfplay_dir().join(format!(
            "sp-g{generation:06}-{worker}-{seq:05}-n{games:04}.shard"
        ))
    }

    /// Shards and games of `generation` by `worker` already on disk (from the shard names).
    pub fn shards_written(&self, generation: u64, worker: &str) -> (u64, u64) {
        let prefix = format!("sp-g{generation:06}-{worker}-");
        fs::read_dir(self.selfplay_dir())
            .into_iter()
            .flatten()
            .filter_map(|e| e.ok())
            .filter_map(|e| {
                let name = e.file_name().to_string_lossy().into_owned();
                let rest = name
                    .strip_prefix(&prefix)?
                    .strip_suffix(".shard")?
                    .to_string();
                let (_, games) = rest.split_once("-n")?;
                games.parse::<u64>().ok()
            })
            .fold((0, 0), |(shards, games), n| (shards + 1, games + n))
    }
}
