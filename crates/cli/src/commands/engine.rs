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
//! | `stop` | during a search: ends it now, and `go` answers with the best turn found so far; otherwise nothing |
//! | `isready` | `readyok`, at once (also during a search) |
//! | `quit` | nothing; the engine exits, at once also during a search (whose answer is dropped); at the end of the input it exits after answering a running search |
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
//! - Input is read while a search runs: `stop` and `quit` act at once, `isready` is answered at
//!   once; any other command sent meanwhile waits and is answered, in order, after the search's
//!   `bestturn`, and a `quit` sent after such a command waits its turn too (so a script may
//!   send a whole session without waiting for answers).
//! - Limits: `go ms` 1 to 3600000 (one hour), `go depth` 1 to 64, `go sims` 1 to 10000000; an
//!   MCTS tree is bounded in memory (about 1 GiB) whatever the simulations. Lines are at most
//!   1 MiB; a longer line, or one that is not UTF-8, is answered with an `error` line and skipped.
//!   `error` lines are cut at 240 characters, so a bad command is not echoed back whole.
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

use std::collections::VecDeque;
use std::io::{BufRead, Write};
use std::sync::mpsc;

use anyhow::{Context, Result};
use clap::Args;
use fanorona_engine::{Game, Position, Rules, Turn, parse_position};
use fanorona_net::Backend;
use fanorona_players::{Choice, ChoiceInfo, Limit, Player, PlayerError, Stop};
use fanorona_session::GameSession;

use super::players::parse_player;
use super::tables::TablesArgs;

/// Arguments of `fanorona engine`.
#[derive(Args, Debug)]
pub struct EngineArgs {
    /// The player answering `go`, e.g. `alphabeta:ms=1000`, `mcts:sims=800` (default:
    /// `alphabeta:ms=1000,eval=learned`, with the learned evaluation this program ships, or
    /// `alphabeta:ms=1000` in a build that ships none).
    #[arg(long, value_name = "SPEC")]
    pub player: Option<String>,
    #[command(flatten)]
    pub tables: TablesArgs,
}

use crate::lines::read_line;

/// Most bytes of commands held while a search runs (each line is at most
/// [`crate::lines::MAX_LINE_BYTES`]); later ones are dropped, and one `error` line says how many.
pub const MAX_WAITING_BYTES: usize = 16 << 20;

/// Most commands held while a search runs.
pub const MAX_WAITING_LINES: usize = 10_000;

/// How often, once the input has ended during a search, the engine looks whether anyone still
/// reads its answers.
const READER_CHECK: std::time::Duration = std::time::Duration::from_millis(200);

/// Longest `error` line written, in characters: what a bad command echoes is cut there.
const MAX_ERROR_CHARS: usize = 240;

/// Run `fanorona engine` on standard input and output.
pub fn run(args: &EngineArgs, backend: Backend) -> Result<()> {
    let registry = fanorona_net::player_registry(backend);
    let text = args.player.clone().unwrap_or_else(default_player);
    let settings = parse_player(&text, &registry)?;
    let player = registry
        .with_tables(args.tables.load(Rules::default())?)
        .build(&settings, 0)?;
    let stdin = std::io::BufReader::new(std::io::stdin());
    let stdout = std::io::stdout();
    serve_until(stdin, stdout.lock(), player, &stdout_closed)
}

/// Whether the reader of standard output has gone (a closed pipe): then nobody will read an
/// answer, and a search still running is stopped.
#[cfg(unix)]
#[allow(unsafe_code)] // one libc call: std has no way to ask whether a pipe's reader is gone
fn stdout_closed() -> bool {
    let mut fd = libc::pollfd {
        fd: libc::STDOUT_FILENO,
        events: 0,
        revents: 0,
    };
    // SAFETY: one valid pollfd, a zero timeout.
    let ready = unsafe { libc::poll(&mut fd, 1, 0) };
    ready > 0 && fd.revents & (libc::POLLERR | libc::POLLHUP) != 0
}

#[cfg(not(unix))]
fn stdout_closed() -> bool {
    false
}

/// The player when none is given: alpha-beta, with the shipped learned evaluation if any.
fn default_player() -> String {
    if fanorona_specs::shipped_evaluation().is_ok() {
        "alphabeta:ms=1000,eval=learned".into()
    } else {
        "alphabeta:ms=1000".into()
    }
}

/// What to do after a command.
enum Flow {
    Continue,
    /// Start a search of this game with this limit.
    Search(Game, Option<Limit>),
    Quit,
}

/// What reaches the engine's loop: input lines from the reading thread, results from the
/// searching one.
enum Event {
    /// A command line, or why it could not be read as one.
    Line(Result<String, String>),
    /// The end of the input.
    End,
    /// A search finished: the player comes back with its choice.
    Searched(Box<dyn Player>, Result<Choice, PlayerError>),
    /// The player panicked during a search (a bug): the engine cannot go on without it.
    Crashed,
}

/// The engine's state: the game and the player.
struct Session {
    game: GameSession,
    player: Box<dyn Player>,
}

/// Answers the commands read from `input` on `output` until `quit` or the end of the input.
///
/// Input is read on its own thread and every `go` searches on another, so that `stop` and
/// `quit` act during a search and `isready` is answered at once; other commands sent meanwhile
/// are answered, in order, once it ends (and a `quit` sent after them waits its turn). At the
/// end of the input a running search is finished and answered first.
///
/// `output_gone` says that nobody reads the output any more: once the input has ended, a
/// running search is then stopped and the engine exits without answering.
pub fn serve_until(
    input: impl BufRead + Send + 'static,
    mut output: impl Write,
    mut player: Box<dyn Player>,
    output_gone: &dyn Fn() -> bool,
) -> Result<()> {
    let stop = Stop::new();
    player.set_stop(stop.clone());
    let (events, inbox) = mpsc::channel();
    let reader_events = events.clone();
    std::thread::spawn(move || read_lines(input, &reader_events));

    let mut idle = Some(Session {
        game: GameSession::new(Position::start(), Rules::default()),
        player,
    });
    // While a search runs, the game it left behind (the player is with the search).
    let mut searching: Option<GameSession> = None;
    let mut waiting = Waiting::default();
    let mut ended = false;
    let mut asked = Asked::default();
    loop {
        while let Some(session) = idle.as_mut() {
            let Some(line) = waiting.pop() else {
                break;
            };
            let mut answer = Vec::new();
            let flow = match line {
                Ok(line) => session.command(&line, &mut answer),
                Err(message) => {
                    answer.push(error_line(&message));
                    Flow::Continue
                }
            };
            write_lines(&mut output, &answer)?;
            match flow {
                Flow::Continue => {}
                Flow::Quit => return Ok(()),
                Flow::Search(game, limit) => {
                    let Session { game: kept, player } = idle.take().expect("idle");
                    searching = Some(kept);
                    stop.lower();
                    asked = Asked::default();
                    spawn_search(player, game, limit, events.clone());
                }
            }
        }
        if idle.is_some() && ended {
            return Ok(());
        }
        let Some(event) = next_event(&inbox, ended && searching.is_some(), output_gone)? else {
            // Nobody reads the answer of the search still running.
            stop.raise();
            return Ok(());
        };
        match event {
            Event::Line(line) if searching.is_some() => {
                during_search(line, &mut waiting, &stop, &mut output, &mut asked)?;
            }
            Event::Line(line) => waiting.push(line),
            Event::End => ended = true,
            Event::Crashed => {
                anyhow::bail!("the player failed during a search (a bug; please report it)")
            }
            Event::Searched(player, choice) => {
                if asked.quit {
                    // `stop` then `quit` (even in one write): the stopped search answers first.
                    if asked.answer {
                        write_lines(&mut output, &search_answer(choice))?;
                    }
                    return Ok(());
                }
                write_lines(&mut output, &search_answer(choice))?;
                if let Some(note) = waiting.take_dropped() {
                    write_lines(&mut output, &[error_line(&note)])?;
                }
                let game = searching.take().expect("a search was running");
                idle = Some(Session { game, player });
            }
        }
    }
}

/// What the commands sent during the running search asked of it.
#[derive(Default)]
struct Asked {
    /// `quit`: exit once the search has stopped.
    quit: bool,
    /// `stop`: its answer is owed, even if `quit` follows.
    answer: bool,
}

/// A line read while a search runs: `isready` is answered at once; `stop` is for the running
/// search, and so is `quit` unless commands sent before it are still waiting (then its turn
/// comes after theirs); anything else waits.
fn during_search(
    line: Result<String, String>,
    waiting: &mut Waiting,
    stop: &Stop,
    output: &mut impl Write,
    asked: &mut Asked,
) -> Result<()> {
    match line.as_deref().map(|l| l.split_whitespace().next()) {
        Ok(Some("isready")) => write_lines(output, &["readyok".into()])?,
        Ok(Some("stop")) => {
            stop.raise();
            asked.answer = true;
        }
        Ok(Some("quit")) if waiting.lines.is_empty() => {
            stop.raise();
            asked.quit = true;
        }
        _ => waiting.offer(line),
    }
    Ok(())
}

/// The next event; once the input has ended during a search (`reader_check`), `None` when
/// `output_gone` says that nobody will read its answer.
fn next_event(
    inbox: &mpsc::Receiver<Event>,
    reader_check: bool,
    output_gone: &dyn Fn() -> bool,
) -> Result<Option<Event>> {
    if !reader_check {
        return Ok(Some(inbox.recv().context("the engine's threads stopped")?));
    }
    loop {
        match inbox.recv_timeout(READER_CHECK) {
            Ok(event) => return Ok(Some(event)),
            Err(mpsc::RecvTimeoutError::Timeout) if output_gone() => return Ok(None),
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(e) => return Err(e).context("the engine's threads stopped"),
        }
    }
}

/// Runs `player`'s search of `game` on a thread of its own; the player comes back with its
/// choice on `events` (or the news that it panicked).
fn spawn_search(
    mut player: Box<dyn Player>,
    game: Game,
    limit: Option<Limit>,
    events: mpsc::Sender<Event>,
) {
    std::thread::spawn(move || {
        let choice =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| player.choose(&game, limit)));
        let _ = events.send(match choice {
            Ok(choice) => Event::Searched(player, choice),
            Err(_) => Event::Crashed,
        });
    });
}

/// Commands waiting for their turn, bounded while a search runs ([`MAX_WAITING_LINES`],
/// [`MAX_WAITING_BYTES`]): past the bound they are counted and dropped.
#[derive(Default)]
struct Waiting {
    lines: VecDeque<Result<String, String>>,
    bytes: usize,
    dropped: usize,
}

impl Waiting {
    /// Queues `line` (the engine is idle: it is answered at once).
    fn push(&mut self, line: Result<String, String>) {
        self.bytes += line_bytes(&line);
        self.lines.push_back(line);
    }

    /// Queues `line` sent during a search, unless the queue is full.
    fn offer(&mut self, line: Result<String, String>) {
        if self.lines.len() >= MAX_WAITING_LINES
            || self.bytes + line_bytes(&line) > MAX_WAITING_BYTES
        {
            self.dropped += 1;
        } else {
            self.push(line);
        }
    }

    fn pop(&mut self) -> Option<Result<String, String>> {
        let line = self.lines.pop_front()?;
        self.bytes -= line_bytes(&line);
        Some(line)
    }

    /// The note on the commands dropped since the last one, if any.
    fn take_dropped(&mut self) -> Option<String> {
        let dropped = std::mem::take(&mut self.dropped);
        (dropped > 0).then(|| {
            format!(
                "{dropped} commands sent during the search were ignored (at most \
                 {MAX_WAITING_LINES} commands or {MAX_WAITING_BYTES} bytes wait for one)"
            )
        })
    }
}

/// The bytes a waiting line holds.
fn line_bytes(line: &Result<String, String>) -> usize {
    line.as_ref().map_or_else(String::len, String::len)
}

/// Reads `input` line by line onto `events` (see [`read_line`]) until its end or an error.
fn read_lines(mut input: impl BufRead, events: &mpsc::Sender<Event>) {
    let mut buffer = Vec::new();
    loop {
        let event = match read_line(&mut input, &mut buffer) {
            Ok(Some(line)) => Event::Line(line),
            Ok(None) => Event::End,
            Err(e) => {
                // A failing input does not heal: report it and treat it as the end.
                let _ = events.send(Event::Line(Err(format!("reading a command: {e}"))));
                Event::End
            }
        };
        let last = matches!(event, Event::End);
        if events.send(event).is_err() || last {
            return;
        }
    }
}

/// Writes `lines` and flushes.
fn write_lines(output: &mut impl Write, lines: &[String]) -> Result<()> {
    for text in lines {
        writeln!(output, "{text}").context("writing an answer")?;
    }
    output.flush().context("writing an answer")
}

/// `error <message>`, cut to [`MAX_ERROR_CHARS`] so that a huge bad line is not echoed whole.
fn error_line(message: &str) -> String {
    let mut chars = message.char_indices();
    match chars.nth(MAX_ERROR_CHARS) {
        None => format!("error {message}"),
        Some((cut, _)) => format!(
            "error {}... ({} more bytes)",
            &message[..cut],
            message.len() - cut
        ),
    }
}

/// The answer to a finished search: `info ...` and `bestturn ...`, or an error.
fn search_answer(choice: Result<Choice, PlayerError>) -> Vec<String> {
    match choice {
        Ok(choice) => vec![info_line(&choice.info), format!("bestturn {}", choice.turn)],
        Err(e) => vec![error_line(&format!("go: {e}"))],
    }
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
            // Nothing to stop: the search it was meant for has already answered.
            "stop" => Ok(()),
            "isready" => {
                out.push("readyok".into());
                Ok(())
            }
            "position" => self.position(rest).map_err(|e| format!("position: {e}")),
            "go" => match self.go(rest, out) {
                Ok(Some((game, limit))) => return Flow::Search(game, limit),
                Ok(None) => Ok(()),
                Err(e) => Err(format!("go: {e}")),
            },
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
                "unknown command {other:?} (commands: position, go, stop, legal, fen, newgame, isready, quit)"
            )),
        };
        if let Err(message) = result {
            out.push(error_line(&message));
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
        // An empty board is no game, here as on the server.
        if start.occupied().is_empty() {
            return Err(fanorona_session::session::ReplayError::NoStones.to_string());
        }
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

    /// `go [ms N | depth N | sims N]`: the game to search and the limit, or `None` when the
    /// game is over (and the result is answered at once).
    #[allow(clippy::type_complexity)]
    fn go(
        &mut self,
        words: &[&str],
        out: &mut Vec<String>,
    ) -> Result<Option<(Game, Option<Limit>)>, String> {
        let limit = match words {
            [] => None,
            [kind, value] => Some(parse_limit(kind, value)?),
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
            return Ok(None);
        }
        Ok(Some((self.game.game().clone(), limit)))
    }
}

/// `ms 500`, `depth 6`, `sims 800`: a limit within its kind's bounds ([`Limit::max_of`]).
fn parse_limit(kind: &str, value: &str) -> Result<Limit, String> {
    let make: fn(u64) -> Limit = match kind {
        "ms" => Limit::Millis,
        "depth" => |n| Limit::Depth(n as u32),
        "sims" => |n| Limit::Simulations(n as u32),
        other => {
            return Err(format!(
                "unknown limit {other:?} (expected ms, depth or sims)"
            ));
        }
    };
    let max = make(1).max_of();
    value
        .parse::<u64>()
        .ok()
        .filter(|n| (1..=max).contains(n))
        .map(make)
        .ok_or_else(|| format!("{kind} must be a whole number from 1 to {max}, found {value:?}"))
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

    fn serve(
        input: impl BufRead + Send + 'static,
        output: impl Write,
        player: Box<dyn Player>,
    ) -> Result<()> {
        serve_until(input, output, player, &|| false)
    }

    fn make_player(text: &str) -> Box<dyn Player> {
        let registry = fanorona_specs::Registry::classical();
        registry.build(&registry.parse(text).unwrap(), 0).unwrap()
    }

    fn session(script: &str) -> Vec<String> {
        let spec = "alphabeta:depth=2";
        let mut output = Vec::new();
        serve(
            std::io::Cursor::new(script.as_bytes().to_vec()),
            &mut output,
            make_player(spec),
        )
        .unwrap();
        String::from_utf8(output)
            .unwrap()
            .lines()
            .map(str::to_string)
            .collect()
    }

    /// Commands sent during a search wait in a bounded queue: past it they are dropped and
    /// one error says how many (issue 28 item 11).
    #[test]
    fn commands_sent_during_a_search_wait_in_a_bounded_queue() {
        let mut script = String::from("go ms 300\n");
        for _ in 0..MAX_WAITING_LINES + 7 {
            script.push_str("fen\n");
        }
        let mut output = Vec::new();
        serve(
            std::io::Cursor::new(script.into_bytes()),
            &mut output,
            make_player("alphabeta"),
        )
        .unwrap();
        let out: Vec<&str> = std::str::from_utf8(&output).unwrap().lines().collect();
        assert!(out[1].starts_with("bestturn "), "{:?}", &out[..3]);
        assert!(
            out[2].starts_with("error 7 commands sent during the search were ignored"),
            "{}",
            out[2]
        );
        assert_eq!(
            out.len(),
            3 + MAX_WAITING_LINES,
            "{:?}",
            &out[out.len() - 2..]
        );
        assert!(out[3..].iter().all(|l| l.starts_with("fen ")));
    }

    /// At the end of the input a search is answered, unless nobody reads the answers any more:
    /// then it is stopped and the engine exits at once.
    #[test]
    fn a_search_nobody_will_read_is_stopped_at_the_end_of_the_input() {
        let started = std::time::Instant::now();
        let mut output = Vec::new();
        serve_until(
            std::io::Cursor::new(b"go ms 3600000\n".to_vec()),
            &mut output,
            make_player("alphabeta"),
            &|| true,
        )
        .unwrap();
        assert!(output.is_empty(), "{}", String::from_utf8_lossy(&output));
        assert!(started.elapsed() < std::time::Duration::from_secs(60));
    }

    #[test]
    fn an_empty_board_is_no_game() {
        let out = session("position fen 9/9/9/9/9 w 0 1\nfen\n");
        assert_eq!(
            out[0],
            "error position: start position: the board has no stones; a game needs at least one"
        );
        assert!(out[1].starts_with("fen BBBBBBBBB/"), "{out:?}");
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

    #[test]
    fn limits_are_bounded_as_documented() {
        let out = session("go depth 65\ngo ms 3600001\ngo sims 10000001\ngo ms 4294967296\n");
        assert_eq!(out.len(), 4, "{out:?}");
        assert!(
            out[0].contains("depth must be a whole number from 1 to 64"),
            "{out:?}"
        );
        assert!(out[1].contains("from 1 to 3600000"), "{out:?}");
        assert!(out[2].contains("from 1 to 10000000"), "{out:?}");
        assert!(out[3].contains("from 1 to 3600000"), "{out:?}");
    }

    #[test]
    fn bad_bytes_and_long_lines_get_an_error_and_the_engine_goes_on() {
        let mut script = b"\xff\xfe bad\n".to_vec();
        script.extend(std::iter::repeat_n(b'x', crate::lines::MAX_LINE_BYTES + 10));
        script.extend(b"\nisready\n");
        script.extend(std::iter::repeat_n(b'y', 5000));
        script.extend(b"\nisready\n");
        let mut output = Vec::new();
        let spec = "random";
        serve(std::io::Cursor::new(script), &mut output, make_player(spec)).unwrap();
        let out: Vec<String> = String::from_utf8(output)
            .unwrap()
            .lines()
            .map(str::to_string)
            .collect();
        assert_eq!(out.len(), 5, "{out:?}");
        assert!(out[0].starts_with("error the line is not UTF-8"), "{out:?}");
        assert!(
            out[1].starts_with("error line too long"),
            "{}",
            &out[1][..60]
        );
        assert_eq!(out[2], "readyok");
        // A 5000-byte unknown command is named, but not echoed whole.
        assert!(out[3].starts_with("error unknown command"), "{out:?}");
        assert!(out[3].len() < 400, "{} bytes", out[3].len());
        assert!(out[3].contains("more bytes)"), "{}", out[3]);
        assert_eq!(out[4], "readyok");
    }

    /// Fuzz target: mutated sessions (bytes, lines, words, numbers) get only the protocol's
    /// own answers, and the engine neither panics nor stops early.
    #[test]
    fn fuzz_mutated_sessions_get_protocol_answers_only() {
        let seeds: Vec<Vec<u8>> = [
            "isready\nposition startpos moves d2e3a\nlegal\ngo\nfen\n",
            "position fen 9/9/9/9/W1B6 w moves a1b1a\ngo\nlegal\nnewgame\ngo ms 5\n",
            "position startpos moves d2e3a e2e3a\ngo depth 2\nstop\ngo sims 3\nquit\n",
        ]
        .iter()
        .map(|s| s.as_bytes().to_vec())
        .collect();
        let words: [&[u8]; 10] = [
            b"go ",
            b"position ",
            b"fen ",
            b"moves ",
            b"startpos",
            b" 4294967295",
            b"\n",
            b"stop\n",
            b"legal\n",
            b"\xff",
        ];
        let spec = "random";
        fanorona_testkit::fuzz::run("engine protocol", &seeds, &words, 1000, |bytes| {
            let mut output = Vec::new();
            serve(
                std::io::Cursor::new(bytes.to_vec()),
                &mut output,
                make_player(spec),
            )
            .expect("the session runs to its end");
            let text = String::from_utf8(output).expect("answers are UTF-8");
            for line in text.lines() {
                let word = line.split(' ').next().unwrap_or("");
                assert!(
                    ["info", "bestturn", "legal", "fen", "readyok", "error"].contains(&word),
                    "{line}"
                );
                if word == "error" {
                    assert!(line.len() < 400, "{line}");
                }
            }
        });
    }

    /// `stop` owes the search's answer: a `quit` right behind it (in the same write) comes
    /// after the answer; `quit` alone drops it.
    #[test]
    fn stop_then_quit_in_one_write_answers_the_search() {
        for _ in 0..10 {
            let out = session("go ms 3600000\nstop\nquit\n");
            assert!(
                out.last().is_some_and(|l| l.starts_with("bestturn ")),
                "{out:?}"
            );
        }
        let out = session("go ms 3600000\nquit\n");
        assert!(out.iter().all(|l| !l.starts_with("bestturn")), "{out:?}");
    }

    #[test]
    fn stop_when_no_search_runs_is_ignored() {
        assert_eq!(session("stop\nisready\n"), vec!["readyok"]);
    }
}
