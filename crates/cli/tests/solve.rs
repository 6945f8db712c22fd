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
    ] {
        let out = fanorona(&args);
        assert!(!out.status.success(), "{args:?}");
        assert!(text(&out).contains(says), "{args:?}: {}", text(&out));
    }
}
