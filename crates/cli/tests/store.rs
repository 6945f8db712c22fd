//! Training across processes that share only storage: one trainer that plays no games itself
//! (`--no-selfplay`) and two `fanorona selfplay` workers, on a bucket of a real S3-compatible
//! server (s3s-fs, started here on loopback) and, with the same checks, on a local folder.
//!
//! Along the way a worker is killed with SIGKILL while it writes shards and started again, the
//! trainer is killed with SIGKILL and resumed, and (on the bucket) the server is stopped for a
//! few seconds and started again while everyone runs. At the end every shard decodes, every
//! checkpoint loads, the final run state counts each ingested shard once (its games, per
//! worker), both workers contributed, and `fanorona export --run-dir` exports the newest
//! network.
//!
//! The server binary: `$FANORONA_S3S_FS`, else `s3s-fs` on the PATH or in `~/.cargo/bin`
//! (`scripts/test.sh` installs it: `cargo install s3s-fs@0.14.1 --features binary`).

use std::collections::{BTreeMap, BTreeSet};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use fanorona_net::{Device, Trainer};
use fanorona_testkit::TempDir;
use fanorona_train::RunState;
use fanorona_train::replay::read_shard;

const BUCKET: &str = "runs";
const ACCESS_KEY: &str = "fanorona-test";
const SECRET_KEY: &str = "fanorona-test-secret";

fn s3s_binary() -> PathBuf {
    if let Some(path) = std::env::var_os("FANORONA_S3S_FS") {
        return PathBuf::from(path);
    }
    let mut candidates: Vec<PathBuf> = std::env::var_os("PATH")
        .map(|p| {
            std::env::split_paths(&p)
                .map(|d| d.join("s3s-fs"))
                .collect()
        })
        .unwrap_or_default();
    if let Some(home) = std::env::var_os("HOME") {
        candidates.push(PathBuf::from(home).join(".cargo/bin/s3s-fs"));
    }
    candidates
        .into_iter()
        .find(|p| p.is_file())
        .unwrap_or_else(|| {
            panic!(
                "the S3-compatible test server s3s-fs is not installed: run scripts/test.sh (which \
             installs it), or `cargo install s3s-fs@0.14.1 --locked --features binary`, or set \
             FANORONA_S3S_FS to its path"
            )
        })
}

/// An s3s-fs server on loopback storing its objects as files under `root`.
struct Server {
    root: PathBuf,
    port: u16,
    child: Option<Child>,
}

impl Server {
    fn start(root: &Path) -> Server {
        std::fs::create_dir_all(root.join(BUCKET)).unwrap();
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let mut server = Server {
            root: root.to_path_buf(),
            port,
            child: None,
        };
        server.up();
        server
    }

    fn up(&mut self) {
        let child = Command::new(s3s_binary())
            .args(["--host", "127.0.0.1", "--port", &self.port.to_string()])
            .args(["--access-key", ACCESS_KEY, "--secret-key", SECRET_KEY])
            .arg(&self.root)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("s3s-fs starts");
        self.child = Some(child);
        let deadline = Instant::now() + Duration::from_secs(20);
        while TcpStream::connect(("127.0.0.1", self.port)).is_err() {
            assert!(Instant::now() < deadline, "s3s-fs did not listen");
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn down(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.down();
    }
}

/// Where the run is: its `--run-dir` argument and the folder holding its files.
struct Backend {
    run_dir: String,
    files: PathBuf,
    env: Vec<(String, String)>,
    server: Option<Server>,
}

impl Backend {
    /// A run `prefix` in the bucket of a new server storing its files under `tmp/s3`.
    fn bucket(tmp: &Path, prefix: &str) -> Backend {
        let server = Server::start(&tmp.join("s3"));
        Backend {
            run_dir: format!("s3://{BUCKET}/{prefix}"),
            files: tmp.join("s3").join(BUCKET).join(prefix),
            env: vec![
                ("AWS_ACCESS_KEY_ID".into(), ACCESS_KEY.into()),
                ("AWS_SECRET_ACCESS_KEY".into(), SECRET_KEY.into()),
                (
                    "AWS_ENDPOINT_URL".into(),
                    format!("http://127.0.0.1:{}", server.port),
                ),
            ],
            server: Some(server),
        }
    }
}

fn tiny_config(dir: &Path) -> PathBuf {
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../configs/tiny.toml"),
    )
    .unwrap();
    let path = dir.join("store-test.toml");
    std::fs::write(
        &path,
        text.replace("name = \"tiny\"", "name = \"store-test\""),
    )
    .unwrap();
    path
}

fn command(backend: &Backend, tmp: &Path, args: &[&str], log: &str) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_fanorona"));
    cmd.args(args)
        .args(["--run-dir", &backend.run_dir])
        .env("FANORONA_CACHE_DIR", tmp.join("cache"))
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(tmp.join(format!("{log}.out"))).unwrap())
        .stderr(std::fs::File::create(tmp.join(format!("{log}.err"))).unwrap());
    for (key, value) in &backend.env {
        cmd.env(key, value);
    }
    cmd
}

fn names(dir: &Path, suffix: &str) -> BTreeSet<String> {
    fanorona_testkit::file_names(dir, suffix)
}

fn wait_for(what: &str, timeout: Duration, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + timeout;
    while !done() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn logs(tmp: &Path) -> String {
    let mut out = String::new();
    for entry in std::fs::read_dir(tmp).unwrap().filter_map(|e| e.ok()) {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.ends_with(".err") || name.ends_with(".out") {
            let text = std::fs::read_to_string(entry.path()).unwrap_or_default();
            let tail: Vec<&str> = text.lines().rev().take(15).collect();
            out += &format!("--- {name}\n");
            for line in tail.into_iter().rev() {
                out += line;
                out += "\n";
            }
        }
    }
    out
}

fn interrupt(child: &mut Child) -> std::process::ExitStatus {
    let _ = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status();
    child.wait().unwrap()
}

/// The whole scenario on `backend`; `outage` stops the store's server for a few seconds.
fn trainer_and_two_workers(backend: &mut Backend, tmp: &Path) {
    let config = tiny_config(tmp);
    let config = config.to_str().unwrap();
    let train_args = [
        "train",
        "--config",
        config,
        "--no-selfplay",
        "--generations",
    ];
    let trainer_for = |generations: &str, log: &str| {
        command(
            backend,
            tmp,
            &[&train_args[..], &[generations]].concat(),
            log,
        )
        .spawn()
        .unwrap()
    };
    let mut trainer = trainer_for("5", "trainer1");
    let checkpoints = backend.files.join("checkpoints");
    let selfplay = backend.files.join("selfplay");
    wait_for("the starting checkpoint", Duration::from_secs(120), || {
        !names(&checkpoints, ".ckpt").is_empty()
    });
    let worker = |name: &str, log: &str| {
        command(
            backend,
            tmp,
            &["selfplay", "--worker", name],
            &format!("{name}-{log}"),
        )
        .spawn()
        .unwrap()
    };
    let mut a = worker("wA", "1");
    let mut b = worker("wB", "1");

    // Worker A dies the moment its first shard lands, while it writes the next ones.
    wait_for("worker A's first shard", Duration::from_secs(120), || {
        names(&selfplay, ".shard")
            .iter()
            .any(|n| n.contains("-wA-"))
    });
    a.kill().unwrap();
    a.wait().unwrap();
    let mut a = worker("wA", "2");

    // The trainer dies after its first trained checkpoint, and resumes.
    wait_for("a trained checkpoint", Duration::from_secs(180), || {
        names(&checkpoints, ".ckpt")
            .iter()
            .any(|n| n != "ckpt-000000000.ckpt")
    });
    trainer.kill().unwrap();
    trainer.wait().unwrap();
    let mut trainer = trainer_for("4", "trainer2");

    // The store goes away for a few seconds while everyone works.
    if let Some(server) = backend.server.as_mut() {
        std::thread::sleep(Duration::from_millis(500));
        server.down();
        std::thread::sleep(Duration::from_secs(3));
        server.up();
    }

    let deadline = Instant::now() + Duration::from_secs(400);
    let status = loop {
        if let Some(status) = trainer.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            let _ = trainer.kill();
            panic!("the resumed trainer did not finish\n{}", logs(tmp));
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    assert!(
        status.success(),
        "the resumed trainer failed\n{}",
        logs(tmp)
    );
    for w in [&mut a, &mut b] {
        let status = interrupt(w);
        assert!(status.success(), "a worker failed\n{}", logs(tmp));
    }
    check_run(&backend.files, tmp);
    // The newest network exported straight from the run, wherever it is.
    let out = tmp.join("newest.fnm");
    let status = command(
        backend,
        tmp,
        &["export", "--out", out.to_str().unwrap()],
        "export",
    )
    .status()
    .unwrap();
    assert!(status.success(), "export failed\n{}", logs(tmp));
    assert!(fanorona_net::load_exported(&out, fanorona_net::Backend::Native).is_ok());
}

/// Every shard decodes, every checkpoint loads, and the newest checkpoint's state counts each
/// ingested shard once.
fn check_run(files: &Path, tmp: &Path) {
    let shards = names(&files.join("selfplay"), ".shard");
    let mut games_in = BTreeMap::new();
    for name in &shards {
        let shard = read_shard(&files.join("selfplay").join(name))
            .unwrap_or_else(|e| panic!("shard {name} does not decode: {e}"));
        games_in.insert(name.clone(), shard.games.len() as u64);
    }
    let checkpoints = names(&files.join("checkpoints"), ".ckpt");
    let mut newest = None;
    for name in &checkpoints {
        let (trainer, extra) =
            Trainer::load_checkpoint(&files.join("checkpoints").join(name), &Device::flex())
                .unwrap_or_else(|e| panic!("checkpoint {name} does not load: {e}"));
        let state: RunState = serde_json::from_slice(&extra).unwrap();
        newest = Some((trainer.steps(), state));
    }
    let (steps, state) = newest.expect("checkpoints");
    assert!(
        // The resumed trainer ran four generations after at least one of the first.
        state.generation >= 4,
        "generation {} at {steps} steps\n{}",
        state.generation,
        logs(tmp)
    );
    let mut by_worker: BTreeMap<String, u64> = BTreeMap::new();
    let mut total = 0;
    for name in &state.ingested {
        let games = *games_in
            .get(name)
            .unwrap_or_else(|| panic!("ingested shard {name} is not in the run"));
        total += games;
        let worker = name.split('-').nth(2).unwrap().to_string();
        *by_worker.entry(worker).or_default() += games;
    }
    assert_eq!(state.games_seen, total, "games counted once each");
    assert_eq!(state.games_by_worker, by_worker);
    for worker in ["wA", "wB"] {
        assert!(
            by_worker.get(worker).is_some_and(|&g| g > 0),
            "worker {worker} contributed no games: {by_worker:?}\n{}",
            logs(tmp)
        );
    }
    let log = std::fs::read_to_string(files.join("train.log")).unwrap();
    assert!(log.contains("resume from"), "{log}");
    assert!(
        log.lines()
            .any(|l| l.contains("new games (") && l.contains("wA")),
        "{log}"
    );
}

#[test]
fn a_trainer_and_two_workers_share_a_bucket_through_kills_and_an_outage() {
    let tmp = TempDir::new("store-s3");
    let mut backend = Backend::bucket(tmp.path(), "store-test");
    trainer_and_two_workers(&mut backend, tmp.path());
    assert!(
        !backend.files.join("train.lease").exists(),
        "the trainer's lease is released at its end"
    );
}

#[test]
fn a_trainer_and_two_workers_share_a_local_folder_through_kills() {
    let tmp = TempDir::new("store-local");
    let files = tmp.path().join("run");
    let mut backend = Backend {
        run_dir: files.to_string_lossy().into_owned(),
        files,
        env: Vec::new(),
        server: None,
    };
    trainer_and_two_workers(&mut backend, tmp.path());
}

#[test]
fn a_second_trainer_on_a_bucket_is_refused_while_the_first_holds_the_lease() {
    let tmp = TempDir::new("store-lease");
    let backend = Backend::bucket(tmp.path(), "lease-test");
    let config = tiny_config(tmp.path());
    let config = config.to_str().unwrap();
    // The first trainer waits for workers that never come: it holds the lease meanwhile.
    let mut first = command(
        &backend,
        tmp.path(),
        &["train", "--config", config, "--no-selfplay"],
        "first",
    )
    .spawn()
    .unwrap();
    wait_for("the lease", Duration::from_secs(120), || {
        backend.files.join("train.lease").exists()
    });
    let second = command(
        &backend,
        tmp.path(),
        &["train", "--config", config, "--generations", "1"],
        "second",
    )
    .status()
    .unwrap();
    assert!(!second.success());
    let err = std::fs::read_to_string(tmp.path().join("second.err")).unwrap();
    assert!(err.contains("in use by another trainer"), "{err}");
    assert!(interrupt(&mut first).success(), "{}", logs(tmp.path()));
    assert!(!backend.files.join("train.lease").exists());
}
