//! A game being played or reviewed: [`GameSession`] keeps where it started, the turns played
//! and the engine's [`Game`] after them, with undo, a hint from any [`Player`], and the
//! per-step details (what each step captures) that the page and the terminal game show. The
//! web server, the terminal game, the engine protocol and match play all keep their games in
//! one.
//!
//! Every rule decision here is the engine's: this module only replays turns with
//! [`Game::play_turn`] and lists legal turns with the step-level API.

use fanorona_engine::{
    Action, Bitboard, Color, Game, IllegalTurn, Outcome, ParseError, Position, Rules, Step, Turn,
    parse_position,
};
use thiserror::Error;

use fanorona_players::{Choice, Limit, Player, PlayerError};

/// A game: where it started, the turns played, and the engine's [`Game`] after them.
#[derive(Clone, Debug, PartialEq)]
pub struct GameSession {
    start: Position,
    turns: Vec<Turn>,
    game: Game,
    /// The position before the last turn, to describe that turn.
    before_last: Option<Position>,
}

impl GameSession {
    /// A game from `start` with no turns played yet.
    pub fn new(start: Position, rules: Rules) -> GameSession {
        GameSession {
            start,
            turns: Vec::new(),
            game: Game::from_position(start, rules),
            before_last: None,
        }
    }

    /// Replay a game sent as text: an optional start position (the standard start when
    /// `None`) and turns in notation. Fails on the first bad turn, saying which it is.
    pub fn replay<S: AsRef<str>>(
        start: Option<&str>,
        turns: &[S],
        rules: Rules,
        max_turns: usize,
    ) -> Result<GameSession, ReplayError> {
        let start = match start {
            Some(text) => parse_position(text).map_err(ReplayError::Start)?,
            None => Position::start(),
        };
        if start.occupied().is_empty() {
            return Err(ReplayError::NoStones);
        }
        if turns.len() > max_turns {
            return Err(ReplayError::TooLong {
                count: turns.len(),
                max: max_turns,
            });
        }
        let mut session = GameSession::new(start, rules);
        for (index, text) in turns.iter().enumerate() {
            let text = text.as_ref().trim();
            let turn: Turn = text.parse().map_err(|source| ReplayError::Notation {
                index,
                text: text.to_string(),
                source,
            })?;
            session.play(&turn).map_err(|source| ReplayError::Illegal {
                index,
                text: turn.to_string(),
                source,
            })?;
        }
        Ok(session)
    }

    /// Play a whole turn (checked by the engine).
    pub fn play(&mut self, turn: &Turn) -> Result<(), IllegalTurn> {
        let before = *self.game.position();
        self.game.play_turn(turn)?;
        self.turns.push(*turn);
        self.before_last = Some(before);
        Ok(())
    }

    /// Take back the last turn, if any (the game is replayed from the start).
    pub fn undo(&mut self) -> Option<Turn> {
        let last = self.turns.pop()?;
        let turns = std::mem::take(&mut self.turns);
        let mut session = GameSession::new(self.start, self.game.rules());
        for turn in &turns {
            // These turns were legal when they were first played and nothing changed since.
            if session.play(turn).is_err() {
                break;
            }
        }
        *self = session;
        Some(last)
    }

    /// The start position.
    pub fn start(&self) -> &Position {
        &self.start
    }

    /// The turns played, in order.
    pub fn turns(&self) -> &[Turn] {
        &self.turns
    }

    /// The game after every turn.
    pub fn game(&self) -> &Game {
        &self.game
    }

    /// The current position.
    pub fn position(&self) -> &Position {
        self.game.position()
    }

    /// The last turn played, by whom, with what each of its steps captured.
    pub fn last_turn(&self) -> Option<(Color, Vec<StepDetail>)> {
        let before = self.before_last?;
        let turn = self.turns.last()?;
        Some((before.side_to_move(), turn_details(&before, turn)))
    }

    /// How the game ended, if it has (every rule is the engine's).
    pub fn outcome(&self) -> Option<Outcome> {
        self.game.outcome()
    }

    /// What `player` would play here: a hint for the side to move, or the engine's reply.
    /// Asked in the middle of a chain (turn-level players choose whole turns), it is an error
    /// that says so.
    pub fn hint(
        &self,
        player: &mut dyn Player,
        limit: Option<Limit>,
    ) -> Result<Choice, PlayerError> {
        player.choose(&self.game, limit)
    }

    /// The side that moves at the start of turn `index` (0-based) of this game.
    pub fn side_of_turn(&self, index: usize) -> Color {
        if index.is_multiple_of(2) {
            self.start.side_to_move()
        } else {
            !self.start.side_to_move()
        }
    }
}

/// A game sent by a client (or typed by a player) that cannot be replayed.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ReplayError {
    /// The start position is not valid notation.
    #[error("start position: {0}")]
    Start(ParseError),
    /// A start position without a single stone: no game to play.
    #[error("start position: the board has no stones; a game needs at least one")]
    NoStones,
    /// More turns than the server accepts.
    #[error("the game has {count} turns; at most {max} are accepted")]
    TooLong {
        /// Turns sent.
        count: usize,
        /// The limit.
        max: usize,
    },
    /// A turn that is not valid notation.
    #[error("turn {} ({text:?}) is not valid notation: {source}", index + 1)]
    Notation {
        /// 0-based index of the turn in the game.
        index: usize,
        /// The turn as sent.
        text: String,
        /// What is wrong with it.
        source: ParseError,
    },
    /// A turn that is not legal where it is played.
    #[error("turn {} ({text}) is illegal: {source}", index + 1)]
    Illegal {
        /// 0-based index of the turn in the game.
        index: usize,
        /// The turn.
        text: String,
        /// Why the engine refused it.
        source: IllegalTurn,
    },
    /// The position has more legal turns than the server lists (only set-up positions).
    #[error("the position has {count} legal turns; at most {max} can be listed")]
    TooManyTurns {
        /// Legal turns in the position.
        count: u64,
        /// The limit.
        max: u64,
    },
}

impl ReplayError {
    /// 0-based index of the offending turn, when one turn is to blame.
    pub fn turn_index(&self) -> Option<usize> {
        match self {
            ReplayError::Notation { index, .. } | ReplayError::Illegal { index, .. } => {
                Some(*index)
            }
            _ => None,
        }
    }
}

/// One step of a turn and the enemy stones it captures.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct StepDetail {
    /// The step.
    pub step: Step,
    /// Enemy stones it removes (empty for a paika step).
    pub captured: Bitboard,
}

/// Apply a legal step and say what it captured.
fn apply_step(pos: &Position, step: Step) -> (Position, StepDetail) {
    let captured = pos.captured_by(step);
    (pos.apply(Action::Step(step)), StepDetail { step, captured })
}

/// The steps of `turn` from `pos` with their captures, up to the first illegal step.
pub fn turn_details(pos: &Position, turn: &Turn) -> Vec<StepDetail> {
    let mut pos = *pos;
    let mut out = Vec::with_capacity(turn.len());
    for &step in turn.steps() {
        if !pos.is_legal(Action::Step(step)) {
            break;
        }
        let (after, detail) = apply_step(&pos, step);
        out.push(detail);
        pos = after;
    }
    out
}

/// The next steps available from `pos` (at a turn start, or during a chain): each with
/// what it captures, in the order of [`Position::legal_actions`]. Ending a chain is not a
/// step; it is possible exactly when `pos` is in a chain.
pub fn next_steps(pos: &Position) -> Vec<StepDetail> {
    pos.legal_actions()
        .iter()
        .filter_map(|&a| match a {
            Action::Step(step) => Some(apply_step(pos, step).1),
            Action::EndTurn => None,
        })
        .collect()
}

/// Every legal turn from `pos` as its steps with their captures, in the order of
/// [`Position::for_each_turn`] (so each prefix of a chain is listed as its own turn,
/// before its continuations). Refuses positions with more than `max` legal turns.
pub fn list_turns(pos: &Position, max: u64) -> Result<Vec<Vec<StepDetail>>, ReplayError> {
    let count = pos.count_turns();
    if count > max {
        return Err(ReplayError::TooManyTurns { count, max });
    }
    let mut out = Vec::with_capacity(count as usize);
    let mut path = Vec::new();
    walk(pos, &mut path, &mut out);
    Ok(out)
}

fn walk(pos: &Position, path: &mut Vec<StepDetail>, out: &mut Vec<Vec<StepDetail>>) {
    for &action in pos.legal_actions().iter() {
        let Action::Step(step) = action else { continue };
        let (child, detail) = apply_step(pos, step);
        path.push(detail);
        out.push(path.clone());
        if child.chain().is_some() {
            walk(&child, path, out);
        }
        path.pop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(b: Bitboard) -> Vec<String> {
        b.iter().map(|p| p.to_string()).collect()
    }

    #[test]
    fn listed_turns_match_the_engine() {
        let start = Position::start();
        let listed: Vec<String> = list_turns(&start, 100)
            .unwrap()
            .iter()
            .map(|t| {
                let steps: Vec<Step> = t.iter().map(|d| d.step).collect();
                Turn::from_steps(&steps).unwrap().to_string()
            })
            .collect();
        let engine: Vec<String> = start.legal_turns().iter().map(Turn::to_string).collect();
        assert_eq!(listed, engine);
        assert!(matches!(
            list_turns(&start, 4),
            Err(ReplayError::TooManyTurns { count: 5, max: 4 })
        ));
    }

    #[test]
    fn steps_know_what_they_capture() {
        let pos = parse_position("9/9/2BW1BB2/9/9 w").unwrap();
        let steps = next_steps(&pos);
        let shown: Vec<(String, Vec<String>)> = steps
            .iter()
            .map(|d| (d.step.to_string(), names(d.captured)))
            .collect();
        assert!(shown.contains(&("d3e3a".into(), vec!["f3".into(), "g3".into()])));
        assert!(shown.contains(&("d3e3w".into(), vec!["c3".into()])));
    }

    #[test]
    fn replay_names_the_bad_turn() {
        let e = GameSession::replay(None, &["d2e3a", "d2e3a"], Rules::default(), 10).unwrap_err();
        assert_eq!(e.turn_index(), Some(1));
        assert!(
            e.to_string().starts_with("turn 2 (d2e3a) is illegal"),
            "{e}"
        );
        let e = GameSession::replay(None, &["d2e3a", "zz"], Rules::default(), 10).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("turn 2 (\"zz\") is not valid notation"),
            "{e}"
        );
        let e = GameSession::replay(None, &["d2e3a"; 3], Rules::default(), 2).unwrap_err();
        assert!(matches!(e, ReplayError::TooLong { count: 3, max: 2 }));
        // An empty board is no game (issue 29 item 13); one side without stones is a game
        // that is over.
        let none: [&str; 0] = [];
        let e =
            GameSession::replay(Some("9/9/9/9/9 w 0 1"), &none, Rules::default(), 2).unwrap_err();
        assert!(matches!(e, ReplayError::NoStones), "{e}");
        assert!(e.to_string().starts_with("start position: "), "{e}");
        let over = GameSession::replay(Some("9/9/4W4/9/9 b 0 1"), &none, Rules::default(), 2);
        assert!(over.unwrap().game().outcome().is_some());
    }

    #[test]
    fn undo_replays_from_the_start() {
        let mut record = GameSession::replay(None, &["e2e3a"], Rules::default(), 10).unwrap();
        let (color, steps) = record.last_turn().unwrap();
        assert_eq!(color, Color::White);
        assert_eq!(names(steps[0].captured), vec!["e4", "e5"]);
        assert_eq!(record.undo().unwrap().to_string(), "e2e3a");
        assert_eq!(*record.position(), Position::start());
        assert!(record.last_turn().is_none());
        assert!(record.undo().is_none());
    }
}
