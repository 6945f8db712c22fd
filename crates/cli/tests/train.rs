//! End-to-end runs of `fanorona train`, `selfplay`, `export`, `pit` with a network and
//! `bench-net`, through the built binary. Includes killing training with SIGKILL at random
//! moments and checking that it resumes without losing or corrupting anything.

use fanorona_testkit::TempDir;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use fanorona_net::{Device, Trainer};
use fanorona_train::replay::read_shard;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_fanorona"))
}

fn tiny_config() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../configs/tiny.toml")
}

/// `fanorona train` with the tiny config in `dir` for `generations` generations.
fn train_tiny(dir: &Path, generations: u32) -> Command {
    train_with(&tiny_config(), dir, generations)
}

/// `fanorona train` with `config` in `dir` for `generations` generations.
fn train_with(config: &Path, dir: &Path, generations: u32) -> Command {
    let mut cmd = bin();
    cmd.args(["train", "--config"])
        .arg(config)
        .arg("--run-dir")
        .arg(dir)
        .args(["--generations", &generations.to_string()]);
    cmd
}

fn temp_dir(name: &str) -> TempDir {
    TempDir::new(name)
}

fn run(cmd: &mut Command) -> Output {
    let out = cmd.output().expect("the binary runs");
    assert!(
        out.status.success(),
        "{cmd:?} failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn names(dir: &Path, suffix: &str) -> BTreeSet<String> {
    fanorona_testkit::file_names(dir, suffix)
}

fn newest_checkpoint(run: &Path) -> Option<PathBuf> {
    names(&run.join("checkpoints"), ".ckpt")
        .into_iter()
        .next_back()
        .map(|n| run.join("checkpoints").join(n))
}

#[test]
fn train_export_and_play_the_network_in_pit() {
    let dir = temp_dir("e2e");
    let out = run(&mut train_tiny(&dir, 2));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("generation 2"), "{stdout}");
    let ckpt = newest_checkpoint(&dir).expect("a checkpoint");
    let model = dir.join("tiny.fnm");
    let out = run(bin()
        .arg("export")
        .arg(&ckpt)
        .arg("--out")
        .arg(&model)
        .args(["--label", "tiny test"]));
    assert!(String::from_utf8_lossy(&out.stdout).contains("1 block x 8 channels"));
    let spec = format!("net:path={},sims=4", model.display());
    let out = run(bin().args([
        "pit", &spec, "random", "--games", "2", "--seed", "5", "--json",
    ]));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let played = json["wins"].as_u64().unwrap()
        + json["draws"].as_u64().unwrap()
        + json["losses"].as_u64().unwrap();
    assert_eq!(played, 2, "{json}");

    // Rate the run's checkpoints on one scale and chart them against training time; the
    // exported model is the newest checkpoint's network, so it is rated once.
    let chart = dir.join("elo.svg");
    let out = run(bin()
        .args(["rate", "--no-tablebases", "--panel", "alphabeta:depth=1"])
        .args(["--sims", "4", "--games", "2", "--json", "--run-dir"])
        .arg(&dir)
        .arg("--plot")
        .arg(&chart)
        .arg(&model));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("is the same player as"), "{stderr}");
    let checkpoints: Vec<&serde_json::Value> = json["players"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["steps"].is_u64())
        .collect();
    let on_disk = names(&dir.join("checkpoints"), ".ckpt").len();
    assert_eq!(checkpoints.len(), on_disk, "{json}");
    for c in &checkpoints {
        assert!(c["training_seconds"].as_f64().unwrap() > 0.0, "{c}");
        assert!(c["spec"].as_str().unwrap().ends_with(",sims=4"), "{c}");
    }
    let svg = std::fs::read_to_string(&chart).unwrap();
    assert_eq!(svg.matches("<circle").count(), on_disk, "{svg}");
    assert!(dir.join("rating-games").is_dir());
    let _ = std::fs::remove_dir_all(&dir);
}

/// A deterministic pseudo-random sequence for the kill times.
fn next(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
}

#[test]
fn training_survives_sigkill_at_random_moments() {
    let dir = temp_dir("kill");
    let mut rng = 0x5EED_u64;
    let mut shards_seen: BTreeSet<String> = BTreeSet::new();
    for round in 0..6 {
        let mut child = train_tiny(&dir, 1000)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(150 + next(&mut rng) % 1200));
        child.kill().unwrap(); // SIGKILL on Unix: no chance to clean up
        child.wait().unwrap();
        // Every shard on disk is complete and readable, and none written before is gone.
        let shards = names(&dir.join("selfplay"), ".shard");
        for name in &shards {
            read_shard(&dir.join("selfplay").join(name))
                .unwrap_or_else(|e| panic!("round {round}: {e}"));
        }
        assert!(
            shards_seen.is_subset(&shards),
            "round {round}: finished shards were lost"
        );
        shards_seen = shards;
        // The newest checkpoint loads.
        if let Some(ckpt) = newest_checkpoint(&dir) {
            Trainer::load_checkpoint(&ckpt, &Device::flex())
                .unwrap_or_else(|e| panic!("round {round}: {e}"));
        }
    }
    assert!(
        !shards_seen.is_empty(),
        "training made progress between the kills"
    );
    // A clean restart resumes from the newest checkpoint on disk.
    let before = newest_checkpoint(&dir);
    run(&mut train_tiny(&dir, 1));
    let log = std::fs::read_to_string(dir.join("train.log")).unwrap();
    let last_start = log
        .lines()
        .rfind(|l| l.contains(" resume from ") || l.contains(" start run "))
        .unwrap();
    match before {
        Some(ckpt) => assert!(
            last_start.contains(&*ckpt.to_string_lossy()),
            "{last_start} (expected {})",
            ckpt.display()
        ),
        None => assert!(last_start.contains("start run"), "{last_start}"),
    }
    let after = names(&dir.join("selfplay"), ".shard");
    assert!(shards_seen.is_subset(&after));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_selfplay_worker_feeds_a_run() {
    let dir = temp_dir("worker");
    run(&mut train_tiny(&dir, 1));
    let mut child = bin()
        .args(["selfplay", "--run-dir"])
        .arg(&dir)
        .args(["--worker", "helper7"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut found = BTreeSet::new();
    for _ in 0..100 {
        std::thread::sleep(Duration::from_millis(100));
        found = names(&dir.join("selfplay"), ".shard")
            .into_iter()
            .filter(|n| n.contains("-helper7-"))
            .collect();
        if found.len() >= 2 {
            break;
        }
    }
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(!found.is_empty(), "the worker wrote shards");
    for name in &found {
        read_shard(&dir.join("selfplay").join(name)).unwrap();
    }
    // The trainer ingests them in its next generation.
    run(&mut train_tiny(&dir, 1));
    let log = std::fs::read_to_string(dir.join("train.log")).unwrap();
    assert!(log.lines().any(|l| l.contains("generation 1:")), "{log}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_bad_config_names_the_key() {
    let dir = temp_dir("badconfig");
    std::fs::create_dir_all(&dir).unwrap();
    let config = dir.join("bad.toml");
    std::fs::write(&config, "name = \"x\"\n[selfplay]\nconcurrent_games = 0\n").unwrap();
    let out = bin()
        .args(["train", "--config"])
        .arg(&config)
        .arg("--run-dir")
        .arg(dir.join("run"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("selfplay.concurrent_games") && err.contains("bad.toml"),
        "{err}"
    );
    std::fs::write(&config, "name = \"x\"\n[trainig]\n").unwrap();
    let out = bin()
        .args(["train", "--config"])
        .arg(&config)
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stderr).contains("trainig"));
    assert!(
        !dir.join("run").exists(),
        "nothing is created for a bad config"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn export_and_model_loading_reject_bad_files() {
    let dir = temp_dir("badmodel");
    std::fs::create_dir_all(&dir).unwrap();
    let junk = dir.join("junk.ckpt");
    std::fs::write(&junk, b"definitely not a checkpoint").unwrap();
    let out = bin()
        .arg("export")
        .arg(&junk)
        .arg("--out")
        .arg(dir.join("m.fnm"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("junk.ckpt"));
    assert!(!dir.join("m.fnm").exists());
    let spec = format!("net:path={}", junk.display());
    let out = bin()
        .args(["pit", &spec, "random", "--games", "2"])
        .output()
        .unwrap();
    assert_ne!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stderr).contains("junk.ckpt"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bench_net_reports_rates() {
    let out = run(bin().args([
        "bench-net",
        "--blocks",
        "1",
        "--channels",
        "8",
        "--seconds",
        "0.05",
        "--train-batch",
        "16",
    ]));
    let text = String::from_utf8_lossy(&out.stdout);
    for needle in [
        "GFLOP/s",
        "against the widest level's peak",
        "measured fp32 peak",
        "full evaluation path at batch 64",
        "samples/s",
    ] {
        assert!(text.contains(needle), "{needle}: {text}");
    }
    // One line per batch size: `batch <B>: burn <X> evals/s (<P>%)`, then for every SIMD level
    // this CPU runs `; native <level> <Y> evals/s, <G> GFLOP/s (<Q>%), <R>x burn`, with the
    // ratio of the two rates.
    let natives = |line: &str| -> Vec<(String, f64)> {
        let (head, rest) = line.split_once("; native ").expect(line);
        let burn: f64 = head
            .split_once(": burn ")
            .and_then(|(_, r)| r.split_once(" evals/s"))
            .map(|(v, _)| v.parse().expect(line))
            .expect(line);
        assert!(burn > 0.0, "{line}");
        rest.split("; native ")
            .map(|part| {
                // The level may be two words (`avx2 int8`): the rate is the last word before
                // ` evals/s`.
                let (head, rest) = part.split_once(" evals/s, ").expect(line);
                let (level, native) = head.rsplit_once(' ').expect(line);
                let native: f64 = native.parse().expect(line);
                let ratio: f64 = rest
                    .rsplit_once(", ")
                    .and_then(|(_, r)| r.strip_suffix("x burn"))
                    .map(|r| r.parse().expect(line))
                    .expect(line);
                assert!(native > 0.0, "{line}");
                assert!(
                    (ratio - native / burn).abs() < 0.01 + 0.01 * ratio,
                    "{line}"
                );
                (level.to_string(), native)
            })
            .collect()
    };
    for batch in [1, 8, 64, 256] {
        let prefix = format!("batch {batch}: burn ");
        let line = text
            .lines()
            .find(|l| l.starts_with(&prefix))
            .unwrap_or_else(|| panic!("no line for batch {batch}: {text}"));
        // Every level in both precisions, float first, the portable one last.
        let levels: Vec<String> = natives(line).into_iter().map(|(l, _)| l).collect();
        assert!(
            levels.len() >= 4 && levels.len().is_multiple_of(2),
            "{line}"
        );
        for pair in levels.chunks(2) {
            assert_eq!(pair[1], format!("{} int8", pair[0]), "{line}");
        }
        assert_eq!(levels[levels.len() - 2], "portable", "{line}");
    }
    // One level asked for: that one alone; the environment variable picks the default of
    // every command; a level that does not exist is refused.
    let small = [
        "bench-net",
        "--blocks",
        "1",
        "--channels",
        "8",
        "--seconds",
        "0.02",
        "--train-batch",
        "8",
    ];
    let out = run(bin().args(small).args(["--simd", "portable"]));
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text
        .lines()
        .find(|l| l.starts_with("batch 64:"))
        .expect(&text);
    let levels: Vec<String> = natives(line).into_iter().map(|(l, _)| l).collect();
    assert_eq!(levels, ["portable", "portable int8"], "{line}");
    // The full path runs in the default backend's precision: floats on the portable kernels
    // (where the 8-bit kernel is slower).
    assert!(
        text.contains("full evaluation path at batch 64, native portable fp32 ("),
        "{text}"
    );
    // One precision asked for: that one alone.
    let out = run(bin()
        .args(small)
        .args(["--simd", "portable", "--precision", "fp32"]));
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text
        .lines()
        .find(|l| l.starts_with("batch 64:"))
        .expect(&text);
    let levels: Vec<String> = natives(line).into_iter().map(|(l, _)| l).collect();
    assert_eq!(levels, ["portable"], "{line}");
    let out = run(bin().args(small).env("FANORONA_SIMD", "portable"));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("(the default: portable)"), "{text}");
    // Another device for burn: the CPU's figures, then that device's; one this build has no
    // feature for is refused with the command that builds it.
    let out = run(bin().args(small).args(["--device", "cpu"]));
    let text = String::from_utf8_lossy(&out.stdout);
    for needle in [
        "cpu batch 256: burn ",
        "cpu batch 1024: burn ",
        "cpu training at batch 8",
    ] {
        assert!(text.contains(needle), "{needle}: {text}");
    }
    if !cfg!(feature = "wgpu") {
        let out = bin()
            .args(small)
            .args(["--device", "wgpu"])
            .output()
            .unwrap();
        assert!(!out.status.success());
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("--features wgpu"), "{stderr}");
    }
    let out = bin().args(small).args(["--simd", "avx9"]).output().unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("expected avx512, avx2 or portable"));
    // With a config, the network its `[model]` section trains; flags override it.
    let out = run(bin()
        .args(["bench-net", "--config"])
        .arg(tiny_config())
        .args([
            "--channels",
            "12",
            "--seconds",
            "0.02",
            "--train-batch",
            "8",
        ]));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("network 1 block x 12 channels (global pooling every 0)"),
        "{text}"
    );
    let out = bin().args(["bench-net", "--blocks", "0"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("`blocks` = 0"));
}

/// `fanorona train` with the tiny evaluation config in `dir` for `generations` generations.
fn train_tiny_eval(dir: &Path, generations: u32) -> Command {
    let config = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../configs/tiny-eval.toml");
    train_with(&config, dir, generations)
}

/// `rate --run-dir` on the run in `dir`: the specs of its rated checkpoints, and what it said
/// on standard error.
fn rate_run(dir: &Path) -> (Vec<String>, String) {
    let out = run(bin()
        .args(["rate", "--no-tablebases", "--panel", "alphabeta:depth=1"])
        .args(["--sims", "4", "--games", "2", "--json", "--run-dir"])
        .arg(dir));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let rated = json["players"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["steps"].is_u64())
        .map(|p| p["spec"].as_str().unwrap().to_string())
        .collect();
    (rated, String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn an_expert_teaches_the_network_first_then_the_network_plays_itself() {
    let dir = temp_dir("e2e-expert");
    let text = std::fs::read_to_string(tiny_config()).unwrap()
        + "\n[expert]\nuntil_steps = 12\ndepth = 1\nrandom_opening_turns = 2\n";
    let config = dir.join("expert.toml");
    std::fs::write(&config, text).unwrap();
    let run_dir = dir.join("run");
    let out = run(&mut train_with(&config, &run_dir, 4));
    let said = String::from_utf8_lossy(&out.stdout).into_owned()
        + &String::from_utf8_lossy(&out.stderr)
        + &std::fs::read_to_string(run_dir.join("train.log")).unwrap();
    // Six steps a generation: generations 0 and 1 (0 and 6 steps) are the expert's, 2 and 3
    // (12 and 18 steps) the network's own.
    for generation in [0, 1] {
        assert!(
            said.contains(&format!("gen {generation} expert play:")),
            "{said}"
        );
    }
    for generation in [2, 3] {
        assert!(
            said.contains(&format!("gen {generation} self-play:")),
            "{said}"
        );
        assert!(
            !said.contains(&format!("gen {generation} expert")),
            "{said}"
        );
    }
    // The expert's shards hold the network's samples: turn starts and states in the middle
    // of a chain, each with a policy over that state's legal actions and the searched value.
    let (mut starts, mut chains) = (0, 0);
    for name in names(&run_dir.join("selfplay"), ".shard") {
        if !name.starts_with("sp-g000000-") && !name.starts_with("sp-g000001-") {
            continue;
        }
        let shard = read_shard(&run_dir.join("selfplay").join(&name)).unwrap();
        assert!(shard.scored.is_empty() && !shard.games.is_empty(), "{name}");
        for s in &shard.samples {
            assert!(
                s.target_problem().is_none(),
                "{name}: {:?}",
                s.target_problem()
            );
            assert!(s.search_wdl.is_some(), "{name}: the searched value");
            let at = s.position().unwrap();
            let legal: Vec<u16> = at
                .legal_actions()
                .iter()
                .map(|&a| fanorona_train::replay::absolute_index(a))
                .collect();
            assert!(s.policy.iter().all(|(i, _)| legal.contains(i)), "{name}");
            if s.chain_steps.is_empty() {
                starts += 1;
            } else {
                chains += 1;
            }
        }
    }
    assert!(
        starts > 50 && chains > 0,
        "{starts} turn starts, {chains} chain states"
    );
}

#[test]
fn an_evaluation_learns_from_nodes_of_the_search_tree_and_its_teacher_deepens() {
    let dir = temp_dir("e2e-eval-tree");
    let tiny = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../configs/tiny-eval.toml");
    let text = std::fs::read_to_string(tiny).unwrap().replace(
        "depth = 1\n",
        "depth = 2\ntree_positions = 3\ndepth_max = 3\ndeepen_after = 1\ndeepen_below = 1.0\n",
    );
    assert!(text.contains("tree_positions"));
    let config = dir.join("tree.toml");
    std::fs::write(&config, text).unwrap();
    let run_dir = dir.join("run");
    let out = run(&mut train_with(&config, &run_dir, 4));
    assert!(String::from_utf8_lossy(&out.stdout).contains("generation 4"));
    // Nodes of the searches' trees are in the shards beside the played positions, with
    // bounds as well as exact scores.
    let mut origins = BTreeSet::new();
    for name in names(&run_dir.join("selfplay"), ".shard") {
        let shard = read_shard(&run_dir.join("selfplay").join(name)).unwrap();
        origins.extend(shard.scored.iter().map(|s| format!("{:?}", s.origin)));
    }
    for origin in ["Played", "NodeExact", "NodeAtLeast", "NodeAtMost"] {
        assert!(origins.contains(origin), "{origin} missing: {origins:?}");
    }
    // With the threshold at 1 the teacher deepens after the first rating against a previous
    // checkpoint, whatever it scored (a game's outcome is not the test's to predict), and a
    // resumed run keeps its depth.
    let log = std::fs::read_to_string(run_dir.join("train.log")).unwrap();
    assert!(
        log.contains("teacher: self-play now searches 3 turns deep"),
        "{log}"
    );
    run(&mut train_with(&config, &run_dir, 1));
    let log = std::fs::read_to_string(run_dir.join("train.log")).unwrap();
    assert!(
        !log.contains("4 turns deep"),
        "never beyond depth_max: {log}"
    );
    let newest = newest_checkpoint(&run_dir).unwrap();
    let (_, state) = fanorona_net::EvalTrainer::load_checkpoint(&newest, &Device::flex()).unwrap();
    let state: serde_json::Value = serde_json::from_slice(&state).unwrap();
    assert_eq!(state["teacher"]["depth"], 3, "{state}");
}

#[test]
fn an_evaluation_learns_from_every_position_of_its_descent_trees() {
    let dir = temp_dir("e2e-eval-descent");
    let tiny = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../configs/tiny-eval.toml");
    let tiny = std::fs::read_to_string(tiny).unwrap();
    let text = tiny.replace("depth = 1\n", "depth = 1\ndescent_nodes = 30\n");
    assert!(text.contains("descent_nodes"));
    let config = dir.join("descent.toml");
    std::fs::write(&config, text).unwrap();
    let run_dir = dir.join("run");
    let out = run(&mut train_with(&config, &run_dir, 2));
    assert!(String::from_utf8_lossy(&out.stdout).contains("generation 2"));
    // Beside each position played from, every position the game's tree expanded (at least
    // thirty a searched turn), each with its backed-up value: an exact result where the tree
    // resolved it (the tiny config's 16-turn no-progress limit makes some end in the tree).
    let (mut played, mut nodes, mut resolved) = (0, 0, 0);
    for name in names(&run_dir.join("selfplay"), ".shard") {
        let shard = read_shard(&run_dir.join("selfplay").join(name)).unwrap();
        for s in &shard.scored {
            assert!(s.problem().is_none(), "{:?}", s.problem());
            match s.origin {
                fanorona_train::replay::Origin::Played => played += 1,
                fanorona_train::replay::Origin::NodeExact => {
                    nodes += 1;
                    resolved += usize::from(s.exact.is_some());
                }
                other => panic!("Descent records no bounds: {other:?}"),
            }
        }
    }
    assert!(played > 20, "{played} played");
    assert!(nodes > 20 * played, "{nodes} nodes, {played} played");
    assert!(
        resolved > 0 && resolved < nodes,
        "{resolved} of {nodes} resolved"
    );
    // Descent records its own tree: the alpha-beta tree options are refused beside it.
    let bad = dir.join("bad.toml");
    std::fs::write(
        &bad,
        tiny.replace(
            "depth = 1\n",
            "depth = 1\ndescent_nodes = 30\ntree_positions = 2\n",
        ),
    )
    .unwrap();
    let out = train_with(&bad, &dir.join("bad-run"), 1).output().unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("eval.descent_nodes"), "{stderr}");
    assert!(!dir.join("bad-run").exists());
}

/// The share of the positions of an evaluation run's shards (those the tables did not decide)
/// where the side to move has a capture, after one generation of `configs/tiny-eval.toml` at
/// depth 2 with `extra` in its `[eval]`.
fn capture_share(dir: &Path, name: &str, extra: &str) -> f64 {
    let tiny = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../configs/tiny-eval.toml");
    let text = std::fs::read_to_string(tiny)
        .unwrap()
        .replace("depth = 1\n", &format!("depth = 2\n{extra}"));
    let config = dir.join(format!("{name}.toml"));
    std::fs::write(&config, text).unwrap();
    let run_dir = dir.join(name);
    run(&mut train_with(&config, &run_dir, 1));
    let (mut captures, mut all) = (0, 0);
    for shard in names(&run_dir.join("selfplay"), ".shard") {
        let shard = read_shard(&run_dir.join("selfplay").join(shard)).unwrap();
        for s in shard.scored.iter().filter(|s| s.exact.is_none()) {
            all += 1;
            captures += usize::from(s.position().unwrap().has_capture());
        }
    }
    assert!(all > 50, "{name}: {all} positions");
    captures as f64 / all as f64
}

#[test]
fn an_evaluation_learns_at_the_leaves_of_its_principal_variations() {
    // The positions played from often hold a compulsory capture; the ends of the searches'
    // principal variations are where the quiescence stood pat or ran out: far fewer do (about
    // a fifth against two fifths in this run).
    let dir = temp_dir("e2e-eval-leaf");
    let root = capture_share(&dir, "root", "");
    let leaf = capture_share(&dir, "leaf", "pv_leaf = true\n");
    assert!(
        leaf < 0.7 * root,
        "captures at the leaves {leaf}, at the roots {root}"
    );
}

/// Two games of `spec` against `random`: it plays, under its own name.
fn pit_against_random(spec: &str) {
    let out = run(bin().args([
        "pit",
        spec,
        "random",
        "--games",
        "2",
        "--no-tablebases",
        "--json",
    ]));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["a"], spec);
}

#[test]
fn an_evaluation_is_trained_from_zero_exported_and_played_through_eval() {
    let dir = temp_dir("e2e-eval");
    let out = run(&mut train_tiny_eval(&dir, 2));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("generation 2"), "{stdout}");
    // The shards hold scored positions of alpha-beta self-play, with results.
    let shards = names(&dir.join("selfplay"), ".shard");
    assert!(!shards.is_empty());
    let mut scored = 0;
    for name in &shards {
        let shard = read_shard(&dir.join("selfplay").join(name)).unwrap();
        assert!(shard.samples.is_empty());
        assert!(!shard.games.is_empty());
        scored += shard.scored.len();
        for s in &shard.scored {
            assert!(s.problem().is_none());
        }
    }
    assert!(scored > 20, "{scored} scored positions");
    // Resume: the run goes on from its checkpoint (steps keep counting).
    let before = newest_checkpoint(&dir).unwrap();
    let out = run(&mut train_tiny_eval(&dir, 1));
    let log = std::fs::read_to_string(dir.join("train.log")).unwrap();
    assert!(log.contains("resume from"), "{log}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("generation 3"));
    let ckpt = newest_checkpoint(&dir).unwrap();
    assert!(ckpt > before);

    // Export writes an evaluation file; a checkpoint is never overwritten.
    let eval = dir.join("tiny.fne");
    let out = run(bin().arg("export").arg(&ckpt).arg("--out").arg(&eval));
    assert!(String::from_utf8_lossy(&out.stdout).contains("90x32x8x1"));
    let refused = bin()
        .arg("export")
        .arg(&ckpt)
        .arg("--out")
        .arg(&before)
        .output()
        .unwrap();
    assert!(!refused.status.success());
    assert!(String::from_utf8_lossy(&refused.stderr).contains("training checkpoint"));
    fanorona_eval::EvalWeights::load_any(&before).expect("the checkpoint is intact");

    // pit with `eval=` (the file and the checkpoint itself), and the judge of an MCTS player.
    for spec in [
        format!("alphabeta:depth=2,eval={}", eval.display()),
        format!("alphabeta:depth=1,eval={}", ckpt.display()),
        format!("mcts:sims=20,mix=0.5,eval={}", eval.display()),
    ] {
        pit_against_random(&spec);
    }
    // The run's checkpoints are rated as alpha-beta players with their evaluation.
    let (rated, _) = rate_run(&dir);
    assert!(!rated.is_empty());
    for spec in rated {
        assert!(spec.starts_with("alphabeta:eval="), "{spec}");
    }
    // A network's spec given an evaluation run's checkpoint says what to do instead.
    let out = bin()
        .args(["pit", &format!("net:path={}", ckpt.display()), "random"])
        .args(["--games", "2", "--no-tablebases"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("a checkpoint of an evaluation run")
            && stderr.contains(&format!("alphabeta:eval={}", ckpt.display())),
        "{stderr}"
    );
    // One damaged checkpoint is left out of the run's rating with a warning; the others are
    // still rated, as evaluations (it stopped the whole rating and was named `net:path=`).
    let mut bytes = std::fs::read(&before).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0x10;
    std::fs::write(&before, &bytes).unwrap();
    let (rated, stderr) = rate_run(&dir);
    let name = before.file_name().unwrap().to_string_lossy().to_string();
    assert!(
        stderr.contains("warning: --run-dir") && stderr.contains(&name),
        "{stderr}"
    );
    assert!(!rated.is_empty());
    assert!(
        rated
            .iter()
            .all(|s| s.starts_with("alphabeta:eval=") && !s.contains(&name))
    );
    // A damaged evaluation is refused with its name, before any game.
    std::fs::write(&eval, b"FNRNEVAL garbage").unwrap();
    let out = bin()
        .args([
            "pit",
            &format!("alphabeta:eval={}", eval.display()),
            "random",
        ])
        .args(["--games", "2"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("tiny.fne"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_evaluation_of_the_lines_inputs_trains_exports_plays_and_keeps_its_inputs() {
    let dir = temp_dir("e2e-eval-lines");
    let tiny = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../configs/tiny-eval.toml");
    let text = std::fs::read_to_string(tiny)
        .unwrap()
        .replace("[eval]\n", "[eval]\ninputs = \"lines\"\n");
    assert!(text.contains("inputs = \"lines\""));
    let config = dir.join("lines.toml");
    std::fs::write(&config, &text).unwrap();
    let run_dir = dir.join("run");
    let out = run(&mut train_with(&config, &run_dir, 2));
    assert!(String::from_utf8_lossy(&out.stdout).contains("generation 2"));
    let ckpt = newest_checkpoint(&run_dir).unwrap();
    let (weights, _) = fanorona_eval::EvalWeights::load_any(&ckpt).unwrap();
    assert_eq!(weights.shape.inputs, fanorona_eval::Inputs::Lines);
    // The file says what it reads, and it plays.
    let eval = dir.join("lines.fne");
    let out = run(bin().arg("export").arg(&ckpt).arg("--out").arg(&eval));
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("2268x32x8x1"),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    pit_against_random(&format!("alphabeta:depth=2,eval={}", eval.display()));
    // The run's config edited back to the stones: resume is refused, naming the key, and the
    // checkpoints are untouched.
    std::fs::write(
        run_dir.join("config.toml"),
        std::fs::read_to_string(run_dir.join("config.toml"))
            .unwrap()
            .replace("inputs = \"lines\"", "inputs = \"stones\""),
    )
    .unwrap();
    let out = train_with(&config, &run_dir, 1).output().unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("eval.inputs"), "{stderr}");
    assert_eq!(newest_checkpoint(&run_dir).unwrap(), ckpt);
    let _ = std::fs::remove_dir_all(&dir);
}
