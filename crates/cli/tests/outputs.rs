//! What the commands write: standard output closed or full, output files that may not be
//! replaced, settings in the environment, and the move generator's two gathers.

use std::path::Path;
use std::process::{Command, Output, Stdio};

fn bin() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_fanorona"));
    command.current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."));
    command
}

fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// Tables of up to three stones in `dir`, built by the command.
fn small_tables(dir: &Path) {
    let out = bin()
        .args([
            "tablebase",
            "build",
            "--stones",
            "3",
            "--threads",
            "1",
            "--out",
        ])
        .arg(dir)
        .stdout(Stdio::null())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
}

#[test]
fn a_closed_standard_output_ends_a_command_quietly() {
    // `perft 6 | head -1` panicked with a backtrace (exit 101). The pipe's reader is gone
    // before the command starts, so its first write fails.
    let dir = fanorona_testkit::TempDir::new("closed-stdout");
    small_tables(&dir.join("tables"));
    let cases: [Vec<String>; 4] = [
        vec!["perft".into(), "3".into()],
        vec!["players".into()],
        vec![
            "tablebase".into(),
            "probe".into(),
            "--fen".into(),
            "9/9/3B5/9/WW7 w 0 1".into(),
            "--tablebases".into(),
            dir.join("tables").display().to_string(),
        ],
        vec![
            "tablebase".into(),
            "verify".into(),
            "--tablebases".into(),
            dir.join("tables").display().to_string(),
        ],
    ];
    for args in cases {
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        let out = bin().args(&args).stdout(writer).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(141), "{args:?}: {stderr}");
        assert!(stderr.is_empty(), "{args:?}: {stderr}");
    }
}

#[test]
fn a_full_standard_output_is_an_error_not_a_panic() {
    if !Path::new("/dev/full").exists() {
        return;
    }
    let dir = fanorona_testkit::TempDir::new("full-stdout");
    let cases: [Vec<String>; 3] = [
        vec!["perft".into(), "2".into()],
        vec!["players".into()],
        vec![
            "tablebase".into(),
            "build".into(),
            "--stones".into(),
            "3".into(),
            "--out".into(),
            dir.join("tables").display().to_string(),
        ],
    ];
    for args in cases {
        let full = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap();
        let out = bin().args(&args).stdout(full).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {stderr}");
        assert!(
            stderr.contains("error: writing to standard output: No space left on device"),
            "{args:?}: {stderr}"
        );
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    }
    // the tables were built all the same
    assert!(dir.join("tables/2v1.fntb").is_file());
}

#[test]
fn an_output_file_never_replaces_a_runs_own_files() {
    // `pit --out runs/X/checkpoints/ckpt-N.ckpt` replaced a checkpoint with a games file, and
    // `export CKPT --out runs/X/config.toml` the run's config.
    let dir = fanorona_testkit::TempDir::new("outputs");
    let checkpoint = dir.join("ckpt-000000001.ckpt");
    fanorona_data::container::write_atomic(
        &checkpoint,
        &fanorona_data::container::CHECKPOINT_MAGIC,
        1,
        b"weights",
    )
    .unwrap();
    let config = dir.join("config.toml");
    std::fs::write(&config, "[model]\nblocks = 1\n").unwrap();
    let kept = |path: &Path| std::fs::read(path).unwrap();
    let (checkpoint_bytes, config_bytes) = (kept(&checkpoint), kept(&config));
    let pit = |out: &Path| {
        bin()
            .args([
                "pit",
                "random",
                "greedy",
                "--games",
                "2",
                "--no-tablebases",
                "--out",
            ])
            .arg(out)
            .output()
            .unwrap()
    };
    for (target, holds) in [
        (&checkpoint, "a training checkpoint"),
        (&config, "something else"),
    ] {
        let out = pit(target);
        assert!(!out.status.success());
        assert!(
            text(&out).contains(&format!("--out {}: it holds {holds}", target.display())),
            "{}",
            text(&out)
        );
        let out = bin()
            .arg("export")
            .arg(&checkpoint)
            .arg("--out")
            .arg(target)
            .output()
            .unwrap();
        assert!(!out.status.success());
        assert!(
            text(&out).contains("refusing to replace it"),
            "{}",
            text(&out)
        );
    }
    assert_eq!(kept(&checkpoint), checkpoint_bytes);
    assert_eq!(kept(&config), config_bytes);
    // a games file is written, then replaced by the next match's
    let games = dir.join("match.txt");
    for _ in 0..2 {
        let out = pit(&games);
        assert!(out.status.success(), "{}", text(&out));
    }
    // and a folder is no file
    let out = pit(dir.path());
    assert!(text(&out).contains("that is a folder"), "{}", text(&out));
}

#[test]
fn settings_in_the_environment_are_checked_like_flags() {
    // FANORONA_SIMD=bogus was ignored without a word while `--simd bogus` was an error.
    for (name, value, says) in [
        (
            "FANORONA_SIMD",
            "bogus",
            "FANORONA_SIMD=bogus: not a SIMD level",
        ),
        (
            "FANORONA_GATHER",
            "bogus",
            "FANORONA_GATHER=bogus: not a gather",
        ),
    ] {
        let out = bin()
            .args(["perft", "1"])
            .env(name, value)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{}", text(&out));
        assert!(text(&out).contains(says), "{}", text(&out));
    }
    #[cfg(target_arch = "x86_64")]
    if !std::arch::is_x86_feature_detected!("avx512f") {
        let out = bin()
            .args(["perft", "1"])
            .env("FANORONA_SIMD", "avx512")
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{}", text(&out));
        assert!(text(&out).contains("this CPU does not run it"));
    }
    // bench-net --agreement takes --simd and refuses --precision, which it cannot honour
    let out = bin()
        .args(["bench-net", "--agreement", "10", "--model", "x.fnm"])
        .args(["--precision", "fp32"])
        .output()
        .unwrap();
    assert!(text(&out).contains("--precision"), "{}", text(&out));
}

#[test]
fn both_gathers_count_the_same_turns() {
    // The gather is picked at run time; FANORONA_GATHER forces one, and perft says which.
    for gather in ["pext", "portable"] {
        #[cfg(target_arch = "x86_64")]
        if gather == "pext" && !std::arch::is_x86_feature_detected!("bmi2") {
            continue;
        }
        let out = bin()
            .args(["perft", "5"])
            .env("FANORONA_GATHER", gather)
            .output()
            .unwrap();
        let shown = text(&out);
        assert!(out.status.success(), "{shown}");
        assert!(shown.contains("perft 5 431852"), "{shown}");
        assert!(shown.contains(&format!("(gather {gather})")), "{shown}");
    }
}
