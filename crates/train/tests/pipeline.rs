//! The whole training loop on `configs/tiny.toml`: files of a run, resuming, bad shards.

use fanorona_testkit::TempDir;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use fanorona_net::{Device, Trainer};
use fanorona_train::replay::read_shard;
use fanorona_train::{RunState, TrainConfig, TrainOptions, train};

fn tiny() -> TrainConfig {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../configs/tiny.toml");
    TrainConfig::load(&path).unwrap()
}

fn temp_dir(name: &str) -> TempDir {
    TempDir::new(name)
}

fn options(dir: &Path, generations: u64) -> TrainOptions {
    TrainOptions {
        run_dir: dir.to_path_buf().into(),
        work_dir: None,
        selfplay: true,
        generations: Some(generations),
        interactive: false,
        stop: Arc::new(AtomicBool::new(false)),
        tablebases: None,
        backend: None,
    }
}

fn files(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map(|d| {
            d.filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

#[test]
fn a_tiny_run_writes_every_part_of_the_run_directory() {
    let dir = temp_dir("layout");
    let summary = train(&tiny(), &options(&dir, 4)).unwrap();
    assert_eq!(summary.generation, 4);
    assert!(!summary.resumed);
    assert_eq!(summary.steps, 4 * 6, "tiny trains 6 steps per generation");
    for name in ["config.toml", "meta.json", "train.log", "ratings.csv"] {
        assert!(dir.join(name).is_file(), "{name}");
    }
    let meta: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("meta.json")).unwrap()).unwrap();
    assert!(meta["git_revision"].is_string() && meta["program_version"].is_string());
    // Every shard reads back; 8 games a generation.
    let shards = files(&dir.join("selfplay"));
    let mut games = 0;
    for name in &shards {
        let shard = read_shard(&dir.join("selfplay").join(name)).unwrap();
        assert!(!shard.samples.is_empty());
        for s in &shard.samples {
            s.position().unwrap();
            let total: f32 = s.policy.iter().map(|(_, p)| p).sum();
            assert!((total - 1.0).abs() < 1e-3, "policy target sums to {total}");
        }
        games += shard.games.len();
    }
    assert_eq!(games, 4 * 8);
    // The newest checkpoint loads and says where the run stands.
    let ckpts = files(&dir.join("checkpoints"));
    assert!(
        ckpts.len() <= 3 + 2,
        "pruned to `keep` plus rated ones: {ckpts:?}"
    );
    let newest = dir.join("checkpoints").join(ckpts.last().unwrap());
    let (trainer, extra) = Trainer::load_checkpoint(&newest, &Device::flex()).unwrap();
    let state: RunState = serde_json::from_slice(&extra).unwrap();
    assert_eq!((state.generation, trainer.steps()), (4, 24));
    assert_eq!(state.rated.len(), 2, "rated every second generation");
    // Ratings: a header and one row per rating match.
    let ratings = std::fs::read_to_string(dir.join("ratings.csv")).unwrap();
    assert_eq!(ratings.lines().count(), 1 + 2 + 1, "{ratings}");
    assert!(ratings.lines().nth(1).unwrap().contains(",random,2,"));
    // TensorBoard got events.
    let tb = files(&dir.join("tensorboard"));
    assert!(
        tb.iter().any(|n| n.starts_with("events.out.tfevents")),
        "{tb:?}"
    );
    let size: u64 = tb
        .iter()
        .map(|n| {
            std::fs::metadata(dir.join("tensorboard").join(n))
                .unwrap()
                .len()
        })
        .sum();
    assert!(size > 1000, "tensorboard events are written ({size} bytes)");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn resuming_gives_the_same_network_as_an_uninterrupted_run() {
    let straight = temp_dir("straight");
    let split = temp_dir("split");
    train(&tiny(), &options(&straight, 3)).unwrap();
    train(&tiny(), &options(&split, 1)).unwrap();
    let resumed = train(&tiny(), &options(&split, 2)).unwrap();
    assert!(resumed.resumed);
    assert_eq!(resumed.generation, 3);
    let load = |dir: &Path| {
        let name = files(&dir.join("checkpoints")).pop().unwrap();
        let (trainer, _) =
            Trainer::load_checkpoint(&dir.join("checkpoints").join(name), &Device::flex()).unwrap();
        let model = trainer.inference_model(fanorona_net::Backend::Native);
        let planes = vec![0.5; model.config().input_len()];
        model.forward(&planes, 1)
    };
    let (a, b) = (load(&straight), load(&split));
    assert_eq!(
        a, b,
        "same seed, same games, same batches: the same weights"
    );
    assert_eq!(
        files(&straight.join("selfplay")),
        files(&split.join("selfplay"))
    );
    let _ = std::fs::remove_dir_all(&straight);
    let _ = std::fs::remove_dir_all(&split);
}

#[test]
fn a_corrupt_shard_is_skipped_with_a_warning() {
    let dir = temp_dir("corrupt");
    train(&tiny(), &options(&dir, 1)).unwrap();
    let selfplay = dir.join("selfplay");
    let victim = selfplay.join(files(&selfplay).first().unwrap());
    let mut bytes = std::fs::read(&victim).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0xFF;
    std::fs::write(&victim, &bytes).unwrap();
    std::fs::write(
        selfplay.join("sp-g999999-junk-00000-n0001.shard"),
        b"not a shard",
    )
    .unwrap();
    let summary = train(&tiny(), &options(&dir, 1)).unwrap();
    assert_eq!(summary.generation, 2, "training goes on");
    let log = std::fs::read_to_string(dir.join("train.log")).unwrap();
    assert!(
        log.contains("skipped shard")
            && log.contains(&victim.file_name().unwrap().to_string_lossy().to_string()),
        "{log}"
    );
    assert!(
        log.contains("checksum") || log.contains("CRC") || log.contains("corrupt"),
        "{log}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_directory_that_is_not_a_run_is_refused() {
    let dir = temp_dir("notarun");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("precious.txt"), b"keep me").unwrap();
    let err = train(&tiny(), &options(&dir, 1)).unwrap_err().to_string();
    assert!(err.contains("not a run directory"), "{err}");
    assert_eq!(std::fs::read(dir.join("precious.txt")).unwrap(), b"keep me");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn endgame_tables_are_built_on_first_use_and_adjudicate_self_play_games() {
    let dir = temp_dir("tables-run");
    let tables = temp_dir("tables-dir");
    let mut config = tiny();
    config.tablebase.dir = tables.to_string_lossy().into_owned();
    config.tablebase.build_stones = 4;
    config.tablebase.play_on_fraction = 0.0;
    config.selfplay.games_per_generation = 16;
    config.selfplay.concurrent_games = 16;
    train(&config, &options(&dir, 2)).unwrap();
    // the tables of the tiny rules were built into the configured directory
    let opened = fanorona_tablebase::Tablebase::open(
        &tables,
        fanorona_engine::Rules {
            no_progress_limit: config.rules.no_progress_limit,
        },
    )
    .unwrap();
    assert_eq!(opened.max_stones(), 4);
    // every game that reached at most 4 stones ended there, with the table's result as the
    // value target of its samples
    let (mut adjudicated, mut decisive) = (0, 0);
    for name in files(&dir.join("selfplay")) {
        let shard = read_shard(&dir.join("selfplay").join(&name)).unwrap();
        for game in &shard.games {
            if game.end == fanorona_train::replay::GameEnd::Tablebase {
                adjudicated += 1;
                decisive += usize::from(game.winner.is_some());
            }
        }
    }
    assert!(adjudicated > 0, "no game was adjudicated");
    assert!(
        decisive > 0,
        "the tables decided only draws ({adjudicated} games)"
    );
}

#[test]
fn a_diverging_run_stops_with_a_clear_error_instead_of_retrying_forever() {
    // Issue 16: once the loss is NaN it stays so, and the run used to redraw the same batch
    // forever. A learning rate far beyond what validation allows (the config is built here,
    // not read from a file) makes the divergence certain on the first steps.
    let dir = temp_dir("diverged");
    let mut config = tiny();
    config.training.learning_rate = vec![(0, 1e12)];
    let started = std::time::Instant::now();
    let err = train(&config, &options(&dir, 20)).unwrap_err();
    assert!(
        matches!(err, fanorona_train::TrainError::Diverged { .. }),
        "{err}"
    );
    assert!(err.to_string().contains("learning_rate"), "{err}");
    // bounded: a few skipped batches, not an endless log
    let log = std::fs::read_to_string(dir.join("train.log")).unwrap();
    let skipped = log.lines().filter(|l| l.contains("batch skipped")).count();
    assert_eq!(
        skipped as u32,
        fanorona_train::MAX_NON_FINITE_BATCHES,
        "{log}"
    );
    assert!(started.elapsed().as_secs() < 300);
}

#[test]
fn one_trainer_per_run_and_the_lock_goes_with_it() {
    // Issue 16: two trainers on one run pruned each other's checkpoints.
    let dir = temp_dir("locked");
    train(&tiny(), &options(&dir, 1)).unwrap();
    let before = files(&dir.join("checkpoints"));
    let held = fanorona_train::RunLock::acquire(&dir).unwrap();
    let err = train(&tiny(), &options(&dir, 1)).unwrap_err().to_string();
    assert!(err.contains("in use by another trainer"), "{err}");
    assert!(
        err.contains(&std::process::id().to_string()),
        "names the holder: {err}"
    );
    assert_eq!(files(&dir.join("checkpoints")), before, "nothing touched");
    drop(held);
    let summary = train(&tiny(), &options(&dir, 1)).unwrap();
    assert_eq!(summary.generation, 2);
}

#[test]
fn a_run_named_by_its_path_and_by_a_file_url_has_one_trainer() {
    // Two trainers trained one run at once when one named it `runs/r` and the other
    // `file:///.../runs/r`: the lock (a file lock) and the lease (an object) did not see
    // each other.
    let dir = temp_dir("two-spellings");
    let url = format!("file://{}", dir.display());
    let store = || Arc::new(fanorona_train::store::StoreRun::open(&url).unwrap());
    // the path's trainer holds it: a trainer of the URL is refused ...
    let held = fanorona_train::RunLock::acquire(&dir).unwrap();
    let err = fanorona_train::RunLock::acquire_lease(store())
        .unwrap_err()
        .to_string();
    assert!(err.contains("in use by another trainer"), "{err}");
    let mut by_url = options(&dir, 1);
    by_url.run_dir = fanorona_train::RunLocation::parse(&url);
    let err = train(&tiny(), &by_url).unwrap_err().to_string();
    assert!(err.contains("in use by another trainer"), "{err}");
    drop(held);
    // ... and the other way round
    let held = fanorona_train::RunLock::acquire_lease(store()).unwrap();
    let err = train(&tiny(), &options(&dir, 1)).unwrap_err().to_string();
    assert!(err.contains("in use by another trainer"), "{err}");
    drop(held);
    assert_eq!(
        fanorona_train::RunLocation::parse(&url).folder(),
        Some(dir.to_path_buf())
    );
    assert_eq!(
        fanorona_train::RunLocation::parse("s3://bucket/runs/r").folder(),
        None
    );
}

#[test]
fn bad_settings_are_found_before_the_run_starts_and_named_where_they_are() {
    // A baseline with a missing evaluation was accepted and warned about at every rating;
    // a bad tablebase.dir left a run folder behind, and once there, the run's own config was
    // used on resume without saying so.
    let base = temp_dir("bad-settings");
    let dir = base.join("run");
    let mut config = tiny();
    config.evaluation.baselines = vec![
        "random".into(),
        "alphabeta:depth=1,eval=/nonexistent.fne".into(),
    ];
    let err = train(&config, &options(&dir, 1)).unwrap_err().to_string();
    assert!(
        err.contains("evaluation.baselines[1]") && err.contains("/nonexistent.fne"),
        "{err}"
    );
    assert!(!dir.exists(), "no run folder is left behind");
    let file = base.join("a-file");
    std::fs::write(&file, "not tables").unwrap();
    let mut config = tiny();
    config.tablebase.dir = file.display().to_string();
    let err = train(&config, &options(&dir, 1)).unwrap_err().to_string();
    assert!(err.contains("tablebase.dir"), "{err}");
    assert!(!dir.exists(), "no run folder is left behind");
    // a run whose own config goes bad later: the error names that file
    train(&tiny(), &options(&dir, 1)).unwrap();
    let own = dir.join("config.toml");
    let text = std::fs::read_to_string(&own).unwrap();
    std::fs::write(
        &own,
        text.replace(
            "baselines = [\"random\"]",
            "baselines = [\"alphabeta:eval=/nonexistent.fne\"]",
        ),
    )
    .unwrap();
    let err = train(&tiny(), &options(&dir, 1)).unwrap_err().to_string();
    assert!(
        err.contains("evaluation.baselines[0]") && err.contains(&own.display().to_string()),
        "{err}"
    );
}

#[test]
fn a_new_shape_in_the_runs_config_is_refused_on_resume_naming_the_key() {
    // Issue 16: an edited `blocks` was silently ignored (the checkpoint's shape won).
    let dir = temp_dir("reshaped");
    train(&tiny(), &options(&dir, 1)).unwrap();
    let path = dir.join("config.toml");
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains("blocks = 1"), "{text}");
    std::fs::write(&path, text.replace("blocks = 1", "blocks = 2")).unwrap();
    let err = train(&tiny(), &options(&dir, 1)).unwrap_err().to_string();
    assert!(
        err.contains("model.blocks") && err.contains("2") && err.contains("1"),
        "{err}"
    );
    // Set back, the run goes on.
    std::fs::write(&path, text).unwrap();
    assert_eq!(train(&tiny(), &options(&dir, 1)).unwrap().generation, 2);
}

#[cfg(not(feature = "cuda"))]
#[test]
fn a_device_this_build_lacks_is_refused_before_the_run_exists() {
    // Issue 16: the run directory was made first, and its saved config failed every later start.
    let parent = temp_dir("no-cuda");
    let dir = parent.join("run");
    let mut config = tiny();
    config.training.device = "cuda".into();
    let err = train(&config, &options(&dir, 1)).unwrap_err().to_string();
    assert!(err.to_lowercase().contains("cuda"), "{err}");
    assert!(!dir.exists(), "nothing was created");
}

#[test]
fn leftovers_of_a_killed_trainer_and_impossible_counters_are_dealt_with() {
    let dir = temp_dir("leftovers");
    train(&tiny(), &options(&dir, 1)).unwrap();
    let ckpts = dir.join("checkpoints");
    let newest = ckpts.join(files(&ckpts).pop().unwrap());
    // A fresh checkpoint temporary (the trainer was killed a moment ago), a worker's fresh
    // shard temporary, and a checkpoint named with a counter no run reaches.
    let ckpt_temp = ckpts.join(".ckpt-000000099.ckpt.4242.0.tmp");
    std::fs::write(&ckpt_temp, vec![0u8; 3_000_000]).unwrap();
    let shard_temp = dir
        .join("selfplay")
        .join(".sp-g000001-w-00000-n0001.shard.77.0.tmp");
    std::fs::write(&shard_temp, b"half").unwrap();
    let bogus = ckpts.join("ckpt-18446744073709551615.ckpt");
    std::fs::copy(&newest, &bogus).unwrap();
    let summary = train(&tiny(), &options(&dir, 1)).unwrap();
    assert_eq!(summary.generation, 2, "resumed from the real newest");
    assert!(
        !ckpt_temp.exists(),
        "the trainer's own temporary is removed at once"
    );
    assert!(shard_temp.exists(), "a worker's may still be in use");
    let last = summary.checkpoint.unwrap();
    assert_ne!(last, bogus);
    assert!(
        last.to_string_lossy().contains("ckpt-0000000"),
        "{}",
        last.display()
    );
}

#[test]
fn a_run_started_from_a_model_file_says_so_and_refuses_one_of_another_shape() {
    let base = temp_dir("start-from");
    let first = base.join("first");
    train(&tiny(), &options(&first, 1)).unwrap();
    let newest = files(&first.join("checkpoints")).pop().unwrap();
    let model = base.join("first.fnm");
    fanorona_net::export(
        &first.join("checkpoints").join(newest),
        &model,
        &Default::default(),
    )
    .unwrap();

    let mut config = tiny();
    config.training.start_from = model.display().to_string();
    let second = base.join("second");
    let summary = train(&config, &options(&second, 1)).unwrap();
    assert_eq!(summary.steps, 6, "the step count starts afresh");
    let log = std::fs::read_to_string(second.join("train.log")).unwrap();
    assert!(
        log.contains(&format!("start from the weights of {}", model.display())),
        "{log}"
    );
    // Resumed, the run goes on from its checkpoints, not from the file.
    train(&config, &options(&second, 1)).unwrap();
    let log = std::fs::read_to_string(second.join("train.log")).unwrap();
    assert_eq!(log.matches("start from the weights").count(), 1, "{log}");

    // A model of another shape is refused, naming the file and [model].
    config.model.channels += 8;
    let err = train(&config, &options(&base.join("third"), 1))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("training.start_from") && err.contains("first.fnm") && err.contains("[model]"),
        "{err}"
    );
    assert!(!base.join("third").exists(), "no run folder is left behind");
    // An evaluation run has no network to start from.
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../configs/tiny-eval.toml");
    let text = std::fs::read_to_string(path).unwrap().replace(
        "[training]\n",
        &format!("[training]\nstart_from = \"{}\"\n", model.display()),
    );
    let err = TrainConfig::parse(&text, "tiny-eval.toml")
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("training.start_from") && err.contains("tiny-eval.toml"),
        "{err}"
    );
}
