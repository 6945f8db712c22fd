//! Run directories on object storage: `--run-dir s3://bucket/prefix` (or `gs://`, `az://`,
//! `file://`: whatever the [`object_store`] crate serves) instead of a local folder.
//!
//! A run on a store has the same layout as a local run directory (see [`crate::rundir`]), as
//! objects under the URL's prefix. Every object is written whole in one request, so a reader
//! sees the old object or the new one, never half of one:
//!
//! - shards are *created* (put-if-absent) under names that carry the worker's name and a
//!   sequence number, so two writers never replace each other's games;
//! - checkpoints are put whole by the one trainer, which holds a **lease** (`train.lease`, a
//!   small JSON object with an expiry, renewed in the background and taken over only once
//!   expired, with conditional puts where the store offers them);
//! - `train.log`, `ratings.csv` and the TensorBoard files are written in the trainer's local
//!   working folder and copied up after every generation.
//!
//! Each process keeps a local folder for the run ([`default_cache_dir`]): downloaded
//! checkpoints and shards (immutable once written, so a cached copy is never stale) are kept
//! there up to a size bound ([`Cache`]), oldest used first out.
//!
//! Credentials and the endpoint come from the environment, as the object_store builders read
//! them: `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_REGION`, `AWS_ENDPOINT_URL` (an
//! `http://` endpoint is allowed without `AWS_ALLOW_HTTP`), `GOOGLE_SERVICE_ACCOUNT`,
//! `AZURE_STORAGE_ACCOUNT_NAME`, and the rest of their keys. Requests that fail for a network
//! reason are retried with exponential backoff for up to [`RETRY_SECONDS`] seconds.

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use object_store::path::Path as ObjectPath;
use object_store::{
    BackoffConfig, ObjectStore, ObjectStoreExt, PutMode, PutOptions, PutPayload, RetryConfig,
    UpdateVersion,
};
use serde::{Deserialize, Serialize};

/// Why a request to the store, or the local cache beside it, failed.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// A request failed (after its retries), or the URL is wrong.
    #[error("{what}: {message}")]
    Request {
        /// The URL of the run or object.
        what: String,
        /// What went wrong.
        message: String,
    },
    /// A local file operation failed.
    #[error("{path}: {error}")]
    Io {
        /// The path involved.
        path: PathBuf,
        /// The underlying error.
        error: std::io::Error,
    },
    /// Anything else (a lease held by another trainer, a lost lease).
    #[error("{0}")]
    Other(String),
}

/// How long one request is retried (with exponential backoff, 0.1 s doubling up to 10 s)
/// before its error is reported.
pub const RETRY_SECONDS: u64 = 60;

/// Where a run lives: a local folder or a URL of an object store.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RunLocation {
    /// A folder of this machine (or a shared file system).
    Local(PathBuf),
    /// An object-store URL such as `s3://bucket/runs/x`.
    Store(String),
}

impl RunLocation {
    /// A `--run-dir` argument: a URL when it has a scheme (`s3://...`), a path otherwise.
    pub fn parse(text: &str) -> RunLocation {
        match text.split_once("://") {
            Some((scheme, _))
                if !scheme.is_empty()
                    && scheme
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c)) =>
            {
                RunLocation::Store(text.trim_end_matches('/').to_string())
            }
            _ => RunLocation::Local(PathBuf::from(text)),
        }
    }

    /// The local folder, when it is one.
    pub fn local(&self) -> Option<&Path> {
        match self {
            RunLocation::Local(path) => Some(path),
            RunLocation::Store(_) => None,
        }
    }

    /// The folder of this machine that holds the run, however the location is spelled: a
    /// local path, or the path of a `file://` URL (a store kept in a folder). `None` for a run
    /// on a remote store. Every trainer of a run takes the file lock in this folder, so two
    /// trainers exclude each other whether they name it `runs/r` or `file:///.../runs/r`.
    pub fn folder(&self) -> Option<PathBuf> {
        match self {
            RunLocation::Local(path) => Some(path.clone()),
            RunLocation::Store(url) => url::Url::parse(url)
                .ok()
                .filter(|u| u.scheme() == "file")
                .and_then(|u| u.to_file_path().ok()),
        }
    }
}

impl fmt::Display for RunLocation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunLocation::Local(path) => write!(f, "{}", path.display()),
            RunLocation::Store(url) => f.write_str(url),
        }
    }
}

impl From<PathBuf> for RunLocation {
    fn from(path: PathBuf) -> RunLocation {
        RunLocation::Local(path)
    }
}

impl From<&str> for RunLocation {
    fn from(text: &str) -> RunLocation {
        RunLocation::parse(text)
    }
}

/// The local folder a process uses for a run on a store: `$FANORONA_CACHE_DIR`, else
/// `$XDG_CACHE_HOME/fanorona`, else `~/.cache/fanorona`, then a folder named after the URL.
pub fn default_cache_dir(url: &str) -> PathBuf {
    let base = std::env::var_os("FANORONA_CACHE_DIR")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("XDG_CACHE_HOME").map(|d| PathBuf::from(d).join("fanorona")))
        .or_else(|| std::env::var_os("HOME").map(|d| PathBuf::from(d).join(".cache/fanorona")))
        .unwrap_or_else(|| std::env::temp_dir().join("fanorona-cache"));
    let name: String = url
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    base.join(name)
}

/// A version of an object, for a conditional update.
#[derive(Clone, Debug)]
pub struct Version(UpdateVersion);

/// A run's objects on a store, with blocking calls (the pipeline is synchronous; each call runs
/// on a small runtime of its own).
pub struct StoreRun {
    url: String,
    store: Arc<dyn ObjectStore>,
    prefix: ObjectPath,
    runtime: tokio::runtime::Runtime,
}

impl fmt::Debug for StoreRun {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StoreRun").field("url", &self.url).finish()
    }
}

fn retry() -> RetryConfig {
    RetryConfig {
        backoff: BackoffConfig {
            init_backoff: Duration::from_millis(100),
            max_backoff: Duration::from_secs(10),
            base: 2.0,
        },
        max_retries: 30,
        retry_timeout: Duration::from_secs(RETRY_SECONDS),
    }
}

impl StoreRun {
    /// Connects to the store of `url` (nothing is read or written yet).
    pub fn open(url: &str) -> Result<StoreRun, StoreError> {
        let bad = |message: String| StoreError::Request {
            what: url.to_string(),
            message,
        };
        let parsed = url::Url::parse(url).map_err(|e| bad(format!("not a URL: {e}")))?;
        let (scheme, prefix) =
            object_store::ObjectStoreScheme::parse(&parsed).map_err(|e| bad(e.to_string()))?;
        use object_store::ObjectStoreScheme as S;
        let store: Arc<dyn ObjectStore> = match scheme {
            S::AmazonS3 => {
                let endpoint = std::env::var("AWS_ENDPOINT_URL")
                    .or_else(|_| std::env::var("AWS_ENDPOINT"))
                    .unwrap_or_default();
                let mut builder = object_store::aws::AmazonS3Builder::from_env()
                    .with_url(url)
                    .with_retry(retry());
                if endpoint.starts_with("http://") && std::env::var_os("AWS_ALLOW_HTTP").is_none() {
                    builder = builder.with_allow_http(true);
                }
                if std::env::var_os("AWS_REGION").is_none()
                    && std::env::var_os("AWS_DEFAULT_REGION").is_none()
                {
                    builder = builder.with_region("us-east-1");
                }
                Arc::new(builder.build().map_err(|e| bad(e.to_string()))?)
            }
            // The builders share no trait: the same three calls on each.
            S::GoogleCloudStorage | S::MicrosoftAzure => {
                macro_rules! from_env {
                    ($builder:ty) => {
                        Arc::new(
                            <$builder>::from_env()
                                .with_url(url)
                                .with_retry(retry())
                                .build()
                                .map_err(|e| bad(e.to_string()))?,
                        )
                    };
                }
                if scheme == S::GoogleCloudStorage {
                    from_env!(object_store::gcp::GoogleCloudStorageBuilder)
                } else {
                    from_env!(object_store::azure::MicrosoftAzureBuilder)
                }
            }
            S::Local => {
                // The whole path is the run; the store is rooted there.
                let root = parsed
                    .to_file_path()
                    .map_err(|()| bad("not a local file URL".into()))?;
                std::fs::create_dir_all(&root).map_err(|e| bad(e.to_string()))?;
                let local = object_store::local::LocalFileSystem::new_with_prefix(&root)
                    .map_err(|e| bad(e.to_string()))?;
                return Self::with_store(url, Arc::new(local), ObjectPath::default());
            }
            // A run must outlive the process that writes it.
            S::Memory => {
                return Err(bad(
                    "a memory:// store vanishes when this process exits: give a store that \
                     lasts (s3://, gs://, az:// or file://)"
                        .into(),
                ));
            }
            other => return Err(bad(format!("{other:?} stores are not supported"))),
        };
        Self::with_store(url, store, prefix)
    }

    fn with_store(
        url: &str,
        store: Arc<dyn ObjectStore>,
        prefix: ObjectPath,
    ) -> Result<StoreRun, StoreError> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| StoreError::Request {
                what: url.to_string(),
                message: format!("cannot start the network runtime: {e}"),
            })?;
        Ok(StoreRun {
            url: url.to_string(),
            store,
            prefix,
            runtime,
        })
    }

    /// The run's URL.
    pub fn url(&self) -> &str {
        &self.url
    }

    fn path(&self, name: &str) -> ObjectPath {
        name.split('/')
            .fold(self.prefix.clone(), |p, part| p.join(part))
    }

    fn error(&self, name: &str, e: object_store::Error) -> StoreError {
        StoreError::Request {
            what: format!("{}/{name}", self.url),
            message: e.to_string(),
        }
    }

    /// Reads object `name` (a path relative to the run, like `checkpoints/ckpt-1.ckpt`), with
    /// its version; `None` when there is none.
    pub fn get(&self, name: &str) -> Result<Option<(Vec<u8>, Version)>, StoreError> {
        let path = self.path(name);
        self.runtime.block_on(async {
            match self.store.get(&path).await {
                Ok(found) => {
                    let version = Version(UpdateVersion {
                        e_tag: found.meta.e_tag.clone(),
                        version: found.meta.version.clone(),
                    });
                    let bytes = found.bytes().await.map_err(|e| self.error(name, e))?;
                    Ok(Some((bytes.to_vec(), version)))
                }
                Err(object_store::Error::NotFound { .. }) => Ok(None),
                Err(e) => Err(self.error(name, e)),
            }
        })
    }

    /// Writes object `name` whole, replacing any.
    pub fn put(&self, name: &str, bytes: Vec<u8>) -> Result<(), StoreError> {
        self.put_mode(name, bytes, PutMode::Overwrite)
            .map(|_| ())
            .map_err(|e| self.error(name, e))
    }

    fn put_mode(
        &self,
        name: &str,
        bytes: Vec<u8>,
        mode: PutMode,
    ) -> Result<Version, object_store::Error> {
        let path = self.path(name);
        let options = PutOptions {
            mode,
            ..PutOptions::default()
        };
        self.runtime.block_on(async {
            let result = self
                .store
                .put_opts(&path, PutPayload::from(bytes), options)
                .await?;
            Ok(Version(UpdateVersion {
                e_tag: result.e_tag,
                version: result.version,
            }))
        })
    }

    /// Creates object `name` unless it exists: `Ok(false)` when it does. A store that cannot
    /// put conditionally gets a check and a put (a narrow race, reported in the docs).
    pub fn create(&self, name: &str, bytes: Vec<u8>) -> Result<bool, StoreError> {
        match self.put_mode(name, bytes.clone(), PutMode::Create) {
            Ok(_) => Ok(true),
            Err(object_store::Error::AlreadyExists { .. }) => Ok(false),
            Err(
                object_store::Error::NotImplemented { .. }
                | object_store::Error::NotSupported { .. },
            ) => {
                if self.exists(name)? {
                    return Ok(false);
                }
                self.put(name, bytes)?;
                Ok(true)
            }
            Err(e) => Err(self.error(name, e)),
        }
    }

    /// Replaces object `name` if it is still at `version`: `Ok(None)` when another writer
    /// changed it first (or removed it). Stores without conditional updates compare the
    /// version first, then put.
    pub fn update(
        &self,
        name: &str,
        bytes: Vec<u8>,
        version: &Version,
    ) -> Result<Option<Version>, StoreError> {
        match self.put_mode(name, bytes.clone(), PutMode::Update(version.0.clone())) {
            Ok(v) => Ok(Some(v)),
            Err(object_store::Error::Precondition { .. }) => Ok(None),
            // No conditional update here (a `file://` store): compare, then put. The window
            // between the two is milliseconds, and the lease (the one user) also refuses to
            // renew or write once its own time is up, so a stalled trainer cannot come back.
            Err(
                object_store::Error::NotImplemented { .. }
                | object_store::Error::NotSupported { .. },
            ) => match self.get(name)? {
                Some((_, current))
                    if current.0.e_tag == version.0.e_tag
                        && current.0.version == version.0.version =>
                {
                    self.put_mode(name, bytes, PutMode::Overwrite)
                        .map(Some)
                        .map_err(|e| self.error(name, e))
                }
                _ => Ok(None),
            },
            Err(e) => Err(self.error(name, e)),
        }
    }

    /// Whether object `name` exists.
    pub fn exists(&self, name: &str) -> Result<bool, StoreError> {
        let path = self.path(name);
        self.runtime.block_on(async {
            match self.store.head(&path).await {
                Ok(_) => Ok(true),
                Err(object_store::Error::NotFound { .. }) => Ok(false),
                Err(e) => Err(self.error(name, e)),
            }
        })
    }

    /// The names (and sizes) of the objects directly in folder `dir` of the run.
    pub fn list(&self, dir: &str) -> Result<Vec<(String, u64)>, StoreError> {
        let path = self.path(dir);
        self.runtime.block_on(async {
            let listed = self
                .store
                .list_with_delimiter(Some(&path))
                .await
                .map_err(|e| self.error(dir, e))?;
            let mut out: Vec<(String, u64)> = listed
                .objects
                .into_iter()
                .filter_map(|meta| {
                    let name = meta.location.filename()?.to_string();
                    Some((name, meta.size))
                })
                .collect();
            out.sort();
            Ok(out)
        })
    }

    /// Deletes object `name`; one already gone is no error.
    pub fn delete(&self, name: &str) -> Result<(), StoreError> {
        let path = self.path(name);
        self.runtime.block_on(async {
            match self.store.delete(&path).await {
                Ok(()) | Err(object_store::Error::NotFound { .. }) => Ok(()),
                Err(e) => Err(self.error(name, e)),
            }
        })
    }
}

/// A bounded local cache of immutable objects (checkpoints, shards) of a run on a store, kept
/// as files under their run-relative names; the least recently used go first when the total
/// passes the bound.
#[derive(Clone, Debug)]
pub struct Cache {
    root: PathBuf,
    max_bytes: u64,
}

/// Default bound of a cache: 2 GiB (`FANORONA_CACHE_MB` changes it).
pub fn default_cache_bytes() -> u64 {
    std::env::var("FANORONA_CACHE_MB")
        .ok()
        .and_then(|v| v.parse::<u64>().ok())
        .map_or(2 << 30, |mb| mb << 20)
}

impl Cache {
    /// A cache in `root` holding at most `max_bytes` (the newest file is always kept).
    pub fn new(root: PathBuf, max_bytes: u64) -> Cache {
        Cache { root, max_bytes }
    }

    /// The local file of object `name`.
    pub fn path(&self, name: &str) -> PathBuf {
        self.root.join(name)
    }

    /// The local file of object `name`, its folder created, for a writer that then calls
    /// [`Cache::written`].
    pub fn prepare(&self, name: &str) -> Result<PathBuf, StoreError> {
        let path = self.path(name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|error| StoreError::Io {
                path: parent.to_path_buf(),
                error,
            })?;
        }
        Ok(path)
    }

    /// Trims the cache to its bound, keeping `kept` (just written).
    pub fn written(&self, kept: &Path) {
        self.trim(kept);
    }

    /// The object's bytes: from the cache when present, else from `fetch` (then kept).
    pub fn get_or_fetch(
        &self,
        name: &str,
        fetch: impl FnOnce() -> Result<Option<Vec<u8>>, StoreError>,
    ) -> Result<Option<PathBuf>, StoreError> {
        let path = self.path(name);
        if path.is_file() {
            if let Ok(file) = std::fs::File::options().append(true).open(&path) {
                let _ = file.set_modified(SystemTime::now());
            }
            return Ok(Some(path));
        }
        let Some(bytes) = fetch()? else {
            return Ok(None);
        };
        self.insert(name, &bytes)?;
        Ok(Some(path))
    }

    /// Keeps `bytes` as object `name`, then trims the cache to its bound.
    pub fn insert(&self, name: &str, bytes: &[u8]) -> Result<(), StoreError> {
        let path = self.prepare(name)?;
        fanorona_data::write_atomic(&path, bytes).map_err(|e| match e {
            fanorona_data::AtomicWriteError::Io { path, error } => StoreError::Io { path, error },
            other => StoreError::Other(other.to_string()),
        })?;
        self.trim(&path);
        Ok(())
    }

    /// Forgets object `name`.
    pub fn remove(&self, name: &str) {
        let _ = std::fs::remove_file(self.path(name));
    }

    fn trim(&self, keep: &Path) {
        let mut files: Vec<(SystemTime, u64, PathBuf)> = ["checkpoints", "selfplay"]
            .iter()
            .flat_map(|dir| std::fs::read_dir(self.root.join(dir)).into_iter().flatten())
            .filter_map(|e| e.ok())
            .filter_map(|e| {
                let meta = e.metadata().ok()?;
                let name = e.file_name().to_string_lossy().into_owned();
                if !meta.is_file() || name.starts_with('.') {
                    return None;
                }
                Some((meta.modified().ok()?, meta.len(), e.path()))
            })
            .collect();
        let mut total: u64 = files.iter().map(|f| f.1).sum();
        files.sort();
        for (_, len, path) in files {
            if total <= self.max_bytes {
                break;
            }
            if path != keep && std::fs::remove_file(&path).is_ok() {
                total -= len;
            }
        }
    }
}

/// The lease object's content.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct LeaseRecord {
    holder: String,
    host: String,
    pid: u32,
    expires_unix: u64,
}

/// How long a lease lasts without renewal.
pub const LEASE_SECONDS: u64 = 60;

/// This machine's host name (empty when unknown).
pub fn host_name() -> String {
    std::fs::read_to_string("/etc/hostname")
        .map(|h| h.trim().to_string())
        .unwrap_or_default()
}

fn now_unix() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// Whether a trainer still holds its lease: not lost to another trainer, and renewed recently
/// enough that it cannot have expired (checked against the clock by every writer, so that a
/// trainer stalled past its lease, stopped or swapped out, writes nothing when it wakes).
#[derive(Debug)]
pub struct LeaseState {
    lost: AtomicBool,
    /// Unix seconds until which the lease is surely ours: the last renewal's expiry less a
    /// margin for clocks and the store's latency.
    valid_until: AtomicU64,
}

/// Seconds before its recorded expiry at which a trainer stops trusting its lease.
const LEASE_MARGIN: u64 = 10;

impl LeaseState {
    fn new() -> LeaseState {
        let state = LeaseState {
            lost: AtomicBool::new(false),
            valid_until: AtomicU64::new(0),
        };
        state.renewed(now_unix());
        state
    }

    fn renewed(&self, at_unix: u64) {
        self.valid_until
            .store(at_unix + LEASE_SECONDS - LEASE_MARGIN, Ordering::SeqCst);
    }

    /// Whether the lease is still this trainer's: it may write.
    pub fn holds(&self) -> bool {
        !self.lost.load(Ordering::SeqCst) && now_unix() < self.valid_until.load(Ordering::SeqCst)
    }
}

/// The trainer's lease on a run on a store: `train.lease`, renewed every 15 seconds by a
/// background thread and valid for [`LEASE_SECONDS`]. Another trainer may take it only once it
/// has expired (a trainer that died leaves it to expire). Dropping the lease deletes it.
#[derive(Debug)]
pub struct Lease {
    run: Arc<StoreRun>,
    holder: String,
    state: Arc<LeaseState>,
    stop: Arc<AtomicBool>,
    renewer: Option<std::thread::JoinHandle<()>>,
}

impl Lease {
    /// The lease object.
    pub const OBJECT: &'static str = "train.lease";

    fn record(holder: &str) -> Vec<u8> {
        serde_json::to_vec(&LeaseRecord {
            holder: holder.to_string(),
            host: host_name(),
            pid: std::process::id(),
            expires_unix: now_unix() + LEASE_SECONDS,
        })
        .unwrap_or_default()
    }

    /// Takes the lease on `run`, or says who holds it and for how long.
    pub fn acquire(run: Arc<StoreRun>) -> Result<Lease, StoreError> {
        let holder = format!(
            "{}-{}-{}",
            std::process::id(),
            now_unix(),
            SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| d.subsec_nanos())
        );
        let taken = match run.get(Self::OBJECT)? {
            None => {
                if !run.create(Self::OBJECT, Self::record(&holder))? {
                    return Err(StoreError::Other(format!(
                        "{}: another trainer took the lease just now; one trainer per run",
                        run.url()
                    )));
                }
                true
            }
            Some((bytes, version)) => {
                let current: Option<LeaseRecord> = serde_json::from_slice(&bytes).ok();
                let live = |c: &&LeaseRecord| c.expires_unix > now_unix() && !dead_here(c);
                if let Some(c) = current.as_ref().filter(live) {
                    return Err(StoreError::Other(format!(
                        "{} is in use by another trainer (process {} on {:?}; its lease {} \
                         expires in {} s unless renewed); one trainer per run (self-play \
                         workers may join it with `fanorona selfplay`)",
                        run.url(),
                        c.pid,
                        c.host,
                        Self::OBJECT,
                        c.expires_unix - now_unix()
                    )));
                }
                run.update(Self::OBJECT, Self::record(&holder), &version)?
                    .is_some()
            }
        };
        // Read back: on stores without conditional puts this is what settles a race.
        let (bytes, version) = run.get(Self::OBJECT)?.ok_or_else(|| {
            StoreError::Other(format!("{}: the lease vanished as it was taken", run.url()))
        })?;
        let ours = serde_json::from_slice::<LeaseRecord>(&bytes).is_ok_and(|r| r.holder == holder);
        if !taken || !ours {
            return Err(StoreError::Other(format!(
                "{}: another trainer took the lease at the same moment; one trainer per run",
                run.url()
            )));
        }
        let state = Arc::new(LeaseState::new());
        let stop = Arc::new(AtomicBool::new(false));
        let renewer = {
            let (run, holder, state, stop) = (
                Arc::clone(&run),
                holder.clone(),
                Arc::clone(&state),
                Arc::clone(&stop),
            );
            std::thread::Builder::new()
                .name("lease".into())
                .spawn(move || renew_loop(&run, &holder, &state, &stop, version))
                .map_err(|e| StoreError::Other(format!("cannot start the lease thread: {e}")))?
        };
        Ok(Lease {
            run,
            holder,
            state,
            stop,
            renewer: Some(renewer),
        })
    }

    /// Whether the lease was lost (another trainer took it, or it expired before it could
    /// be renewed): the trainer must write nothing more.
    pub fn lost(&self) -> bool {
        !self.state.holds()
    }

    /// The state behind [`Lease::lost`], for writers that outlive a borrow of the lease.
    pub fn state(&self) -> Arc<LeaseState> {
        Arc::clone(&self.state)
    }
}

/// Whether the lease's holder was a process of this machine that no longer runs (a trainer
/// killed here and started again need not wait for its old lease to expire).
fn dead_here(record: &LeaseRecord) -> bool {
    let proc_root = Path::new("/proc");
    !record.host.is_empty()
        && record.host == host_name()
        && proc_root.join("self").exists()
        && !proc_root.join(record.pid.to_string()).exists()
}

fn renew_loop(
    run: &StoreRun,
    holder: &str,
    state: &LeaseState,
    stop: &AtomicBool,
    mut version: Version,
) {
    let mut last_renewed = now_unix();
    let lose = || state.lost.store(true, Ordering::SeqCst);
    loop {
        for _ in 0..150 {
            if stop.load(Ordering::SeqCst) {
                return;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        // A lease that ran out while this process stood still (stopped, swapped out, its
        // store unreachable) is not renewed: another trainer may have taken the run.
        if now_unix() + LEASE_MARGIN >= last_renewed + LEASE_SECONDS {
            lose();
            return;
        }
        let attempt = now_unix();
        match run.update(Lease::OBJECT, Lease::record(holder), &version) {
            Ok(Some(v)) => {
                version = v;
                last_renewed = attempt;
                state.renewed(attempt);
            }
            Ok(None) => {
                lose();
                return;
            }
            // The store is unreachable: keep trying until the lease would have expired.
            Err(_) => {}
        }
    }
}

impl Drop for Lease {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(handle) = self.renewer.take() {
            let _ = handle.join();
        }
        if self.state.lost.load(Ordering::SeqCst) {
            return;
        }
        let ours = self
            .run
            .get(Self::OBJECT)
            .ok()
            .flatten()
            .and_then(|(bytes, _)| serde_json::from_slice::<LeaseRecord>(&bytes).ok())
            .is_some_and(|r| r.holder == self.holder);
        if ours {
            let _ = self.run.delete(Self::OBJECT);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    impl StoreRun {
        fn in_memory() -> StoreRun {
            let store = Arc::new(object_store::memory::InMemory::new());
            StoreRun::with_store("memory:///", store, ObjectPath::default()).unwrap()
        }
    }

    /// A `file://` store has no conditional update: an update from a version that another
    /// writer has replaced meanwhile must not overwrite it (issue 28 item 1).
    #[test]
    fn a_stale_update_never_overwrites_on_a_store_without_conditional_updates() {
        let dir = fanorona_testkit::TempDir::new("store-update");
        let url = format!("file://{}", dir.path().join("run").display());
        let run = StoreRun::open(&url).unwrap();
        assert!(run.create("train.lease", b"first".to_vec()).unwrap());
        let (_, first) = run.get("train.lease").unwrap().unwrap();
        // Another trainer renews (or takes) it...
        std::thread::sleep(Duration::from_millis(20));
        let second = run.update("train.lease", b"second, longer".to_vec(), &first);
        assert!(second.unwrap().is_some());
        // ...and the stalled one, waking with the old version, is told so.
        let stale = run
            .update("train.lease", b"stale".to_vec(), &first)
            .unwrap();
        assert!(stale.is_none());
        assert_eq!(
            run.get("train.lease").unwrap().unwrap().0,
            b"second, longer"
        );
    }

    /// A lease is trusted only while its time lasts by the clock, whatever the renewing
    /// thread has managed to do: a trainer that stood still past it writes nothing.
    #[test]
    fn a_lease_past_its_time_holds_no_more() {
        let state = LeaseState::new();
        assert!(state.holds());
        state.renewed(now_unix() - LEASE_SECONDS);
        assert!(!state.holds());
        state.renewed(now_unix());
        assert!(state.holds());
        state.lost.store(true, Ordering::SeqCst);
        assert!(!state.holds());
    }

    #[test]
    fn a_memory_store_is_refused_for_a_run() {
        let e = StoreRun::open("memory:///x").err().unwrap().to_string();
        assert!(e.contains("memory:///x") && e.contains("vanishes"), "{e}");
    }

    #[test]
    fn run_dir_arguments_are_urls_only_with_a_scheme() {
        assert_eq!(
            RunLocation::parse("s3://bucket/runs/x/"),
            RunLocation::Store("s3://bucket/runs/x".into())
        );
        assert_eq!(
            RunLocation::parse("runs/x"),
            RunLocation::Local(PathBuf::from("runs/x"))
        );
        assert_eq!(
            RunLocation::parse("runs/a://b"),
            RunLocation::Local(PathBuf::from("runs/a://b"))
        );
        assert_eq!(
            RunLocation::parse("file:///tmp/x").to_string(),
            "file:///tmp/x"
        );
    }

    #[test]
    fn a_memory_store_creates_once_and_updates_only_the_version_it_read() {
        let run = StoreRun::in_memory();
        assert!(run.create("selfplay/a.shard", vec![1]).unwrap());
        assert!(!run.create("selfplay/a.shard", vec![2]).unwrap());
        let (bytes, version) = run.get("selfplay/a.shard").unwrap().unwrap();
        assert_eq!(bytes, vec![1]);
        assert!(
            run.update("selfplay/a.shard", vec![3], &version)
                .unwrap()
                .is_some()
        );
        assert!(
            run.update("selfplay/a.shard", vec![4], &version)
                .unwrap()
                .is_none()
        );
        assert_eq!(run.get("selfplay/a.shard").unwrap().unwrap().0, vec![3]);
        assert_eq!(run.list("selfplay").unwrap(), vec![("a.shard".into(), 1)]);
        run.delete("selfplay/a.shard").unwrap();
        run.delete("selfplay/a.shard").unwrap();
        assert!(run.get("selfplay/a.shard").unwrap().is_none());
    }

    #[test]
    fn a_second_lease_is_refused_while_the_first_lives_and_granted_after() {
        let run = Arc::new(StoreRun::in_memory());
        let first = Lease::acquire(Arc::clone(&run)).unwrap();
        let refused = Lease::acquire(Arc::clone(&run)).unwrap_err().to_string();
        assert!(refused.contains("in use by another trainer"), "{refused}");
        drop(first);
        let second = Lease::acquire(Arc::clone(&run)).unwrap();
        assert!(!second.lost());
        // An expired lease left by a dead trainer is taken over.
        drop(second);
        let stale = LeaseRecord {
            holder: "dead".into(),
            host: "elsewhere".into(),
            pid: 1,
            expires_unix: now_unix() - 1,
        };
        run.put(Lease::OBJECT, serde_json::to_vec(&stale).unwrap())
            .unwrap();
        assert!(Lease::acquire(run).is_ok());
    }

    #[test]
    fn a_new_run_clears_only_its_own_entries_from_a_chosen_work_folder() {
        let work = std::env::temp_dir().join(format!("fanorona-work-test-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&work);
        std::fs::create_dir_all(work.join("cache/selfplay")).unwrap();
        std::fs::write(work.join("notes.txt"), "mine").unwrap();
        std::fs::write(work.join("train.log"), "an old run").unwrap();
        std::fs::write(work.join("cache/selfplay/old.shard"), "old").unwrap();
        let config = crate::TrainConfig::load(
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../../configs/tiny.toml")
                .as_ref(),
        )
        .unwrap();
        let run = Arc::new(StoreRun::in_memory());
        let lock = crate::RunLock::acquire_lease(Arc::clone(&run)).unwrap();
        let (_, _, resumed) =
            crate::RunDir::open_store(Arc::clone(&run), &work, &config, &lock).unwrap();
        assert!(!resumed);
        assert_eq!(
            std::fs::read_to_string(work.join("notes.txt")).unwrap(),
            "mine"
        );
        assert!(!work.join("train.log").exists());
        assert!(!work.join("cache/selfplay/old.shard").exists());
        assert!(run.exists("config.toml").unwrap() && run.exists("meta.json").unwrap());
        let _ = std::fs::remove_dir_all(&work);
    }

    #[test]
    fn the_cache_keeps_the_newest_files_within_its_bound() {
        let dir = std::env::temp_dir().join(format!("fanorona-cache-test-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let cache = Cache::new(dir.clone(), 250);
        for i in 0..4 {
            cache
                .insert(&format!("selfplay/s{i}.shard"), &[i as u8; 100])
                .unwrap();
            std::thread::sleep(Duration::from_millis(20));
        }
        let kept: Vec<bool> = (0..4)
            .map(|i| cache.path(&format!("selfplay/s{i}.shard")).exists())
            .collect();
        assert_eq!(kept, vec![false, false, true, true]);
        let mut fetched = false;
        let path = cache
            .get_or_fetch("selfplay/s3.shard", || {
                fetched = true;
                Ok(None)
            })
            .unwrap();
        assert!(!fetched && path.is_some());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
