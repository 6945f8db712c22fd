//! `fanorona play`: a game against the computer in the terminal.
//!
//! Reads standard input line by line, so it can be scripted; the end of input quits. The
//! player types steps in notation (`d2e3a`, `e2e3a,e3d4w`) or picks the numbered legal steps
//! one at a time. A chain that can go on after the typed steps waits for more steps, or `0` /
//! `end` to stop there; a capturing step typed without `a` or `w` is taken the one way it
//! captures, or the player is asked which. The board is drawn from the player's side. At the
//! end of a game the player may start a new one or take back turns. Every rule decision is the
//! engine's; this module only draws and asks.

use std::io::{self, BufRead, Write};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use anyhow::{Context, Result};
use clap::Args;
use fanorona_engine::{
    Action, Bitboard, BoardStyle, Color, Position, Rules, Step, StepKind, Turn, draw_board_for,
    parse_position,
};
use fanorona_players::Stop;
use fanorona_players::evaluate;
use fanorona_session::levels::{Level, TurnChooser};
use fanorona_session::session::{GameSession, StepDetail, next_steps, turn_details};

/// Arguments of `fanorona play`.
#[derive(Args, Debug)]
pub struct PlayArgs {
    /// Play against this network model instead of the built-in alpha-beta engine.
    #[arg(long, value_name = "FILE")]
    pub model: Option<PathBuf>,
    /// The engine's strength: beginner, easy, medium or hard.
    #[arg(long, default_value = "medium")]
    pub level: Level,
    /// Your side, white or black (White moves first).
    #[arg(long, default_value = "white")]
    pub color: Color,
    /// Start from this position (docs/rules.md notation) instead of the start position.
    #[arg(long, value_name = "POSITION")]
    pub fen: Option<String>,
    #[command(flatten)]
    pub tables: super::tables::TablesArgs,
}

/// Run `fanorona play` on standard input and output.
pub fn run(args: &PlayArgs, backend: fanorona_net::Backend) -> Result<()> {
    let engine = super::players::engine_for(
        args.model.as_deref(),
        args.tables.load_with_hint(Rules::default(), true)?,
        backend,
    )?;
    let start = match &args.fen {
        Some(text) => parse_position(text).context("--fen")?,
        None => Position::start(),
    };
    anyhow::ensure!(
        !start.occupied().is_empty(),
        "--fen: {}",
        fanorona_session::session::ReplayError::NoStones
    );
    let mut session = Session {
        session: GameSession::new(start, Rules::default()),
        start,
        over_announced: false,
        human: args.color,
        level: args.level,
        engine,
        chain: Vec::new(),
        redraw: true,
        aside: None,
        out: io::stdout().lock(),
    };
    session.play(io::stdin().lock())
}

const HELP: &str = "\
Enter your turn in notation: d2e3a (approach), d3e3w (withdrawal), d2e3 (no capture), or a
chain as its steps joined by commas, e2e3a,e3d4w. Or pick the numbered steps one at a time.
After a capture the same stone may go on: type or pick the next step, or 0 (`end`) to end
the turn there. A game is won by taking every enemy stone or leaving the enemy without a
move; it is drawn by repeating a position or by a long stretch without captures.
Commands: undo (take back your last turn), hint, moves, board, new (a new game; the one under
way is put aside), back (return to the game put aside), help, quit.";

/// What the player may do once a game is over.
const AFTER_GAME: &str =
    "Type `new` for another game, `undo` to take back your last turn, or `quit`.";

struct Session<W: Write> {
    session: GameSession,
    /// Where every game of this session starts (`new`).
    start: Position,
    /// Whether the end of the current game has been announced.
    over_announced: bool,
    human: Color,
    level: Level,
    engine: Arc<dyn TurnChooser>,
    /// Steps of the human's turn in progress (picked by number).
    chain: Vec<Step>,
    /// Whether the board changed since it was last drawn.
    redraw: bool,
    /// The unfinished game `new` put aside, which `back` returns to.
    aside: Option<GameSession>,
    out: W,
}

/// Whether the game loop goes on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Flow {
    Continue,
    Quit,
}

/// What the player asked for.
enum Input {
    Quit,
    Help,
    Undo,
    Hint,
    Moves,
    Board,
    New,
    Back,
    End,
    Pick(usize),
    Turn(Turn),
}

fn parse_input(line: &str) -> Result<Option<Input>, String> {
    let text = line.trim();
    Ok(Some(match text.to_ascii_lowercase().as_str() {
        "" => return Ok(None),
        "quit" | "exit" | "q" => Input::Quit,
        "help" | "h" | "?" => Input::Help,
        "undo" | "u" | "takeback" => Input::Undo,
        "hint" => Input::Hint,
        "moves" | "history" => Input::Moves,
        "board" | "b" => Input::Board,
        "new" | "restart" => Input::New,
        "back" => Input::Back,
        "end" | "0" => Input::End,
        lower => {
            if let Ok(n) = lower.parse::<usize>() {
                Input::Pick(n)
            } else {
                let compact: String = lower.chars().filter(|c| !c.is_whitespace()).collect();
                compact.parse::<Turn>().map(Input::Turn).map_err(|e| {
                    format!(
                        "I did not understand {text:?} ({e}). Type a turn like d2e3a, a step number, or `help`."
                    )
                })?
            }
        }
    }))
}

impl<W: Write> Session<W> {
    fn play(&mut self, mut input: impl BufRead) -> Result<()> {
        let mut buffer = Vec::new();
        writeln!(
            self.out,
            "Fanorona: you play {} against the {} engine at level {} ({}).\n{HELP}\n",
            self.human,
            self.engine.name(),
            self.level,
            self.engine.level_strength(self.level).description
        )?;
        loop {
            let over = self.session.game().outcome().is_some();
            if over {
                if !self.over_announced {
                    self.announce_end()?;
                }
            } else if self.session.position().side_to_move() != self.human {
                self.engine_turn()?;
                continue;
            } else if self.redraw {
                self.draw()?;
                self.list_steps()?;
                self.redraw = false;
            }
            if over {
                write!(self.out, "game over> ")?;
            } else {
                write!(self.out, "{}> ", self.human)?;
            }
            self.out.flush()?;
            // At most MAX_LINE_BYTES a line: a longer one is skipped with a message.
            let line = match crate::lines::read_line(&mut input, &mut buffer) {
                Ok(Some(Ok(line))) => line,
                Ok(Some(Err(message))) => {
                    writeln!(self.out, "{message}")?;
                    continue;
                }
                Ok(None) => {
                    writeln!(self.out, "\nEnd of input: quitting.")?;
                    return Ok(());
                }
                Err(e) => {
                    writeln!(self.out, "\nCannot read input ({e}): quitting.")?;
                    return Ok(());
                }
            };
            let input = match parse_input(&line) {
                Ok(Some(input)) => input,
                Ok(None) => continue,
                Err(message) => {
                    writeln!(self.out, "{message}")?;
                    continue;
                }
            };
            let flow = if over {
                self.act_after_game(input)?
            } else {
                self.act(input)?
            };
            if flow == Flow::Quit {
                return Ok(());
            }
        }
    }

    /// Draws the final position and says who won, then what the player may do.
    fn announce_end(&mut self) -> Result<()> {
        let Some(outcome) = self.session.game().outcome() else {
            return Ok(());
        };
        self.chain.clear();
        self.draw()?;
        let verdict = match outcome.winner() {
            Some(w) if w == self.human => "You win!",
            Some(_) => "You lose.",
            None => "A draw.",
        };
        writeln!(
            self.out,
            "Game over: {} ({}). {verdict}\n{AFTER_GAME}",
            sentence(&outcome.to_string()),
            outcome.score()
        )?;
        self.over_announced = true;
        Ok(())
    }

    /// What the player asked for once the game is over: a new game, undo, or looking back.
    fn act_after_game(&mut self, input: Input) -> Result<Flow> {
        match input {
            Input::Quit | Input::Help | Input::Moves | Input::New | Input::Back => {
                return self.act(input);
            }
            Input::Board => self.draw()?,
            Input::Undo => {
                self.undo()?;
                self.over_announced = false;
            }
            _ => writeln!(self.out, "The game is over. {AFTER_GAME}")?,
        }
        Ok(Flow::Continue)
    }

    /// Starts a new game from this session's start position, the player keeping their side.
    /// An unfinished game with turns played is put aside (`back` returns to it), not lost.
    fn new_game(&mut self) -> Result<()> {
        let rules = self.session.game().rules();
        let old = std::mem::replace(&mut self.session, GameSession::new(self.start, rules));
        let turns = old.turns().len();
        self.chain.clear();
        self.redraw = true;
        self.over_announced = false;
        write!(self.out, "A new game: you play {}.", self.human)?;
        if turns > 0 && old.game().outcome().is_none() {
            self.aside = Some(old);
            write!(
                self.out,
                " The game you were playing ({turns} turns) is put aside: `back` returns to it."
            )?;
        }
        writeln!(self.out)?;
        Ok(())
    }

    /// Goes back to the game `new` put aside (the current one is put aside in its place).
    fn back(&mut self) -> Result<()> {
        let Some(aside) = self.aside.take() else {
            writeln!(
                self.out,
                "No game is put aside: `back` returns to one that `new` set aside."
            )?;
            return Ok(());
        };
        let current = std::mem::replace(&mut self.session, aside);
        if !current.turns().is_empty() && current.game().outcome().is_none() {
            self.aside = Some(current);
        }
        self.chain.clear();
        self.redraw = true;
        self.over_announced = false;
        writeln!(
            self.out,
            "Back to the game put aside ({} turns).",
            self.session.turns().len()
        )?;
        Ok(())
    }

    /// Does what the player asked for.
    fn act(&mut self, input: Input) -> Result<Flow> {
        match input {
            Input::Quit => {
                writeln!(self.out, "Bye.")?;
                return Ok(Flow::Quit);
            }
            Input::Help => writeln!(self.out, "{HELP}")?,
            Input::Board => self.redraw = true,
            Input::New => self.new_game()?,
            Input::Back => self.back()?,
            Input::Moves => self.list_moves()?,
            Input::Undo => self.undo()?,
            Input::Hint => self.hint()?,
            Input::End => {
                if self.chain.is_empty() {
                    writeln!(self.out, "There is no chain to end: make a capture first.")?;
                } else {
                    let turn = self.chain_turn();
                    self.commit(turn)?;
                }
            }
            Input::Pick(n) => self.pick(n)?,
            Input::Turn(typed) => self.typed(&typed)?,
        }
        Ok(Flow::Continue)
    }

    /// Steps typed in notation, after the chain so far: each is matched against the legal
    /// steps (a capture typed without `a`/`w` is taken the one way it captures, or the player
    /// is asked which); a chain that can go on afterwards waits for more steps; anything else
    /// is played as a whole turn, or refused with the engine's reason.
    fn typed(&mut self, typed: &Turn) -> Result<()> {
        let mut chain = self.chain.clone();
        for &step in typed.steps() {
            let pos = after(self.session.position(), &chain);
            let options = next_steps(&pos);
            if options.iter().any(|d| d.step == step) {
                chain.push(step);
                continue;
            }
            let ways: Vec<&StepDetail> = options
                .iter()
                .filter(|d| {
                    step.kind() == StepKind::Paika
                        && d.step.is_capture()
                        && (d.step.from(), d.step.to()) == (step.from(), step.to())
                })
                .collect();
            match ways.as_slice() {
                [one] => {
                    chain.push(one.step);
                    continue;
                }
                [_, _, ..] => {
                    let way = |kind| {
                        ways.iter()
                            .find(|d| d.step.kind() == kind)
                            .map(|d| format!("{} ({})", d.step, takes(d).trim_start()))
                            .unwrap_or_default()
                    };
                    writeln!(
                        self.out,
                        "{step} captures both ways: type {} to approach or {} to withdraw.",
                        way(StepKind::Approach),
                        way(StepKind::Withdrawal)
                    )?;
                    return Ok(());
                }
                [] => {}
            }
            // Not a legal step here: the engine says why, for the whole turn.
            let mut steps = self.chain.clone();
            steps.extend_from_slice(typed.steps());
            match Turn::from_steps(&steps) {
                Some(turn) => self.commit(turn)?,
                None => writeln!(self.out, "That turn has too many steps.")?,
            }
            return Ok(());
        }
        let stone = chain.last().map(|s| s.to());
        self.chain = chain;
        match stone {
            Some(point) if self.current().chain().is_some() => {
                self.redraw = true;
                writeln!(
                    self.out,
                    "The stone on {point} can capture again: type or pick the next step, or 0 (end) to end the turn here."
                )?;
            }
            _ => {
                let turn = self.chain_turn();
                self.commit(turn)?;
            }
        }
        Ok(())
    }

    /// The position with the human's chain so far applied.
    fn current(&self) -> Position {
        after(self.session.position(), &self.chain)
    }

    fn chain_turn(&self) -> Turn {
        Turn::from_steps(&self.chain).unwrap_or_else(Turn::empty)
    }

    fn pick(&mut self, n: usize) -> Result<()> {
        let options = next_steps(&self.current());
        let Some(detail) = n.checked_sub(1).and_then(|i| options.get(i)) else {
            let end = if self.chain.is_empty() {
                ""
            } else {
                ", or 0 to end the turn"
            };
            writeln!(
                self.out,
                "There is no step {n}: pick a number from 1 to {}{end}.",
                options.len()
            )?;
            return Ok(());
        };
        self.chain.push(detail.step);
        self.redraw = true;
        if self.current().chain().is_none() {
            let turn = self.chain_turn();
            self.commit(turn)?;
        } else {
            writeln!(
                self.out,
                "The stone on {} can capture again: pick another step, or 0 to end the turn.",
                detail.step.to()
            )?;
        }
        Ok(())
    }

    /// Play the human's turn, or explain why it is illegal.
    fn commit(&mut self, turn: Turn) -> Result<()> {
        let before = *self.session.position();
        match self.session.play(&turn) {
            Ok(()) => {
                self.chain.clear();
                self.redraw = true;
                let details = turn_details(&before, &turn);
                writeln!(self.out, "You played {turn}{}.", captures(&details))?;
            }
            Err(e) => {
                writeln!(self.out, "{turn} is not legal here: {e}.")?;
                if !self.chain.is_empty() {
                    writeln!(
                        self.out,
                        "(Your chain so far is {}; `undo` takes it back.)",
                        self.chain_turn()
                    )?;
                }
            }
        }
        Ok(())
    }

    fn engine_turn(&mut self) -> Result<()> {
        let side = self.session.position().side_to_move();
        writeln!(self.out, "{} is thinking...", capitalised(side))?;
        let deadline = Instant::now() + self.level.think_time();
        let turn = self
            .engine
            .choose(self.session.game(), self.level, deadline, &Stop::new())
            .context("the engine found no turn")?;
        let before = *self.session.position();
        self.session
            .play(&turn)
            .with_context(|| format!("the engine chose an illegal turn {turn}"))?;
        self.redraw = true;
        let details = turn_details(&before, &turn);
        writeln!(
            self.out,
            "{} plays {turn}{}.",
            capitalised(side),
            captures(&details)
        )?;
        Ok(())
    }

    fn undo(&mut self) -> Result<()> {
        if !self.chain.is_empty() {
            self.chain.clear();
            self.redraw = true;
            writeln!(self.out, "Took back the steps of this turn.")?;
            return Ok(());
        }
        // Take back turns until it is the human's turn again, at least one of them theirs.
        let mut n = self.session.turns().len();
        loop {
            if n == 0 {
                writeln!(self.out, "Nothing to undo: you have not played a turn yet.")?;
                return Ok(());
            }
            n -= 1;
            if self.session.side_of_turn(n) == self.human {
                break;
            }
        }
        let mut taken = Vec::new();
        while self.session.turns().len() > n {
            if let Some(t) = self.session.undo() {
                taken.push(t.to_string());
            }
        }
        taken.reverse();
        self.redraw = true;
        writeln!(self.out, "Took back {}.", taken.join(" "))?;
        Ok(())
    }

    /// The engine's turn for the player. In the middle of a chain: the rest of the engine's
    /// turn when it starts with the steps played so far, else the continuation (or ending the
    /// turn here) whose position scores best for the player by the static evaluation.
    fn hint(&mut self) -> Result<()> {
        let deadline = Instant::now() + self.level.think_time();
        let chosen = self
            .engine
            .choose(self.session.game(), self.level, deadline, &Stop::new());
        let turn = match chosen {
            Ok(turn) => turn,
            Err(e) => {
                writeln!(self.out, "No hint: {e}.")?;
                return Ok(());
            }
        };
        if self.chain.is_empty() {
            writeln!(self.out, "Hint: try {turn}.")?;
            return Ok(());
        }
        let rest = match turn.steps().strip_prefix(self.chain.as_slice()) {
            Some(rest) => Some(rest.to_vec()),
            None => chain_continuation(&self.current()),
        };
        match rest.as_deref() {
            Some([]) | None => writeln!(self.out, "Hint: end the turn here (0).")?,
            Some(rest) => {
                let rest = Turn::from_steps(rest).unwrap_or_else(Turn::empty);
                writeln!(self.out, "Hint: continue with {rest}.")?
            }
        }
        Ok(())
    }

    fn list_moves(&mut self) -> Result<()> {
        if self.session.turns().is_empty() {
            writeln!(self.out, "No turns played yet.")?;
            return Ok(());
        }
        let mut number = self.session.start().turn_number();
        for (i, turn) in self.session.turns().iter().enumerate() {
            let side = self.session.side_of_turn(i);
            if i == 0 && side == Color::Black {
                write!(self.out, "{number:>3}. ...")?;
            } else if side == Color::White {
                write!(self.out, "{number:>3}.")?;
            }
            write!(self.out, " {turn}")?;
            if side == Color::Black {
                writeln!(self.out)?;
                number += 1;
            }
        }
        if self.session.side_of_turn(self.session.turns().len()) == Color::Black {
            writeln!(self.out)?;
        }
        Ok(())
    }

    fn draw(&mut self) -> Result<()> {
        let pos = self.current();
        let last = self
            .session
            .last_turn()
            .filter(|_| self.chain.is_empty())
            .map(|(color, steps)| {
                let turn: Vec<String> = steps.iter().map(|d| d.step.to_string()).collect();
                format!("last turn: {} {}", color, turn.join(","))
            });
        writeln!(self.out)?;
        write!(
            self.out,
            "{}",
            draw_board_for(&pos, BoardStyle::Lines, self.human)
        )?;
        let stones = |c: Color| match pos.stones(c).count() {
            1 => "1 stone".to_string(),
            n => format!("{n} stones"),
        };
        let counts = format!(
            "White {}, Black {}; turn {}, {} to move",
            stones(Color::White),
            stones(Color::Black),
            pos.turn_number(),
            pos.side_to_move()
        );
        writeln!(self.out, "{counts}")?;
        if let Some(warning) = quiet_warning(&pos, self.session.game().rules().no_progress_limit) {
            writeln!(self.out, "{warning}")?;
        }
        if let Some(last) = last {
            writeln!(self.out, "{last}")?;
        }
        if !self.chain.is_empty() {
            writeln!(self.out, "your chain so far: {}", self.chain_turn())?;
        }
        Ok(())
    }

    fn list_steps(&mut self) -> Result<()> {
        let options = next_steps(&self.current());
        let compulsory = options.iter().any(|d| d.step.is_capture());
        writeln!(
            self.out,
            "{}",
            if !self.chain.is_empty() {
                "Continue the chain, or 0 (end) to stop:"
            } else if compulsory {
                "Capturing is compulsory. Your steps:"
            } else {
                "No capture is possible. Your steps:"
            }
        )?;
        let cells: Vec<String> = options
            .iter()
            .enumerate()
            .map(|(i, d)| format!("{:>3}. {:<6}{}", i + 1, d.step.to_string(), takes(d)))
            .collect();
        for row in cells.chunks(3) {
            let line: Vec<String> = row.iter().map(|c| format!("{c:<26}")).collect();
            writeln!(self.out, "{}", line.join("").trim_end())?;
        }
        if !self.chain.is_empty() {
            writeln!(self.out, "  0. end the turn")?;
        }
        Ok(())
    }
}

/// `pos` after `steps`.
fn after(pos: &Position, steps: &[Step]) -> Position {
    steps
        .iter()
        .fold(*pos, |pos, &step| pos.apply(Action::Step(step)))
}

/// In the middle of a chain at `pos`: the steps that finish the turn best for the mover by
/// the static evaluation of the position the turn leaves (ties: the fewest steps), or `None`
/// for ending the turn here.
fn chain_continuation(pos: &Position) -> Option<Vec<Step>> {
    let mover_score = |after: &Position| -evaluate(after);
    let mut best: (i32, Option<Vec<Step>>) = (mover_score(&pos.apply(Action::EndTurn)), None);
    pos.for_each_turn(|turn, after| {
        let score = mover_score(after);
        if score > best.0 {
            best = (score, Some(turn.steps().to_vec()));
        }
    });
    best.1
}

/// Quiet turns before the no-progress limit at which the count is shown.
const QUIET_WARNING: u32 = 10;

/// The count of turns without a capture once the no-progress draw is near (the page shows the
/// same): `None` while it is far, or with the rule off (`limit` 0).
fn quiet_warning(pos: &Position, limit: u32) -> Option<String> {
    let quiet = pos.no_capture_turns();
    if limit == 0 || quiet == 0 || quiet + QUIET_WARNING < limit {
        return None;
    }
    let left = limit.saturating_sub(quiet);
    Some(format!(
        "{quiet}/{limit} turns without a capture: a draw after {left} more"
    ))
}

/// `text` as a player reads it: its first letter and the colours' names capitalised
/// ("white wins: black has no stones left" -> "White wins: Black has no stones left").
fn sentence(text: &str) -> String {
    let words: Vec<String> = text
        .split(' ')
        .map(|w| match w {
            "white" => "White".to_string(),
            "black" => "Black".to_string(),
            other => other.to_string(),
        })
        .collect();
    let joined = words.join(" ");
    let mut chars = joined.chars();
    chars
        .next()
        .map(|c| c.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

fn capitalised(c: Color) -> &'static str {
    match c {
        Color::White => "White",
        Color::Black => "Black",
    }
}

fn names(b: Bitboard) -> String {
    b.iter()
        .map(|p| p.to_string())
        .collect::<Vec<_>>()
        .join(" ")
}

/// ` takes e4 e5` for a capture, nothing for a paika step.
fn takes(d: &StepDetail) -> String {
    match d.step.kind() {
        StepKind::Paika => String::new(),
        _ => format!("x {}", names(d.captured)),
    }
}

/// `, capturing e4 e5 f4` for a turn that captured.
fn captures(details: &[StepDetail]) -> String {
    let all = details
        .iter()
        .fold(Bitboard::EMPTY, |acc, d| acc | d.captured);
    if all.is_empty() {
        String::new()
    } else {
        format!(", capturing {}", names(all))
    }
}

/// The board with its lines, row 5 on top, and coordinates:
///
/// ```text
///  5  B - B - B - B - B - B - B - B - B
///     | \ | / | \ | / | \ | / | \ | / |
/// ```
#[cfg(test)]
mod tests {
    use super::*;
    use fanorona_engine::draw_board;

    fn session(fen: &str, human: Color) -> Session<Vec<u8>> {
        let start = parse_position(fen).unwrap();
        Session {
            session: GameSession::new(start, Rules::default()),
            start,
            over_announced: false,
            human,
            level: Level::Beginner,
            engine: super::super::players::engine_for(None, None, fanorona_net::Backend::Native)
                .unwrap(),
            chain: Vec::new(),
            redraw: true,
            aside: None,
            out: Vec::new(),
        }
    }

    fn run(s: &mut Session<Vec<u8>>, input: &str) -> String {
        s.play(input.as_bytes()).unwrap();
        String::from_utf8(std::mem::take(&mut s.out)).unwrap()
    }

    #[test]
    fn the_board_has_its_lines() {
        let text = draw_board(&Position::start(), BoardStyle::Lines);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[1], " 5  B - B - B - B - B - B - B - B - B  5");
        assert_eq!(lines[2], "    | \\ | / | \\ | / | \\ | / | \\ | / |");
        assert_eq!(lines[5], " 3  B - W - B - W - . - B - W - B - W  3");
        assert_eq!(lines[9], " 1  W - W - W - W - W - W - W - W - W  1");
    }

    #[test]
    fn the_quiet_turns_are_counted_once_the_draw_is_near() {
        // 44 quiet turns of 50: the board says how many are left.
        let mut s = session("9/9/9/9/W7B w 44 30", Color::White);
        let shown = run(&mut s, "");
        assert!(
            shown.contains("44/50 turns without a capture: a draw after 6 more"),
            "{shown}"
        );
        // Far from the limit it is not shown.
        let mut s = session("9/9/9/9/W7B w 12 30", Color::White);
        assert!(!run(&mut s, "").contains("without a capture"));
    }

    #[test]
    fn a_chain_by_numbers_and_end() {
        // c3d3a takes e3 and may go on with d3d4a; end the turn after the first capture.
        let mut s = session("3B5/9/2W1B4/1B7/8W w", Color::White);
        let options = next_steps(s.session.position());
        let pick = options
            .iter()
            .position(|d| d.step.to_string() == "c3d3a")
            .unwrap()
            + 1;
        let out = run(&mut s, &format!("{pick}\nend\nquit\n"));
        assert!(out.contains("can capture again"), "{out}");
        assert!(out.contains("You played c3d3a, capturing e3."), "{out}");
        assert_eq!(s.session.turns()[0].to_string(), "c3d3a");
    }

    #[test]
    fn a_line_too_long_is_skipped_and_the_game_goes_on() {
        // A line of any length used to be read whole (1 GB took 7.8 GB of memory).
        let mut s = session(fanorona_engine::START_FEN, Color::White);
        let long = "x".repeat(crate::lines::MAX_LINE_BYTES + 10);
        let out = run(&mut s, &format!("{long}\nd2e3a\nquit\n"));
        assert!(
            out.contains(&format!(
                "line too long ({} bytes; at most {}): ignored",
                crate::lines::MAX_LINE_BYTES + 11,
                crate::lines::MAX_LINE_BYTES
            )),
            "{}",
            &out[..out.len().min(2000)]
        );
        assert!(out.len() < 100_000, "the line is not echoed");
        assert_eq!(s.session.turns()[0].to_string(), "d2e3a");
    }

    #[test]
    fn new_puts_the_game_aside_and_back_returns_to_it() {
        // `new` threw the game under way away at once, with no way back.
        let mut s = session(fanorona_engine::START_FEN, Color::White);
        let out = run(&mut s, "d2e3a\nnew\n");
        assert!(out.contains("is put aside: `back` returns to it"), "{out}");
        assert!(s.session.turns().is_empty());
        let out = run(&mut s, "back\n");
        assert!(
            out.contains("Back to the game put aside (2 turns)."),
            "{out}"
        );
        assert_eq!(s.session.turns()[0].to_string(), "d2e3a");
        let out = run(&mut s, "back\n");
        assert!(out.contains("No game is put aside"), "{out}");
    }

    #[test]
    fn winning_ends_the_game() {
        let mut s = session("9/9/W1BBBBBBB/9/9 w", Color::White);
        let out = run(&mut s, "a3b3a\n");
        assert!(
            out.contains("Game over: White wins: Black has no stones left (1-0). You win!"),
            "{out}"
        );
        // Issue 14: "White 1 stones".
        assert!(out.contains("White 1 stone, Black 0 stones;"), "{out}");
    }

    /// Issue 14, bug 7: a typed step that leaves the chain open waits for more, and a hint
    /// in the middle of the chain names a continuation.
    #[test]
    fn a_typed_step_keeps_an_open_chain_and_the_hint_continues_it() {
        let mut s = session("3B5/9/2W1B4/1B7/8W w", Color::White);
        let out = run(&mut s, "c3d3a\nhint\n");
        assert!(out.contains("The stone on d3 can capture again"), "{out}");
        assert!(s.session.turns().is_empty(), "the turn is not over: {out}");
        assert_eq!(s.chain_turn().to_string(), "c3d3a");
        assert!(out.contains("Hint: continue with d3"), "{out}");
        assert!(!out.contains("No hint"), "{out}");
        // The next step typed goes on from d3; the chain then ends by itself or with `end`.
        let out = run(&mut s, "d3d4a\nend\n");
        assert_eq!(s.session.turns()[0].to_string(), "c3d3a,d3d4a", "{out}");
    }

    #[test]
    fn a_capture_typed_without_its_kind_is_taken_the_one_way_or_asked() {
        // c3d3 captures only by approach (e3).
        let mut s = session("3B5/9/2W1B4/1B7/8W w", Color::White);
        let out = run(&mut s, "c3d3\n");
        assert!(!out.contains("is not legal"), "{out}");
        assert_eq!(s.chain_turn().to_string(), "c3d3a", "{out}");
        // d3e3 captures f3 by approach and c3 by withdrawal: the player is asked which.
        let mut s = session("9/9/2BW1B3/9/9 w", Color::White);
        let out = run(&mut s, "d3e3\n");
        assert!(
            out.contains("d3e3 captures both ways: type d3e3a (x f3) to approach or d3e3w (x c3) to withdraw."),
            "{out}"
        );
        assert!(s.session.turns().is_empty() && s.chain.is_empty());
        run(&mut s, "d3e3w\n");
        assert_eq!(s.session.turns()[0].to_string(), "d3e3w");
    }

    #[test]
    fn the_board_is_turned_for_a_black_player() {
        let mut s = session(fanorona_engine::START_FEN, Color::Black);
        let out = run(&mut s, "");
        assert!(
            out.contains("\n    i   h   g   f   e   d   c   b   a\n 1  "),
            "{out}"
        );
        let mut s = session(fanorona_engine::START_FEN, Color::White);
        let out = run(&mut s, "");
        assert!(
            out.contains("\n    a   b   c   d   e   f   g   h   i\n 5  "),
            "{out}"
        );
    }

    #[test]
    fn after_a_game_the_player_can_undo_or_start_again() {
        let mut s = session("9/9/W1BBBBBBB/9/9 w", Color::White);
        let out = run(&mut s, "a3b3a\nd2d3\nundo\n");
        assert!(out.contains("Game over"), "{out}");
        assert!(out.contains("The game is over. Type `new`"), "{out}");
        assert!(out.contains("Took back a3b3a"), "{out}");
        assert!(s.session.turns().is_empty());
        let out = run(&mut s, "a3b3a\nnew\nquit\n");
        assert!(out.contains("A new game: you play white."), "{out}");
        assert!(out.contains("Bye."), "{out}");
        assert!(s.session.turns().is_empty() && s.session.outcome().is_none());
    }

    #[test]
    fn the_engine_moves_first_for_a_black_player() {
        let mut s = session(fanorona_engine::START_FEN, Color::Black);
        let out = run(&mut s, "moves\n");
        assert!(out.contains("White plays"), "{out}");
        assert!(out.contains("  1. "), "{out}");
        assert!(out.contains("End of input"), "{out}");
    }
}
