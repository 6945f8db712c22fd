//! `fanorona pit` end to end: JSON report, games file, determinism, errors.

use fanorona_testkit::TempDir;
use std::process::{Command, Output};

use fanorona_engine::{Game, Outcome, Position, Rules, Turn};

fn fanorona(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_fanorona"))
        .args(args)
        .output()
        .expect("the binary runs")
}

fn json(args: &[&str]) -> serde_json::Value {
    let out = fanorona(args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert_eq!(stdout.lines().count(), 1, "one JSON object: {stdout}");
    serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout}"))
}

#[test]
fn greedy_against_random_reports_json() {
    let v = json(&[
        "pit",
        "greedy",
        "random",
        "--games",
        "4",
        "--threads",
        "2",
        "--json",
    ]);
    let (w, d, l) = (
        v["wins"].as_u64().unwrap(),
        v["draws"].as_u64().unwrap(),
        v["losses"].as_u64().unwrap(),
    );
    assert_eq!(w + d + l, 4);
    assert_eq!(v["games"], 4);
    let score = v["score"].as_f64().unwrap();
    assert!((score - (w as f64 + 0.5 * d as f64) / 4.0).abs() < 1e-9);
    assert!(v["avg_turns"].as_f64().unwrap() > 4.0);
    // Elo and its interval: numbers, or null where infinite (a 100% or 0% score).
    let ci = v["elo_ci95"].as_array().unwrap();
    assert_eq!(ci.len(), 2);
    if w == 4 {
        assert!(
            v["elo"].is_null() && ci[1].is_null() && ci[0].is_number(),
            "{v}"
        );
    } else if l == 4 {
        assert!(
            v["elo"].is_null() && ci[0].is_null() && ci[1].is_number(),
            "{v}"
        );
    } else {
        assert!(v["elo"].is_number(), "{v}");
    }
    let reasons = &v["draw_reasons"];
    let draws = reasons["repetition"].as_u64().unwrap()
        + reasons["no_progress"].as_u64().unwrap()
        + reasons["turn_limit"].as_u64().unwrap();
    assert_eq!(draws, d);
}

#[test]
fn same_seed_same_results() {
    let args = |seed: &'static str, threads: &'static str| {
        vec![
            "pit",
            "alphabeta:depth=1",
            "random",
            "--games",
            "4",
            "--seed",
            seed,
            "--threads",
            threads,
            "--json",
        ]
    };
    let first = json(&args("7", "1"));
    let second = json(&args("7", "2"));
    assert_eq!(first, second);
    let dir = TempDir::new("pit-seeds");
    let (a, b) = (dir.join("seed-a.txt"), dir.join("seed-b.txt"));
    for (path, threads) in [(&a, "1"), (&b, "3")] {
        let out = fanorona(&[
            "pit",
            "greedy",
            "random",
            "--games",
            "6",
            "--seed",
            "3",
            "--threads",
            threads,
            "--out",
            path.to_str().unwrap(),
        ]);
        assert!(out.status.success());
    }
    // The same games; only the measured think times (and the checksum over them) may differ
    // on a loaded machine.
    let games = |path: &std::path::Path| -> Vec<String> {
        std::fs::read_to_string(path)
            .unwrap()
            .lines()
            .filter(|l| !l.starts_with("# crc32"))
            .map(|l| l.split(" | ms ").next().unwrap_or(l).to_string())
            .collect()
    };
    let (games_a, games_b) = (games(&a), games(&b));
    assert_eq!(games_a.len(), 6 + 5, "{games_a:?}");
    assert_eq!(games_a, games_b);
}

/// Reads a games file back and replays every game with the engine.
#[test]
fn games_file_replays_legally() {
    let dir = TempDir::new("pit-games");
    let path = dir.join("games.txt");
    let out = fanorona(&[
        "pit",
        "greedy",
        "random",
        "--games",
        "4",
        "--opening-plies",
        "3",
        "--out",
        path.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.starts_with("# fanorona-pit-games v2\n"));
    // The last line is the checksum of everything before it.
    let body_end = text.trim_end().rfind('\n').unwrap() + 1;
    let crc = crc32fast::hash(&text.as_bytes()[..body_end]);
    assert_eq!(text[body_end..].trim_end(), format!("# crc32 {crc:08x}"));

    let games: Vec<&str> = text.lines().filter(|l| !l.starts_with('#')).collect();
    assert_eq!(games.len(), 4);
    for (i, line) in games.iter().enumerate() {
        let fields: Vec<&str> = line.split(" | ").collect();
        assert_eq!(fields.len(), 5, "{line}");
        let head: Vec<&str> = fields[0].split(' ').collect();
        assert_eq!(head[0], (i + 1).to_string());
        let (white, black) = if i % 2 == 0 { ("A", "B") } else { ("B", "A") };
        assert_eq!(head[1], format!("white={white}"));
        assert_eq!(head[2], format!("black={black}"));
        assert_eq!(head[3], "opening=3");
        let start: Position = fields[1].parse().unwrap();
        assert_eq!(start, Position::start());
        let mut game = Game::from_position(start, Rules::default());
        for t in fields[2].split(' ') {
            let turn: Turn = t.parse().unwrap();
            game.play_turn(&turn)
                .unwrap_or_else(|e| panic!("game {}: {t}: {e}", i + 1));
        }
        let outcome: Outcome = game.outcome().expect("the game is over");
        assert_eq!(
            fields[3],
            format!("{} {}", outcome.score(), outcome.reason_tag()),
            "{line}"
        );
        // One think time per turn after the 3-turn opening.
        let times: Vec<&str> = fields[4].split(' ').collect();
        assert_eq!(times[0], "ms", "{line}");
        assert_eq!(times.len() - 1, fields[2].split(' ').count() - 3, "{line}");
        assert!(
            times[1..].iter().all(|t| t.parse::<u32>().is_ok()),
            "{line}"
        );
    }
}

#[test]
fn text_report_has_every_part() {
    let out = fanorona(&["pit", "greedy", "random", "--games", "2"]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    for part in [
        "A: greedy",
        "B: random",
        "games 2: A wins",
        "score ",
        "Elo ",
        "95% CI",
        "average length",
        "draws: repetition",
    ] {
        assert!(text.contains(part), "{part:?} missing from:\n{text}");
    }
    assert!(!text.contains("NaN"), "{text}");
    // No progress bar when standard error is not a terminal.
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn bad_arguments_fail_with_a_message() {
    for (args, needle) in [
        (
            vec!["pit", "alphabeta:depth=0", "random", "--games", "2"],
            "`depth`",
        ),
        (
            vec!["pit", "random", "minimax", "--games", "2"],
            "unknown player kind `minimax`",
        ),
        (
            vec![
                "pit",
                "random",
                "net:path=no-such-model.fnm",
                "--games",
                "2",
            ],
            "no-such-model.fnm: No such file",
        ),
        (vec!["pit", "random", "random", "--games", "0"], "--games"),
        (
            vec!["pit", "random", "random", "--games", "2", "--threads", "0"],
            "--threads",
        ),
        // Issue 16: a 287 GB opening allocation aborted the process.
        (
            vec![
                "pit",
                "random",
                "random",
                "--games",
                "2",
                "--opening-plies",
                "4294967295",
            ],
            "--opening-plies must be at most 64",
        ),
        (
            vec!["pit", "random", "mcts:sims=4294967295", "--games", "2"],
            "`sims`",
        ),
        (
            vec!["pit", "random", "alphabeta:ms=99999999999", "--games", "2"],
            "`ms`",
        ),
    ] {
        let out = fanorona(&args);
        assert!(!out.status.success(), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(needle), "{args:?}: {err}");
    }
}

#[test]
fn the_shipped_sample_network_loads_and_beats_random() {
    let model = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../checkpoints/sample-2x32.fnm"
    );
    let player = format!("net:path={model},sims=16");
    let v = json(&["pit", &player, "random", "--games", "4", "--json"]);
    // Seeded: the same four games every run.
    assert_eq!(v["wins"], 4, "{v}");
}

#[test]
fn the_network_with_the_alpha_beta_judge_at_its_leaves_plays_and_bad_mixes_are_named() {
    let model = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../checkpoints/sample-2x32.fnm"
    );
    let player = format!("net:path={model},sims=16,mix=0.5,mix_depth=1");
    let v = json(&["pit", &player, "random", "--games", "2", "--json"]);
    assert_eq!(v["wins"], 2, "{v}");
    for (setting, key) in [("mix=2", "`mix`"), ("mix=0.5,mix_depth=9", "`mix_depth`")] {
        let player = format!("net:path={model},sims=16,{setting}");
        let out = fanorona(&["pit", &player, "random", "--games", "2"]);
        assert!(!out.status.success(), "{setting}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(key), "{setting}: {err}");
    }
}

#[test]
fn an_output_that_cannot_be_written_is_refused_before_playing() {
    // A folder that does not exist: refused at once, no game played.
    let out = fanorona(&[
        "pit",
        "alphabeta:depth=2",
        "greedy",
        "--games",
        "100000",
        "--out",
        "/nonexistent-folder/x.txt",
    ]);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("/nonexistent-folder"), "{stderr}");
    assert!(out.stdout.is_empty(), "no match was played");
    // A folder in the file's place: refused before playing too.
    let dir = TempDir::new("pit-out");
    let target = dir.join("games.txt");
    std::fs::create_dir(&target).unwrap();
    std::fs::write(target.join("inside"), "x").unwrap();
    let out = fanorona(&[
        "pit",
        "greedy",
        "random",
        "--games",
        "2",
        "--out",
        target.to_str().unwrap(),
    ]);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("that is a folder"), "{stderr}");
    assert!(out.stdout.is_empty(), "no match was played");
}
