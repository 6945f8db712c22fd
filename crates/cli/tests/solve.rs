//! End-to-end runs of `fanorona solve` and `fanorona solve --check` through the binary: a
//! value proven with its certificate, the certificate checked, a stopped run resumed, and bad
//! input refused with a message that says what and where.

use std::process::{Command, Output};

use fanorona_testkit::TempDir;

fn fanorona(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_fanorona"))
        .args(args)
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

/// Two against one, the next capture 28 turns away with best defence.
const LONG_WIN: &str = "9/9/3B5/9/WW7 w 0 1";

#[test]
fn a_value_is_proven_and_its_certificate_checked() {
    let dir = TempDir::new("cli-solve");
    let cert = dir.join("win.fnproof");
    let cert_arg = cert.to_str().unwrap();
    let out = fanorona(&[
        "solve",
        "--fen",
        LONG_WIN,
        "--no-tablebases",
        "--memory",
        "64",
        "--certificate",
        cert_arg,
    ]);
    assert!(out.status.success(), "{}", text(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("value: win for White"), "{stdout}");
    assert!(stdout.contains("does White win? yes (proven)"), "{stdout}");
    let out = fanorona(&["solve", "--check", cert_arg, "--no-tablebases"]);
    assert!(out.status.success(), "{}", text(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("checked: White wins"), "{stdout}");
    assert!(stdout.contains("value: win for White"), "{stdout}");
    // Shared by threads, the check visits the same positions and says the same.
    let checked = |stdout: &str| {
        stdout
            .lines()
            .find(|l| l.starts_with("checked:"))
            .map(str::to_owned)
    };
    let one = checked(&stdout);
    assert!(one.is_some(), "{stdout}");
    for threads in ["1", "3"] {
        let out = fanorona(&[
            "solve",
            "--check",
            cert_arg,
            "--no-tablebases",
            "--threads",
            threads,
        ]);
        assert!(out.status.success(), "{}", text(&out));
        assert_eq!(checked(&String::from_utf8_lossy(&out.stdout)), one);
    }
    let out = fanorona(&["solve", "--check", cert_arg, "--threads", "0"]);
    assert!(!out.status.success() && text(&out).contains("--threads"));
    // A search does not take it: refused rather than ignored.
    let out = fanorona(&[
        "solve",
        "--fen",
        LONG_WIN,
        "--no-tablebases",
        "--threads",
        "2",
    ]);
    assert!(
        !out.status.success() && text(&out).contains("--threads sets the threads of --check"),
        "{}",
        text(&out)
    );

    // Not a certificate: refused with the path and what is wrong.
    let other = dir.join("other.bin");
    std::fs::write(&other, b"FNRNCKPT not a proof at all").unwrap();
    let out = fanorona(&[
        "solve",
        "--check",
        other.to_str().unwrap(),
        "--no-tablebases",
    ]);
    assert!(!out.status.success());
    let said = text(&out);
    assert!(
        said.contains("other.bin") && said.contains("magic"),
        "{said}"
    );
}

#[test]
fn a_stopped_run_saves_and_the_next_one_resumes() {
    let dir = TempDir::new("cli-solve-state");
    let state = dir.join("long.fnsv");
    let state_arg = state.to_str().unwrap();
    let common = [
        "solve",
        "--no-tablebases",
        "--memory",
        "64",
        "--state",
        state_arg,
    ];
    let out = fanorona(&[&common[..], &["--fen", LONG_WIN, "--nodes", "2000"]].concat());
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        text(&out).contains("value: not proven yet"),
        "{}",
        text(&out)
    );
    assert!(state.is_file());
    let out = fanorona(&[&common[..], &["--fen", LONG_WIN]].concat());
    assert!(out.status.success(), "{}", text(&out));
    assert!(text(&out).contains("resuming from"), "{}", text(&out));
    assert!(
        text(&out).contains("value: win for White"),
        "{}",
        text(&out)
    );
    // The saved search belongs to its position.
    let out = fanorona(&[&common[..], &["--fen", "9/9/3B5/9/W1W6 w 0 1"]].concat());
    assert!(!out.status.success());
    assert!(
        text(&out).contains("saved for 9/9/3B5/9/WW7 w 0 1"),
        "{}",
        text(&out)
    );
}

#[test]
fn a_proof_split_over_the_first_turns_is_joined_and_checked() {
    // The long win from counter 23 is a draw: White does not lose (asked of the position, its
    // search saved), Black does not lose after each of White's four turns (the first seeded by
    // the saved search), the five parts joined into one certificate and checked.
    const DRAWN: &str = "9/9/3B5/9/WW7 w 23 1";
    let dir = TempDir::new("cli-solve-split");
    let path = |name: &str| dir.join(name).to_str().unwrap().to_string();
    let common = ["solve", "--fen", DRAWN, "--no-tablebases", "--memory", "64"];
    let own = path("own.fnproof");
    let state = path("own.fnsv");
    let out = fanorona(
        &[
            &common[..],
            &[
                "--question",
                "not-lose",
                "--certificate",
                &own,
                "--state",
                &state,
            ],
        ]
        .concat(),
    );
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        text(&out).contains("only the not-lose question"),
        "{}",
        text(&out)
    );
    assert!(
        text(&out).contains("does White at least draw? yes (proven)"),
        "{}",
        text(&out)
    );
    let mut parts = vec![own];
    for (i, turn) in ["a1a2", "b1b2", "a1b2", "b1c1"].into_iter().enumerate() {
        let part = path(&format!("{turn}.fnproof"));
        let mut args = [
            &common[..],
            &[
                "--after",
                turn,
                "--question",
                "not-lose",
                "--certificate",
                &part,
            ],
        ]
        .concat();
        if i == 0 {
            args.extend(["--seed", &state]);
        }
        let out = fanorona(&args);
        assert!(out.status.success(), "{}", text(&out));
        assert!(
            text(&out).contains("does Black at least draw? yes (proven)"),
            "{}",
            text(&out)
        );
        if i == 0 {
            assert!(text(&out).contains("seeding from"), "{}", text(&out));
        }
        parts.push(part);
    }
    let whole = path("whole.fnproof");
    let join = |parts: &[String]| {
        let mut args = vec![
            "solve",
            "--fen",
            DRAWN,
            "--no-tablebases",
            "--certificate",
            &whole,
            "--join",
        ];
        args.extend(parts.iter().map(String::as_str));
        fanorona(&args)
    };
    // Without the last turn's part, nothing is written and the turn is named.
    let out = join(&parts[..4]);
    assert!(!out.status.success());
    assert!(text(&out).contains("missing after b1c1"), "{}", text(&out));
    assert!(!std::path::Path::new(&whole).exists());
    let out = join(&parts);
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        text(&out).contains("value: draw for White"),
        "{}",
        text(&out)
    );
    let out = fanorona(&["solve", "--check", &whole, "--no-tablebases"]);
    assert!(out.status.success(), "{}", text(&out));
    let said = text(&out);
    assert!(said.contains("checked: White does not lose"), "{said}");
    assert!(said.contains("checked: Black does not lose"), "{said}");
    assert!(said.contains("value: draw for White"), "{said}");
}

#[test]
fn bad_settings_are_refused() {
    for (args, says) in [
        (
            vec!["solve", "--no-progress-limit", "0", "--no-tablebases"],
            "needs the no-progress rule",
        ),
        (
            vec!["solve", "--order", "wild", "--no-tablebases"],
            "--order must be",
        ),
        (
            vec!["solve", "--fen", "9/9/9 w", "--no-tablebases"],
            "--fen",
        ),
        (
            vec!["solve", "--minutes=-1", "--no-tablebases"],
            "--minutes must be",
        ),
        (
            vec!["solve", "--question", "lose", "--no-tablebases"],
            "--question must be",
        ),
        (
            vec!["solve", "--after", "d3e3w a1a1", "--no-tablebases"],
            "--after: turn 2",
        ),
        (
            vec!["solve", "--strategy-nodes", "0", "--no-tablebases"],
            "--strategy-nodes",
        ),
    ] {
        let out = fanorona(&args);
        assert!(!out.status.success(), "{args:?}");
        assert!(text(&out).contains(says), "{args:?}: {}", text(&out));
    }
}
