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

/// An engine process driven line by line, its answers read on a thread.
struct Live {
    child: std::process::Child,
    lines: std::sync::mpsc::Receiver<String>,
}

impl Live {
    fn start(player: &str) -> Live {
        let mut child = Command::new(env!("CARGO_BIN_EXE_fanorona"))
            .args(["engine", "--player", player])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("the binary runs");
        let stdout = child.stdout.take().unwrap();
        let (send, lines) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            use std::io::BufRead;
            for line in std::io::BufReader::new(stdout).lines() {
                let Ok(line) = line else { return };
                if send.send(line).is_err() {
                    return;
                }
            }
        });
        Live { child, lines }
    }

    fn send(&mut self, text: &str) {
        let stdin = self.child.stdin.as_mut().unwrap();
        stdin.write_all(text.as_bytes()).unwrap();
        stdin.flush().unwrap();
    }

    /// The next answer line, waiting at most `secs` seconds.
    fn next(&self, secs: u64) -> Option<String> {
        self.lines
            .recv_timeout(std::time::Duration::from_secs(secs))
            .ok()
    }
}

#[test]
fn stop_ends_a_long_search_with_its_best_turn_so_far() {
    for player in ["alphabeta", "mcts"] {
        let mut engine = Live::start(player);
        engine.send("go ms 600000\n");
        std::thread::sleep(std::time::Duration::from_millis(300));
        // Answered during the search.
        engine.send("isready\n");
        assert_eq!(engine.next(20).as_deref(), Some("readyok"), "{player}");
        // Sent during the search: waits for it, answered after `bestturn`.
        engine.send("fen\n");
        engine.send("stop\n");
        let info = engine.next(20).expect("an answer soon after stop");
        assert!(info.starts_with("info "), "{player}: {info}");
        let best = engine.next(5).unwrap();
        let turn = best.strip_prefix("bestturn ").expect("bestturn");
        assert!(
            Position::start()
                .try_play_turn(&turn.parse().unwrap())
                .is_ok(),
            "{player}: {best}"
        );
        assert_eq!(
            engine.next(5).as_deref(),
            Some("fen BBBBBBBBB/BBBBBBBBB/BWBW1BWBW/WWWWWWWWW/WWWWWWWWW w 0 1"),
            "{player}"
        );
        engine.send("quit\n");
        assert!(engine.child.wait().unwrap().success());
    }
}

#[test]
fn quit_during_a_search_exits_at_once() {
    let mut engine = Live::start("alphabeta");
    engine.send("go ms 600000\n");
    std::thread::sleep(std::time::Duration::from_millis(200));
    let sent = std::time::Instant::now();
    engine.send("quit\n");
    assert_eq!(engine.next(20), None, "no answer after quit");
    let status = engine.child.wait().unwrap();
    assert!(status.success());
    assert!(sent.elapsed().as_secs() < 20);
}

/// `printf 'go ms 3600000\n' | fanorona engine | head -c0`: the reader of the answers is gone
/// when the input ends, so the hour-long search is stopped and the engine exits (issue 28
/// item 11).
#[test]
fn a_search_whose_reader_has_gone_ends_with_the_input() {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let mut child = Command::new(env!("CARGO_BIN_EXE_fanorona"))
        .args(["engine", "--player", "alphabeta", "--no-tablebases"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the binary runs");
    drop(child.stdout.take());
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(b"go ms 3600000\n").unwrap();
    drop(stdin);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    loop {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        if std::time::Instant::now() > deadline {
            child.kill().unwrap();
            panic!("the engine was still searching two minutes after its reader had gone");
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
}
