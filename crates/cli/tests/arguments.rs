//! Numbers and places the commands could not honour are refused at once, with the argument
//! named, before any work (issue 28: items 6, 9, 12 and 16).

use std::process::Command;

#[test]
fn out_of_range_numbers_and_vanishing_run_stores_are_refused() {
    let cases: [(&[&str], &str); 8] = [
        (
            &[
                "tablebase",
                "check",
                "--positions",
                "1000000000",
                "--eval",
                "x.fne",
            ],
            "--positions",
        ),
        (
            &["tablebase", "check", "--sims", "0", "--eval", "x.fne"],
            "--sims",
        ),
        (&["bench-net", "--train-batch", "0"], "--train-batch"),
        (
            &["bench-net", "--train-batch", "4000000000"],
            "--train-batch",
        ),
        (&["serve", "--max-think-ms", "0"], "--max-think-ms"),
        // an unbounded thread count panicked ("failed to spawn thread") where the system
        // refused the threads
        (
            &["tablebase", "build", "--stones", "3", "--threads", "100000"],
            "--threads",
        ),
        (
            &[
                "train",
                "--config",
                "configs/tiny.toml",
                "--run-dir",
                "memory:///x",
            ],
            "memory:///x",
        ),
        // 4 GiB tables for each side of 1,024 games at once: refused with the arithmetic
        // (issue 28 item 9), not left to the kernel's out-of-memory killer.
        (
            &[
                "pit",
                "alphabeta:tt=4096,depth=1",
                "alphabeta:tt=4096,depth=1",
                "--games",
                "1024",
                "--threads",
                "1024",
                "--no-tablebases",
            ],
            "4096 + 4096 MiB a game x 1024 games at once",
        ),
    ];
    // Limits said, and found before any work: `--minutes` said only "give a positive
    // number", a 300-character worker name failed with "File name too long" after a
    // generation of games.
    let worker = "w".repeat(300);
    let later: [(&[&str], &str); 2] = [
        (
            &[
                "train",
                "--config",
                "configs/tiny.toml",
                "--minutes",
                "100000000",
            ],
            "at most 10000000",
        ),
        (
            &[
                "selfplay",
                "--run-dir",
                "/nonexistent/run",
                "--worker",
                &worker,
            ],
            "--worker must be 1 to 64",
        ),
    ];
    for &(args, named) in cases.iter().chain(&later) {
        let out = Command::new(env!("CARGO_BIN_EXE_fanorona"))
            .args(args)
            .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
            .output()
            .expect("the binary runs");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{args:?} was accepted");
        assert_eq!(
            out.status.code(),
            Some(if ["train", "pit", "selfplay"].contains(&args[0]) {
                1
            } else {
                2
            }),
            "{args:?}: {stderr}"
        );
        assert!(stderr.contains(named), "{args:?}: {stderr}");
    }
}

/// A FIFO where a model, an evaluation or a rating store's file should be is refused at once,
/// with its name, instead of waiting for a writer that never comes (issue 28 item 10).
#[test]
fn a_fifo_in_place_of_a_file_is_refused_not_waited_on() {
    let dir = fanorona_testkit::TempDir::new("fifo");
    let fifo = |name: &str| {
        let path = dir.join(name);
        let made = Command::new("mkfifo")
            .arg(&path)
            .status()
            .expect("mkfifo runs");
        assert!(made.success());
        path.to_str().unwrap().to_string()
    };
    let (model, eval) = (fifo("f.fnm"), fifo("f.fne"));
    let store = dir.join("store");
    std::fs::create_dir(&store).unwrap();
    let cases = [
        vec!["pit".into(), format!("net:path={model}"), "random".into()],
        vec![
            "pit".into(),
            format!("alphabeta:eval={eval}"),
            "random".into(),
        ],
        vec![
            "rate".into(),
            model.clone(),
            "--panel".into(),
            "random".into(),
        ],
    ];
    for mut args in cases {
        args.extend(["--games", "2", "--no-tablebases"].map(String::from));
        let out = Command::new(env!("CARGO_BIN_EXE_fanorona"))
            .args(&args)
            .output()
            .expect("the binary runs");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{args:?}");
        assert!(
            stderr.contains("not a regular file (fifo)"),
            "{args:?}: {stderr}"
        );
    }
    // A pairing file of the store that is a FIFO: set aside or refused, never waited on.
    let rate = || {
        Command::new(env!("CARGO_BIN_EXE_fanorona"))
            .args(["rate", "--panel", "random", "--ms", "5", "--games", "2"])
            .args(["--no-tablebases", "--threads", "1", "--store"])
            .arg(&store)
            .output()
            .expect("the binary runs")
    };
    let pairing = rate();
    assert!(
        pairing.status.success(),
        "{}",
        String::from_utf8_lossy(&pairing.stderr)
    );
    let files: Vec<_> = std::fs::read_dir(&store)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "games"))
        .collect();
    assert_eq!(files.len(), 1, "{files:?}");
    std::fs::remove_file(&files[0]).unwrap();
    let made = Command::new("mkfifo").arg(&files[0]).status().unwrap();
    assert!(made.success());
    let out = rate();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains("fifo"), "{text}");
}

/// A missing model is named once, with its path (issue 29 item 18 saw "No such file or
/// directory (os error 2)" twice, without the path), and `train --help` says that
/// `--generations` counts more generations, not a total (item 16).
#[test]
fn a_missing_model_is_named_once_and_train_says_what_generations_counts() {
    let out = Command::new(env!("CARGO_BIN_EXE_fanorona"))
        .args([
            "pit",
            "net:path=/nonexistent-folder/m.fnm",
            "random",
            "--games",
            "2",
            "--no-tablebases",
        ])
        .output()
        .expect("the binary runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(stderr.contains("/nonexistent-folder/m.fnm"), "{stderr}");
    assert_eq!(stderr.matches("No such file").count(), 1, "{stderr}");
    let help = Command::new(env!("CARGO_BIN_EXE_fanorona"))
        .args(["train", "--help"])
        .output()
        .expect("the binary runs");
    let help = String::from_utf8_lossy(&help.stdout);
    assert!(help.contains("this many more generations"), "{help}");
}
