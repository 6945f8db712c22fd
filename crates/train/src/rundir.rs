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
//!
//! The run may also live on an object store (`s3://bucket/prefix`, see [`crate::store`]): the
//! same layout as objects, a lease object (`train.lease`) instead of the file lock, and a local
//! working folder per process holding the trainer's log and TensorBoard files (copied up after
//! every generation) and a bounded cache of downloaded checkpoints and shards.

use std::fs::{self, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use crate::config::{ConfigError, TrainConfig};
use crate::replay::{ReplayError, Shard};
use crate::store::{Cache, Lease, RunLocation, StoreRun};

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
    /// The object store of a run on one.
    #[error(transparent)]
    Store(#[from] crate::store::StoreError),
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

/// A run directory: a local folder, or a run on an object store with a local working folder.
#[derive(Clone, Debug)]
pub struct RunDir {
    /// The run's folder, or for a run on a store this process's working folder for it.
    root: PathBuf,
    remote: Option<Remote>,
}

/// The store side of a run on an object store.
#[derive(Clone, Debug)]
struct Remote {
    run: Arc<StoreRun>,
    cache: Cache,
    /// The trainer's lease: once it no longer holds, nothing more may be written.
    lease: Option<Arc<crate::store::LeaseState>>,
}

impl Remote {
    /// The store side of a run whose process works in `work` (the cache in `work/cache`).
    fn new(
        run: Arc<StoreRun>,
        work: &Path,
        lease: Option<Arc<crate::store::LeaseState>>,
    ) -> Remote {
        Remote {
            cache: Cache::new(work.join("cache"), crate::store::default_cache_bytes()),
            run,
            lease,
        }
    }

    /// The local file of immutable object `name` (a checkpoint or shard), downloaded into the
    /// cache unless it is there; `None` when the store has no such object.
    fn fetch(&self, name: &str) -> Result<Option<PathBuf>, RunDirError> {
        Ok(self
            .cache
            .get_or_fetch(name, || Ok(self.run.get(name)?.map(|(bytes, _)| bytes)))?)
    }
}

/// The trainer's hold on a run: for a local folder, the operating system's file lock on
/// `train.lock` (released when the value is dropped or the process ends in any way); for a run
/// on a store, a [`Lease`].
#[derive(Debug)]
pub struct RunLock {
    _file: Option<fs::File>,
    lease: Option<Lease>,
    /// Set when the file system cannot lock files (some NFS mounts): no lock is held.
    unsupported: Option<String>,
}

/// Highest step count a checkpoint's name may carry: names beyond it (which no run reaches:
/// a million steps a day for 2,700 years) are ignored rather than taken as the newest.
pub const MAX_CHECKPOINT_STEPS: u64 = 999_999_999_999;

/// The run at `location` opened for reading; for a run on a store, its local folder is `work`
/// (default [`crate::store::default_cache_dir`]`/reader`).
fn open_reader(location: &RunLocation, work: Option<&Path>) -> Result<RunDir, RunDirError> {
    let work = match location {
        RunLocation::Store(url) => Some(
            work.map(Path::to_path_buf)
                .unwrap_or_else(|| crate::store::default_cache_dir(url).join("reader")),
        ),
        RunLocation::Local(_) => None,
    };
    Ok(RunDir::open_existing(location, work.as_deref())?.0)
}

/// The checkpoints of the run at `location`, oldest first, readable at the paths given: a
/// run on a store has each downloaded into this process's cache (under `work`, see
/// [`open_reader`]). For `fanorona rate`.
pub fn fetch_checkpoints(
    location: &RunLocation,
    work: Option<&Path>,
) -> Result<Vec<(u64, PathBuf)>, RunDirError> {
    let dir = open_reader(location, work)?;
    let mut out = Vec::new();
    for (steps, path) in dir.checkpoints()? {
        if let Some(path) = dir.fetch_checkpoint(&path)? {
            out.push((steps, path));
        }
    }
    if out.is_empty() {
        return Err(RunDirError::Other(format!(
            "{location}: the run has no checkpoints yet"
        )));
    }
    Ok(out)
}

/// The checkpoint of the run at `location` after `steps` steps (the newest when `None`),
/// readable at the path given: for a run on a store, only that one is downloaded (for
/// `fanorona export`).
pub fn checkpoint_of(
    location: &RunLocation,
    work: Option<&Path>,
    steps: Option<u64>,
) -> Result<(u64, PathBuf), RunDirError> {
    let dir = open_reader(location, work)?;
    let all = dir.checkpoints()?;
    let found = match steps {
        Some(n) => all.into_iter().find(|(s, _)| *s == n),
        None => all.into_iter().next_back(),
    };
    let missing = || match steps {
        Some(n) => RunDirError::Other(format!("{location}: no checkpoint after {n} steps")),
        None => RunDirError::Other(format!("{location}: the run has no checkpoints yet")),
    };
    let (steps, path) = found.ok_or_else(missing)?;
    let path = dir.fetch_checkpoint(&path)?.ok_or_else(missing)?;
    Ok((steps, path))
}

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
                    _file: Some(file),
                    lease: None,
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
            _file: Some(file),
            lease: None,
            unsupported: None,
        })
    }

    /// Takes the trainer's lease on a run on a store (see [`Lease`]); for a store kept in a
    /// folder of this machine (`file://`), the file lock in that folder first, the lock a
    /// trainer naming the folder by its path takes ([`RunLocation::folder`]).
    pub fn acquire_lease(run: Arc<StoreRun>) -> Result<RunLock, RunDirError> {
        let local = match RunLocation::parse(run.url()).folder() {
            Some(folder) => Some(RunLock::acquire(&folder)?),
            None => None,
        };
        let (file, unsupported) = local.map_or((None, None), |l| (l._file, l.unsupported));
        Ok(RunLock {
            _file: file,
            lease: Some(Lease::acquire(run)?),
            unsupported,
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
            remote: None,
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
        dir.create_layout()?;
        dir.write_new_run_files(config)?;
        Ok((dir, config.clone(), false))
    }

    /// Open the run on a store that `run` reaches, for its trainer holding `lock` (a lease),
    /// with `work` as this process's local folder for it: like [`RunDir::open`].
    pub fn open_store(
        run: Arc<StoreRun>,
        work: &Path,
        config: &TrainConfig,
        lock: &RunLock,
    ) -> Result<(RunDir, TrainConfig, bool), RunDirError> {
        let lease = lock.lease.as_ref().map(Lease::state);
        let dir = RunDir {
            root: work.to_path_buf(),
            remote: Some(Remote::new(Arc::clone(&run), work, lease)),
        };
        if let Some((bytes, _)) = run.get("config.toml")? {
            dir.create_layout()?;
            write_atomic(&dir.config_path(), &bytes)?;
            let used = TrainConfig::load(&dir.config_path())?;
            // The log and ratings go on where the store's copies end.
            for name in ["train.log", "ratings.csv"] {
                match run.get(name)? {
                    Some((bytes, _)) => write_atomic(&dir.root.join(name), &bytes)?,
                    None => {
                        let _ = fs::remove_file(dir.root.join(name));
                    }
                }
            }
            return Ok((dir, used, true));
        }
        let other = run
            .list("")?
            .into_iter()
            .any(|(name, _)| name != Lease::OBJECT);
        if other {
            return Err(RunDirError::Other(format!(
                "{} holds objects but no config.toml: not a run; choose another --run-dir",
                run.url()
            )));
        }
        // A new run: what an earlier run at this URL left in the working folder goes (only
        // the run's own entries: the folder may be one the user chose with --work-dir).
        for entry in [
            "config.toml",
            "meta.json",
            "train.log",
            "ratings.csv",
            "tensorboard",
            "cache",
            "checkpoints",
            "selfplay",
        ] {
            let path = work.join(entry);
            let gone = if path.is_dir() {
                fs::remove_dir_all(&path)
            } else {
                fs::remove_file(&path)
            };
            match gone {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(io(&path)(e)),
                _ => {}
            }
        }
        dir.create_layout()?;
        let (meta, text) = dir.write_new_run_files(config)?;
        run.put("meta.json", meta)?;
        if !run.create("config.toml", text)? {
            return Err(RunDirError::Other(format!(
                "{}: another trainer created this run at the same moment",
                run.url()
            )));
        }
        Ok((dir, config.clone(), false))
    }

    fn create_layout(&self) -> Result<(), RunDirError> {
        for sub in [
            self.selfplay_dir(),
            self.checkpoint_dir(),
            self.tensorboard_dir(),
        ] {
            fs::create_dir_all(&sub).map_err(io(&sub))?;
        }
        Ok(())
    }

    /// Writes a new run's `meta.json` and `config.toml`; returns their bytes.
    fn write_new_run_files(&self, config: &TrainConfig) -> Result<(Vec<u8>, Vec<u8>), RunDirError> {
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
        write_atomic(&self.root.join("meta.json"), meta_json.as_bytes())?;
        let text = format!(
            "# The config of this run. On resume this file is used; edit it here to change settings.\n{}",
            config.to_toml()?
        );
        write_atomic(&self.config_path(), text.as_bytes())?;
        Ok((meta_json.into_bytes(), text.into_bytes()))
    }

    /// Open an existing run (for `fanorona selfplay`), reading its config; for a run on a
    /// store, `work` is this process's local folder for it.
    pub fn open_existing(
        location: &RunLocation,
        work: Option<&Path>,
    ) -> Result<(RunDir, TrainConfig), RunDirError> {
        let dir = match location {
            RunLocation::Local(root) => RunDir {
                root: root.clone(),
                remote: None,
            },
            RunLocation::Store(url) => {
                let run = Arc::new(StoreRun::open(url)?);
                let work = work
                    .map(Path::to_path_buf)
                    .unwrap_or_else(|| crate::store::default_cache_dir(url));
                let dir = RunDir {
                    remote: Some(Remote::new(Arc::clone(&run), &work, None)),
                    root: work,
                };
                let Some((bytes, _)) = run.get("config.toml")? else {
                    return Err(RunDirError::Other(format!(
                        "{url} is not a run (no config.toml); start one with `fanorona train`"
                    )));
                };
                fs::create_dir_all(&dir.root).map_err(io(&dir.root))?;
                write_atomic(&dir.config_path(), &bytes)?;
                dir
            }
        };
        if !dir.config_path().exists() {
            return Err(RunDirError::Other(format!(
                "{} is not a run directory (no config.toml); start one with `fanorona train`",
                dir.root.display()
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

    /// The run's folder; for a run on a store, this process's working folder for it.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Where the run is, for messages: its folder or its URL.
    pub fn location(&self) -> String {
        match &self.remote {
            Some(remote) => remote.run.url().to_string(),
            None => self.root.display().to_string(),
        }
    }

    /// Whether the run is on an object store.
    pub fn is_remote(&self) -> bool {
        self.remote.is_some()
    }

    /// Refuses to write when the trainer's lease on a store was lost.
    fn check_lease(&self) -> Result<(), RunDirError> {
        let lost = self
            .remote
            .as_ref()
            .and_then(|r| r.lease.as_ref())
            .is_some_and(|lease| !lease.holds());
        if lost {
            return Err(RunDirError::Other(format!(
                "{}: lease lost: this trainer's lease ({}) expired before it was renewed (the \
                 process stood still, or the store was out of reach) or another trainer took \
                 it; stopping without writing",
                self.location(),
                Lease::OBJECT
            )));
        }
        Ok(())
    }

    /// Copies the trainer's log, ratings and TensorBoard files up to the store (nothing to do
    /// for a local run).
    pub fn sync(&self) -> Result<(), RunDirError> {
        let Some(remote) = &self.remote else {
            return Ok(());
        };
        self.check_lease()?;
        for name in ["train.log", "ratings.csv"] {
            if let Ok(bytes) = fs::read(self.root.join(name)) {
                remote.run.put(name, bytes)?;
            }
        }
        for entry in fs::read_dir(self.tensorboard_dir())
            .into_iter()
            .flatten()
            .filter_map(|e| e.ok())
        {
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.starts_with('.') || !entry.path().is_file() {
                continue;
            }
            let bytes = fs::read(entry.path()).map_err(io(&entry.path()))?;
            remote.run.put(&format!("tensorboard/{name}"), bytes)?;
        }
        Ok(())
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

    /// Checkpoints of the run, oldest first, with their step counts (for a run on a store,
    /// the paths they have once fetched with [`RunDir::fetch_checkpoint`]).
    pub fn checkpoints(&self) -> Result<Vec<(u64, PathBuf)>, RunDirError> {
        let names = self.names_in("checkpoints")?;
        let mut out: Vec<(u64, PathBuf)> = names
            .into_iter()
            .filter_map(|name| {
                let steps: u64 = name
                    .strip_prefix("ckpt-")?
                    .strip_suffix(".ckpt")?
                    .parse()
                    .ok()?;
                (steps <= MAX_CHECKPOINT_STEPS).then(|| (steps, self.checkpoint_dir().join(name)))
            })
            .collect();
        out.sort();
        Ok(out)
    }

    /// The names of the files (objects) in folder `sub` of the run.
    fn names_in(&self, sub: &str) -> Result<Vec<String>, RunDirError> {
        Ok(match &self.remote {
            Some(remote) => remote
                .run
                .list(sub)?
                .into_iter()
                .map(|(name, _)| name)
                .collect(),
            None => fs::read_dir(self.root.join(sub))
                .into_iter()
                .flatten()
                .filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect(),
        })
    }

    fn object_name(&self, path: &Path) -> Result<String, RunDirError> {
        path.strip_prefix(&self.root)
            .ok()
            .and_then(|rel| rel.to_str())
            .map(|rel| rel.replace('\\', "/"))
            .ok_or_else(|| {
                RunDirError::Other(format!("{} is not in the run's folder", path.display()))
            })
    }

    /// Makes the checkpoint at `path` (a path from [`RunDir::checkpoints`]) readable there:
    /// for a run on a store, downloads it into the cache unless it is there already. Returns
    /// the path to read (`None`: it is gone).
    pub fn fetch_checkpoint(&self, path: &Path) -> Result<Option<PathBuf>, RunDirError> {
        let Some(remote) = &self.remote else {
            return Ok(path.exists().then(|| path.to_path_buf()));
        };
        remote.fetch(&self.object_name(path)?)
    }

    /// The file a new checkpoint is written to before [`RunDir::publish_checkpoint`].
    pub fn checkpoint_file(&self, steps: u64) -> Result<PathBuf, RunDirError> {
        match &self.remote {
            Some(remote) => Ok(remote
                .cache
                .prepare(&format!("checkpoints/ckpt-{steps:09}.ckpt"))?),
            None => Ok(self.checkpoint_path(steps)),
        }
    }

    /// Publishes the checkpoint just written at `file` (from [`RunDir::checkpoint_file`]): for
    /// a run on a store, puts it whole (readers see the old listing or the complete object).
    pub fn publish_checkpoint(&self, file: &Path, steps: u64) -> Result<(), RunDirError> {
        let Some(remote) = &self.remote else {
            return Ok(());
        };
        self.check_lease()?;
        let bytes = fs::read(file).map_err(io(file))?;
        remote
            .run
            .put(&format!("checkpoints/ckpt-{steps:09}.ckpt"), bytes)?;
        remote.cache.written(file);
        Ok(())
    }

    /// Delete old checkpoints: keep the newest `keep` and every one in `protected`. A file
    /// already gone (another process pruned it) is no error.
    pub fn prune_checkpoints(&self, keep: usize, protected: &[PathBuf]) -> Result<(), RunDirError> {
        let all = self.checkpoints()?;
        let cut = all.len().saturating_sub(keep);
        for (_, path) in &all[..cut] {
            if protected.contains(path) {
                continue;
            }
            if let Some(remote) = &self.remote {
                self.check_lease()?;
                let name = self.object_name(path)?;
                remote.run.delete(&name)?;
                remote.cache.remove(&name);
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
    pub fn shard_name(generation: u64, worker: &str, seq: u64, games: u64) -> String {
        format!("sp-g{generation:06}-{worker}-{seq:05}-n{games:04}.shard")
    }

    /// The path of a shard of a local run (see [`RunDir::shard_name`]).
    pub fn shard_path(&self, generation: u64, worker: &str, seq: u64, games: u64) -> PathBuf {
        self.selfplay_dir()
            .join(Self::shard_name(generation, worker, seq, games))
    }

    /// The names of the run's shards, in name order.
    pub fn shard_names(&self) -> Result<Vec<String>, RunDirError> {
        let mut names = self.names_in("selfplay")?;
        names.retain(|n| n.ends_with(".shard") && !n.starts_with('.'));
        names.sort();
        Ok(names)
    }

    /// Reads shard `name` (fetched into the cache first for a run on a store).
    pub fn read_shard(&self, name: &str) -> Result<Shard, ReplayError> {
        let path = match &self.remote {
            None => self.selfplay_dir().join(name),
            Some(remote) => {
                let object = format!("selfplay/{name}");
                let fetched = remote
                    .fetch(&object)
                    .map_err(|e| ReplayError::Store(e.to_string()))?;
                fetched
                    .ok_or_else(|| ReplayError::Store(format!("{object}: gone from the store")))?
            }
        };
        crate::replay::read_shard(&path)
    }

    /// Writes a shard of `generation` by `worker` with sequence number at least `seq`: the
    /// name taken (a shard's name is never reused: on a store it is created only if absent,
    /// and a name already taken by other content moves on to the next number). On a store,
    /// network failures are retried with backoff for a few minutes. Returns the sequence
    /// number used.
    pub fn write_shard(
        &self,
        generation: u64,
        worker: &str,
        seq: u64,
        shard: &Shard,
    ) -> Result<u64, ReplayError> {
        let games = shard.games.len() as u64;
        let Some(remote) = &self.remote else {
            crate::replay::write_shard(&self.shard_path(generation, worker, seq, games), shard)?;
            return Ok(seq);
        };
        // A trainer that lost its lease writes no more games into the run (a worker holds none).
        self.check_lease()
            .map_err(|e| ReplayError::Store(e.to_string()))?;
        let bytes = crate::replay::encode_shard(shard)?;
        let mut seq = seq;
        let mut failures = 0u32;
        loop {
            let name = format!(
                "selfplay/{}",
                Self::shard_name(generation, worker, seq, games)
            );
            let outcome = remote.run.create(&name, bytes.clone()).and_then(|created| {
                if created {
                    return Ok(true);
                }
                // Taken: by this very shard when an earlier try's answer was lost, else by
                // another writer of the same name.
                Ok(remote.run.get(&name)?.is_some_and(|(b, _)| b == bytes))
            });
            match outcome {
                Ok(true) => return Ok(seq),
                Ok(false) => seq += 1,
                Err(e) => {
                    failures += 1;
                    if failures > 5 {
                        return Err(ReplayError::Store(e.to_string()));
                    }
                    std::thread::sleep(Duration::from_secs(2u64 << failures));
                }
            }
        }
    }

    /// Shards and games of `generation` by `worker` already written (from the shard names).
    pub fn shards_written(&self, generation: u64, worker: &str) -> Result<(u64, u64), RunDirError> {
        let prefix = format!("sp-g{generation:06}-{worker}-");
        Ok(self
            .shard_names()?
            .iter()
            .filter_map(|name| {
                let rest = name.strip_prefix(&prefix)?.strip_suffix(".shard")?;
                let (seq, games) = rest.split_once("-n")?;
                Some((seq.parse::<u64>().ok()?, games.parse::<u64>().ok()?))
            })
            .fold((0, 0), |(next, games), (seq, n)| {
                (next.max(seq + 1), games + n)
            }))
    }
}
