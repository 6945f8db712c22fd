//! `fanorona engine`: a player behind a line protocol on standard input and output, for GUIs,
//! scripts and other programs.
//!
//! ```text
//! fanorona engine [--player SPEC]        (default player: alphabeta:ms=1000)
//! ```
//!
//! # Protocol
//!
//! The engine reads one command per line and answers on standard output, flushing after every
//! answer. Words are separated by spaces; empty lines are ignored. Positions and turns are in
//! the notation of docs/rules.md.
//!
//! | command | answer |
//! | --- | --- |
//! | `position startpos [moves <turn> ...]` | nothing; the game now starts from the start position and the turns are played in order |
//! | `position fen <position> [moves <turn> ...]` | the same from the given position (2 or 4 fields: placement, side, and optionally the no-capture counter and turn number) |
//! | `go` | `info ...` then `bestturn <turn>`: the player's choice for the side to move, within the player's own limit |
//! | `go ms <N>` / `go depth <N>` / `go sims <N>` | the same with this limit for this one decision (alpha-beta takes `ms` and `depth`, MCTS `ms` and `sims`; random and greedy ignore limits) |
//! | `legal` | `legal <turn> <turn> ...`: every legal turn (just `legal` when the game is over) |
//! | `fen` | `fen <position>`: the current position |
//! | `newgame` | nothing; back to the start position, and the player forgets the previous game |
//! | `isready` | `readyok` |
//! | `quit` | nothing; the engine exits (so it does at the end of the input) |
//!
//! - `info` lines are `info` followed by `key value` pairs, among: `depth <completed depth>`,
//!   `score cs <centi-stones>` / `score win <turns>` / `score loss <turns>` (alpha-beta, from the
//!   side to move; a forced win or loss in that many turns) / `score value <W-L>` (MCTS),
//!   `nodes <positions or simulations>`, `time <ms>`, `nps <nodes per second>`.
//! - The game keeps its history from `position` on, so the repetition and no-progress rules
//!   apply to the turns given after `moves`. `go` does not play the turn it answers: send
//!   `position ... moves ...` with it to go on.
//! - `go` on a finished game answers `info result <1-0|0-1|1/2-1/2> <reason>` and then
//!   `bestturn none`.
//! - Anything malformed (an unknown command, a bad number, a position or turn that does not
//!   parse, an illegal turn) is answered by one line `error <what is wrong>`, and the engine
//!   keeps running. A `position` command with an error leaves the previous position unchanged;
//!   an illegal turn is named by its number in the list and its text.
//!
//! # Example session
//!
//! With the default player; `>` marks what the engine is sent, `<` what it answers (the
//! rejected `position` leaves the game after `d2e3a`).
//!
//! ```text
//! > isready
//! < readyok
//! > position startpos moves d2e3a
//! > legal
//! < legal f3f4w f3f4w,f4g5w g4g5w g4g5w,g5f4a g4g5w,g5f4a,f4g3a c3d2a e5f4a e5f4a,f4g5w h4g5w h4g5w,g5f4a
//! > go depth 3
//! < info depth 3 score cs 206 nodes 6774 time 7 nps 852997
//! < bestturn g4g5w,g5f4a,f4g3a
//! > position startpos moves d2e3a e2e3a
//! < error position: turn 2 (e2e3a) is illegal: step 1 (e2e3a) is illegal: no black stone on e2
//! > go sims 100
//! < error go: alphabeta:ms=1000 does not support the limit `sims 100`
//! > position fen 9/9/9/9/W1B6 w moves a1b1a
//! > go
//! < info result 1-0 all-captured
//! < bestturn none
//! > quit
//! ```

use std::io::{BufRead, Write};

use anyhow::{Context, Result};
use clap::Args;
use fanorona_engine::{Position, Rules, Turn, parse_position};
use fanorona_players::{ChoiceInfo, GameSession, Limit, Player};

use super::players::{TablesArgs, make_player, parse_spec};

/// Arguments of `fanorona engine`.
#[derive(Args, Debug)]
pub struct EngineArgs {
    /// The player answering `go`, e.g. `alphabeta:ms=1000`, `mcts:sims=800`.
    #[arg(long, value_name = "SPEC", default_value = "alphabeta:ms=1000")]
    pub player: String,
    #[command(flatten)]
    pub tables: TablesArgs,
}

/// Run `fanorona engine` on standard input and output.
pub fn run(args: &EngineArgs) -> Result<()> {
    let spec = parse_spec(&args.player)?;
    let player = make_player(&spec, 0, &args.tables.load(Rules::default())?)?;
    let stdin = std::io::stdin();
    let stdout = std::io::stdout();
    serve(stdin.lock(), stdout.lock(), player)
}

/// What to do after a command.
enum Flow {
    Continue,
    Quit,
}

/// The engine's state: the game and the player.
struct Session {
    game: GameSession,
    player: Box<dyn Player>,
}

/// Answers the commands read from `input` on `output` until `quit` or the end of the input.
pub fn serve(input: impl BufRead, mut output: impl Write, player: Box<dyn Player>) -> Result<()> {
    let mut session = Session {
        game: GameSession::new(Position::start(), Rules::default()),
        player,
    };
    for line in input.lines() {
        let line = line.context("reading a command")?;
        let mut answer = Vec::new();
        let flow = session.command(&line, &mut answer);
        for text in &answer {
            writeln!(output, "{text}").context("writing an answer")?;
        }
        output.flush().context("writing an answer")?;
        if let Flow::Quit = flow {
            break;
        }
    }
    Ok(())
}

impl Session {
    /// Runs one command line, pushing the lines of the answer.
    fn command(&mut self, line: &str, out: &mut Vec<String>) -> Flow {
        let words: Vec<&str> = line.split_whitespace().collect();
        let Some((&name, rest)) = words.split_first() else {
            return Flow::Continue;
        };
        let result = match name {
            "quit" => return Flow::Quit,
            "isready" => {
                out.push("readyok".into());
                Ok(())
            }
            "position" => self.position(rest).map_err(|e| format!("position: {e}")),
            "go" => self.go(rest, out).map_err(|e| format!("go: {e}")),
            "legal" => {
                let turns: Vec<String> = if self.game.outcome().is_some() {
                    Vec::new()
                } else {
                    self.game
                        .position()
                        .legal_turns()
                        .iter()
                        .map(Turn::to_string)
                        .collect()
                };
                out.push(
                    std::iter::once("legal".to_string())
                        .chain(turns)
                        .collect::<Vec<_>>()
                        .join(" "),
                );
                Ok(())
            }
            "fen" => {
                out.push(format!("fen {}", self.game.position()));
                Ok(())
            }
            "newgame" => {
                self.game = GameSession::new(Position::start(), Rules::default());
                self.player.new_game();
                Ok(())
            }
            other => Err(format!(
                "unknown command {other:?} (commands: position, go, legal, fen, newgame, isready, quit)"
            )),
        };
        if let Err(message) = result {
            out.push(format!("error {message}"));
        }
        Flow::Continue
    }

    /// `position startpos|fen <position> [moves <turn> ...]`: builds the whole game first and
    /// replaces the current one only if every part is valid.
    fn position(&mut self, words: &[&str]) -> Result<(), String> {
        let moves_at = words.iter().position(|&w| w == "moves");
        let (setup, turns) = match moves_at {
            Some(i) => (&words[..i], &words[i + 1..]),
            None => (words, &words[words.len()..]),
        };
        let start: Position = match setup.split_first() {
            Some((&"startpos", [])) => Position::start(),
            Some((&"startpos", extra)) => {
                return Err(format!(
                    "unexpected {:?} after startpos (expected `moves`)",
                    extra.join(" ")
                ));
            }
            Some((&"fen", [])) => return Err("fen needs a position".into()),
            Some((&"fen", fields)) => {
                parse_position(&fields.join(" ")).map_err(|e| e.to_string())?
            }
            Some((other, _)) => {
                return Err(format!("expected `startpos` or `fen`, found {other:?}"));
            }
            None => return Err("expected `startpos` or `fen <position>`".into()),
        };
        let mut game = GameSession::new(start, Rules::default());
        for (i, text) in turns.iter().enumerate() {
            let number = i + 1;
            let turn: Turn = text
                .parse()
                .map_err(|e| format!("turn {number} ({text}) does not parse: {e}"))?;
            game.play(&turn)
                .map_err(|e| format!("turn {number} ({text}) is illegal: {e}"))?;
        }
        self.game = game;
        Ok(())
    }

    /// `go [ms N | depth N | sims N]`.
    fn go(&mut self, words: &[&str], out: &mut Vec<String>) -> Result<(), String> {
        let limit = match words {
            [] => None,
            [kind, value] => {
                let n = |what: &str| -> Result<u64, String> {
                    value
                        .parse::<u64>()
                        .ok()
                        .filter(|&n| n >= 1)
                        .ok_or_else(|| {
                            format!("{what} must be a whole number of at least 1, found {value:?}")
                        })
                };
                let small = |what: &str| -> Result<u32, String> {
                    u32::try_from(n(what)?).map_err(|_| format!("{what} {value} is too large"))
                };
                Some(match *kind {
                    "ms" => Limit::Millis(n("ms")?),
                    "depth" => Limit::Depth(small("depth")?),
                    "sims" => Limit::Simulations(small("sims")?),
                    other => {
                        return Err(format!(
                            "unknown limit {other:?} (expected ms, depth or sims)"
                        ));
                    }
                })
            }
            _ => {
                return Err(format!(
                    "expected `go` or `go ms|depth|sims <N>`, found {:?}",
                    words.join(" ")
                ));
            }
        };
        if let Some(outcome) = self.game.outcome() {
            out.push(format!(
                "info result {} {}",
                outcome.score(),
                outcome.reason_tag()
            ));
            out.push("bestturn none".into());
            return Ok(());
        }
        let choice = self
            .player
            .choose(self.game.game(), limit)
            .map_err(|e| e.to_string())?;
        out.push(info_line(&choice.info));
        out.push(format!("bestturn {}", choice.turn));
        Ok(())
    }
}

/// `info depth 4 score cs 12 nodes 345 time 6 nps 57500`, leaving out what the player did not
/// report.
fn info_line(info: &ChoiceInfo) -> String {
    let mut parts = vec!["info".to_string()];
    if let Some(d) = info.depth {
        parts.push(format!("depth {d}"));
    }
    if let Some(s) = info.score {
        parts.push(format!("score {s}"));
    }
    parts.push(format!("nodes {}", info.nodes));
    parts.push(format!("time {}", info.elapsed.as_millis()));
    parts.push(format!("nps {}", info.nodes_per_second()));
    parts.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use fanorona_players::PlayerSpec;

    fn session(script: &str) -> Vec<String> {
        let spec: PlayerSpec = "alphabeta:depth=2".parse().unwrap();
        let mut output = Vec::new();
        serve(
            script.as_bytes(),
            &mut output,
            make_player(&spec, 0, &None).unwrap(),
        )
        .unwrap();
        String::from_utf8(output)
            .unwrap()
            .lines()
            .map(str::to_string)
            .collect()
    }

    #[test]
    fn a_bad_position_leaves_the_previous_one() {
        let out = session("position startpos moves d2e3a\nposition fen 9/9 w\nfen\n");
        assert!(out[0].starts_with("error position:"), "{out:?}");
        // d2e3a approaches f4 along the diagonal and takes f4 and g5.
        assert_eq!(
            out[1],
            "fen BBBBBB1BB/BBBBB1BBB/BWBWWBWBW/WWW1WWWWW/WWWWWWWWW b 0 1"
        );
    }

    #[test]
    fn finished_games_answer_with_the_result() {
        let out = session("position fen 9/9/9/9/W1B6 w moves a1b1a\ngo\nlegal\n");
        assert_eq!(
            out,
            vec!["info result 1-0 all-captured", "bestturn none", "legal"]
        );
    }

    #[test]
    fn go_checks_its_limit() {
        let out = session("go depth x\ngo nodes 5\ngo depth 1 ms 5\ngo sims 10\ngo depth 1\n");
        assert!(out[0].starts_with("error go: depth must be"), "{out:?}");
        assert!(out[1].starts_with("error go: unknown limit"), "{out:?}");
        assert!(out[2].starts_with("error go: expected"), "{out:?}");
        assert!(out[3].contains("does not support"), "{out:?}");
        assert!(out[4].starts_with("info depth"), "{out:?}");
        assert!(out[5].starts_with("bestturn "), "{out:?}");
    }
}
