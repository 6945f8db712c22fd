//! End-to-end runs of `fanorona tablebase build`, `probe` and `verify` through the binary, and
//! the players' `--tablebases` option.

use std::path::Path;
use std::process::{Command, Output};

use fanorona_testkit::TempDir;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_fanorona"))
}

fn run(args: &[&str], dir: &Path) -> Output {
    bin()
        .args(args)
        .arg("--tablebases")
        .arg(dir)
        .output()
        .expect("the binary runs")
}

fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

#[test]
fn build_probe_and_verify_from_the_command_line() {
    let dir = TempDir::new("cli-tablebase");
    let out = run(&["tablebase", "build", "--stones", "3"], &dir);
    assert!(out.status.success(), "{}", text(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    // per class: counts at counter 0 and the longest distances
    assert!(
        stdout.contains("class  2v1:       42570 positions  win       40996  draw        1550  loss          24  longest win 28"),
        "{stdout}"
    );
    assert!(dir.join("2v1.fntb").is_file());

    let out = run(
        &["tablebase", "probe", "--fen", "9/9/3B5/9/WW7 w 0 1"],
        &dir,
    );
    assert!(out.status.success(), "{}", text(&out));
    let lines: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(String::from)
        .collect();
    assert_eq!(lines[0], "wdl win dtz 28");
    assert_eq!(lines[1], "best a1b2 win in 28");
    assert!(lines.iter().any(|l| l == "turn a1a2 draw"), "{lines:?}");
    // the counter is the third field
    let out = run(
        &["tablebase", "probe", "--fen", "9/9/3B5/9/WW7 w 23 1"],
        &dir,
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).lines().next(),
        Some("wdl draw dtz -")
    );

    let out = run(&["tablebase", "verify"], &dir);
    assert!(out.status.success(), "{}", text(&out));
    assert!(text(&out).contains("verified 3 classes"), "{}", text(&out));

    // An evaluation against the truth: this one says "half a stone up" everywhere, so it is
    // right about every win and draw and no loss.
    let mut weights = fanorona_eval::EvalWeights::zeros(fanorona_eval::Shape::default());
    weights.b3 = 0.5;
    let eval = dir.join("half.fne");
    weights
        .save(&eval, &fanorona_eval::EvalMeta::default())
        .unwrap();
    let out = run(
        &[
            "tablebase",
            "check",
            "--positions",
            "300",
            "--eval",
            eval.to_str().unwrap(),
        ],
        &dir,
    );
    assert!(out.status.success(), "{}", text(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let learned = stdout
        .lines()
        .find(|l| l.starts_with("learned evaluation agrees"))
        .unwrap_or_else(|| panic!("{stdout}"));
    assert!(learned.contains("(wins 100.0% of"), "{learned}");
    assert!(learned.contains("draws 100.0% of"), "{learned}");
    assert!(learned.contains("losses 0.0% of"), "{learned}");
    assert!(
        stdout.contains("hand-written evaluation agrees"),
        "{stdout}"
    );
}

#[test]
fn bad_probes_and_missing_tables_get_clear_errors() {
    let dir = TempDir::new("cli-tablebase-errors");
    let out = run(
        &["tablebase", "probe", "--fen", "9/9/3B5/9/WW7 w 0 1"],
        &dir,
    );
    assert!(!out.status.success());
    assert!(text(&out).contains("no tables in"), "{}", text(&out));
    run(&["tablebase", "build", "--stones", "2"], &dir);
    let out = run(
        &["tablebase", "probe", "--fen", "9/9/3B5/9/WW7 w 0 1"],
        &dir,
    );
    assert!(!out.status.success());
    assert!(text(&out).contains("up to 2 stones"), "{}", text(&out));
    let out = run(
        &["tablebase", "probe", "--fen", "9/9/3B5/9/WW7 x 0 1"],
        &dir,
    );
    assert!(!out.status.success());
    assert!(text(&out).contains("--fen"), "{}", text(&out));
    let out = run(&["tablebase", "build", "--stones", "9"], &dir);
    assert!(!out.status.success());
    assert!(text(&out).contains("at most"), "{}", text(&out));
    // a player told to use a directory without tables refuses to start
    let empty = TempDir::new("cli-tablebase-empty");
    let out = bin()
        .args(["pit", "random", "random", "--games", "1", "--tablebases"])
        .arg(empty.path())
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(text(&out).contains("no tables there"), "{}", text(&out));
}

#[test]
fn pit_plays_with_the_tables_it_is_given() {
    let dir = TempDir::new("cli-tablebase-pit");
    run(&["tablebase", "build", "--stones", "3"], &dir);
    let out = bin()
        .args([
            "pit",
            "alphabeta:depth=1",
            "alphabeta:depth=1,tb=off",
            "--games",
            "2",
            "--tablebases",
        ])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        text(&out).contains("endgame tables: every position with up to 3 stones"),
        "{}",
        text(&out)
    );
}

/// Two builds into one folder at once under different no-progress limits: one builder at a
/// time, so the second finds the first's tables and refuses them by name instead of both
/// "succeeding" into a folder neither limit loads (issue 28 item 15).
#[test]
fn two_builds_into_one_folder_take_turns() {
    let dir = TempDir::new("tb-race");
    let start = |limit: &str| {
        bin()
            .args(["tablebase", "build", "--stones", "4", "--threads", "1"])
            .args(["--no-progress-limit", limit, "--tablebases"])
            .arg(dir.path())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("the binary runs")
    };
    let (a, b) = (start("50"), start("16"));
    let (a, b) = (a.wait_with_output().unwrap(), b.wait_with_output().unwrap());
    let ok = [a.status.success(), b.status.success()];
    assert_eq!(
        ok.iter().filter(|&&s| s).count(),
        1,
        "exactly one build may succeed:\n{}\n{}",
        text(&a),
        text(&b)
    );
    let failed = if ok[0] { &b } else { &a };
    assert!(text(failed).contains("limit"), "{}", text(failed));
    let limit = if ok[0] { "50" } else { "16" };
    let verify = bin()
        .args([
            "tablebase",
            "verify",
            "--no-progress-limit",
            limit,
            "--tablebases",
        ])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(verify.status.success(), "{}", text(&verify));
}
