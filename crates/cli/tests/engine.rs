//! `fanorona engine` end to end: a script on standard input, the answers on standard output.

use std::io::Write;
use std::process::{Command, Stdio};

use fanorona_engine::{Game, Position, Rules, Turn};

fn session(player: &str, script: &str) -> Vec<String> {
    let mut child = Command::new(env!("CARGO_BIN_EXE_fanorona"))
        .args(["engine", "--player", player])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(script.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

#[test]
fn protocol_script() {
    let script = "\
isready
legal

position startpos moves d2e3a
go depth 2
bogus command
go depth zero
position startpos moves d2e3a e2e3a
position sideways
position fen 9/9/9/9/W1B6 w
go
position fen 9/9/9/9/W1B6 w moves a1b1a
go
legal
position fen 9/9/9/9/W1B7 w
fen
quit
go
";
    let out = session("alphabeta:depth=3", script);
    let mut lines = out.iter().map(String::as_str);
    let mut next = || {
        lines
            .next()
            .unwrap_or_else(|| panic!("too few lines: {out:#?}"))
    };

    assert_eq!(next(), "readyok");
    // The start position's five legal turns (White's opening captures).
    let legal: Vec<&str> = next().split(' ').collect();
    assert_eq!(legal[0], "legal");
    let mut turns: Vec<String> = legal[1..].iter().map(|s| s.to_string()).collect();
    turns.sort();
    let mut expected: Vec<String> = Position::start()
        .legal_turns()
        .iter()
        .map(Turn::to_string)
        .collect();
    expected.sort();
    assert_eq!(turns, expected);
    assert_eq!(turns.len(), 5);

    // go after d2e3a: an info line, then a legal turn for Black.
    let info = next();
    assert!(info.starts_with("info depth 2 score "), "{info}");
    assert!(info.contains(" nodes ") && info.contains(" time ") && info.contains(" nps "));
    let best = next()
        .strip_prefix("bestturn ")
        .expect("bestturn")
        .to_string();
    let mut game = Game::new(Rules::default());
    game.play_turn(&"d2e3a".parse().unwrap()).unwrap();
    game.play_turn(&best.parse().unwrap())
        .unwrap_or_else(|e| panic!("bestturn {best} is illegal: {e}"));

    assert!(next().starts_with("error unknown command \"bogus\""));
    assert!(next().starts_with("error go: depth must be a whole number"));
    // The illegal second turn is named.
    let illegal = next();
    assert!(
        illegal.starts_with("error position: turn 2 (e2e3a) is illegal"),
        "{illegal}"
    );
    assert!(next().starts_with("error position: expected `startpos` or `fen`"));

    // a1b1a takes the last black stone: the only turn, and a win.
    let info = next();
    assert!(info.starts_with("info score win 1 nodes 1 time "), "{info}");
    assert_eq!(next(), "bestturn a1b1a");
    // On the finished game, go reports the result.
    assert_eq!(next(), "info result 1-0 all-captured");
    assert_eq!(next(), "bestturn none");
    assert_eq!(next(), "legal");
    // A malformed position string: the error says where.
    let bad = next();
    assert!(bad.contains("row 1") && bad.contains("10 points"), "{bad}");
    // ... and the previous position stays.
    assert_eq!(next(), "fen 9/9/9/9/1W7 b 0 1");
    // Nothing after quit.
    assert_eq!(lines.next(), None, "{out:#?}");
}

#[test]
fn mcts_answers_with_simulations() {
    let out = session("mcts:sims=50", "go sims 40\ngo depth 2\n");
    assert!(out[0].starts_with("info score value "), "{out:?}");
    assert!(out[0].contains(" nodes "), "{out:?}");
    let best = out[1].strip_prefix("bestturn ").unwrap();
    assert!(
        Position::start()
            .try_play_turn(&best.parse().unwrap())
            .is_ok()
    );
    assert!(
        out[2].starts_with("error go:") && out[2].contains("depth 2"),
        "{out:?}"
    );
}

#[test]
fn a_bad_player_spec_is_refused_at_start() {
    let out = Command::new(env!("CARGO_BIN_EXE_fanorona"))
        .args(["engine", "--player", "alphabeta:depth=99"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("`depth`"));
}
