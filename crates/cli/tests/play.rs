//! `fanorona play` driven through the built binary with a scripted standard input.

use std::io::Write;
use std::process::{Command, Output, Stdio};

fn play(args: &[&str], input: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_fanorona"))
        .arg("play")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the fanorona binary starts");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

#[test]
fn legal_turn_bad_input_undo_and_quit() {
    let out = play(
        &["--level", "beginner"],
        "e2e3a\nnonsense\n99\ne2e3a\nundo\nundo\nquit\n",
    );
    assert!(out.status.success(), "{out:?}");
    let text = stdout(&out);
    // The board is drawn with its lines and coordinates.
    assert!(
        text.contains(" 3  B - W - B - W - . - B - W - B - W  3"),
        "{text}"
    );
    assert!(
        text.contains("    | \\ | / | \\ | / | \\ | / | \\ | / |"),
        "{text}"
    );
    assert!(
        text.contains("You played e2e3a, capturing e4 e5."),
        "{text}"
    );
    assert!(text.contains("Black plays "), "{text}");
    assert!(text.contains("I did not understand \"nonsense\""), "{text}");
    assert!(text.contains("There is no step 99"), "{text}");
    // e2 is empty after the first turn, so the second e2e3a is refused with the engine's reason.
    assert!(text.contains("e2e3a is not legal here"), "{text}");
    assert!(text.contains("no white stone on e2"), "{text}");
    assert!(text.contains("Took back e2e3a "), "{text}");
    assert!(text.contains("Nothing to undo"), "{text}");
    assert!(text.trim_end().ends_with("Bye."), "{text}");
}

#[test]
fn end_of_input_quits() {
    let out = play(&[], "");
    assert!(out.status.success(), "{out:?}");
    assert!(stdout(&out).contains("End of input: quitting."));
}

#[test]
fn a_winning_turn_ends_the_game() {
    let out = play(&["--fen", "9/9/W1BBBBBBB/9/9 w"], "a3b3a\n");
    assert!(out.status.success(), "{out:?}");
    let text = stdout(&out);
    assert!(
        text.contains("Game over: White wins: Black has no stones left (1-0). You win!"),
        "{text}"
    );
}

#[test]
fn bad_arguments_fail_with_a_message() {
    let out = play(&["--model", "net.bin"], "");
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("cannot load the model --model net.bin"),
        "{err}"
    );

    let out = play(&["--fen", "9/9/4X4/9/9 w"], "");
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unexpected character 'X'"));

    let out = play(&["--level", "grandmaster"], "");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown level"));
}
