//! A game in progress: the position plus the history the end-of-game rules need.

use std::fmt;

use crate::error::{IllegalAction, IllegalTurn};
use crate::moves::{Action, Color, Turn};
use crate::position::Position;

/// Default number of consecutive turns without a capture after which the game is drawn.
pub const DEFAULT_NO_PROGRESS_LIMIT: u32 = 50;

/// The configurable part of the rules.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Rules {
    /// The game is drawn once this many consecutive turns (both sides counted) pass without
    /// a capture. 0 switches the rule off.
    pub no_progress_limit: u32,
}

impl Default for Rules {
    fn default() -> Rules {
        Rules {
            no_progress_limit: DEFAULT_NO_PROGRESS_LIMIT,
        }
    }
}

/// Why a game was won.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum WinReason {
    /// The loser has no stones left.
    AllCaptured,
    /// The loser had stones but no legal move at the start of their turn.
    NoLegalMove,
}

/// Why a game was drawn.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum DrawReason {
    /// The same placement with the same side to move occurred for the third time.
    Repetition,
    /// The no-progress limit of turns without a capture was reached.
    NoProgress,
}

/// Why a game ended, whoever won: the one spelling of end reasons in the project (logs,
/// games files, JSON, TensorBoard tags).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "kebab-case")
)]
pub enum EndReason {
    /// A side lost its last stone.
    AllCaptured,
    /// The side to move had stones but no legal move.
    NoLegalMove,
    /// Threefold repetition.
    Repetition,
    /// The no-progress limit.
    NoProgress,
}

impl EndReason {
    /// `all-captured`, `no-legal-move`, `repetition` or `no-progress`.
    pub const fn tag(self) -> &'static str {
        match self {
            EndReason::AllCaptured => "all-captured",
            EndReason::NoLegalMove => "no-legal-move",
            EndReason::Repetition => "repetition",
            EndReason::NoProgress => "no-progress",
        }
    }
}

/// The result of a finished game.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// One side won.
    Win {
        /// The winner.
        winner: Color,
        /// How.
        reason: WinReason,
    },
    /// Nobody won.
    Draw(DrawReason),
}

impl Outcome {
    /// The winner, if any.
    pub fn winner(self) -> Option<Color> {
        match self {
            Outcome::Win { winner, .. } => Some(winner),
            Outcome::Draw(_) => None,
        }
    }

    /// The result as a score string: `1-0` (White won), `0-1` or `1/2-1/2`.
    pub fn score(self) -> &'static str {
        match self.winner() {
            Some(Color::White) => "1-0",
            Some(Color::Black) => "0-1",
            None => "1/2-1/2",
        }
    }

    /// Why the game ended, whoever won.
    pub fn reason(self) -> EndReason {
        match self {
            Outcome::Win {
                reason: WinReason::AllCaptured,
                ..
            } => EndReason::AllCaptured,
            Outcome::Win {
                reason: WinReason::NoLegalMove,
                ..
            } => EndReason::NoLegalMove,
            Outcome::Draw(DrawReason::Repetition) => EndReason::Repetition,
            Outcome::Draw(DrawReason::NoProgress) => EndReason::NoProgress,
        }
    }

    /// A short machine-friendly reason: `all-captured`, `no-legal-move`, `repetition`,
    /// `no-progress` ([`EndReason::tag`]).
    pub fn reason_tag(self) -> &'static str {
        self.reason().tag()
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Outcome::Win {
                winner,
                reason: WinReason::AllCaptured,
            } => {
                write!(f, "{winner} wins: {} has no stones left", winner.other())
            }
            Outcome::Win {
                winner,
                reason: WinReason::NoLegalMove,
            } => {
                write!(f, "{winner} wins: {} has no legal move", winner.other())
            }
            Outcome::Draw(DrawReason::Repetition) => f.write_str("draw by threefold repetition"),
            Outcome::Draw(DrawReason::NoProgress) => f.write_str("draw: no capture for too long"),
        }
    }
}

/// A game: the current position, the rules, and the turn-start positions since the last
/// capture (captures are irreversible, so only those can repeat).
///
/// This is the one place that decides when a game ends. The order of the checks, at the
/// start of a turn, is: side to move has no stones (loss), opponent has no stones (win; only
/// reachable from a set-up position), no legal move (loss), threefold repetition (draw),
/// no-progress limit (draw). A win therefore takes precedence over a draw reached by the
/// same turn.
#[derive(Debug, PartialEq, Eq)]
pub struct Game {
    rules: Rules,
    position: Position,
    /// Hashes of turn-start positions since the last capture, the current one last when
    /// the current position is a turn start.
    history: Vec<u64>,
}

impl Clone for Game {
    fn clone(&self) -> Game {
        Game {
            rules: self.rules,
            position: self.position,
            history: self.history.clone(),
        }
    }

    /// Reuses `self`'s history buffer: search copies the root game once per simulation.
    fn clone_from(&mut self, source: &Game) {
        self.rules = source.rules;
        self.position = source.position;
        self.history.clone_from(&source.history);
    }
}

impl Game {
    /// A game from the start position.
    pub fn new(rules: Rules) -> Game {
        Game::from_position(Position::start(), rules)
    }

    /// A game from `position` (history begins there).
    pub fn from_position(position: Position, rules: Rules) -> Game {
        let history = if position.is_turn_start() {
            vec![position.hash()]
        } else {
            Vec::new()
        };
        Game {
            rules,
            position,
            history,
        }
    }

    /// The current position.
    #[inline]
    pub fn position(&self) -> &Position {
        &self.position
    }

    /// The rules in force.
    #[inline]
    pub fn rules(&self) -> Rules {
        self.rules
    }

    /// Apply a legal action (see [`Position::apply`] for what happens on illegal input).
    pub fn apply(&mut self, action: Action) {
        self.position = self.position.apply(action);
        self.record();
    }

    /// Apply an action after checking it is legal and the game is not over.
    pub fn try_apply(&mut self, action: Action) -> Result<(), IllegalAction> {
        if self.outcome().is_some() {
            return Err(IllegalAction {
                action,
                position: self.position.to_string(),
            });
        }
        self.position = self.position.try_apply(action)?;
        self.record();
        Ok(())
    }

    /// Play a whole turn, checked step by step (and rejected when the game is over).
    pub fn play_turn(&mut self, turn: &Turn) -> Result<(), IllegalTurn> {
        if let Some(outcome) = self.outcome() {
            return Err(IllegalTurn::GameOver(outcome));
        }
        self.position = self.position.try_play_turn(turn)?;
        self.record();
        Ok(())
    }

    fn record(&mut self) {
        if self.position.is_turn_start() {
            if self.position.no_capture_turns() == 0 {
                self.history.clear();
            }
            self.history.push(self.position.hash());
        }
    }

    /// Hashes ([`Position::hash`]) of the turn-start positions since the last capture, oldest
    /// first; the current position is last when it is a turn start. Only these positions can
    /// repeat, since captures are irreversible.
    pub fn history(&self) -> &[u64] {
        &self.history
    }

    /// How many times the current turn-start placement (with the same side to move) has
    /// occurred, this time included; 0 during a chain.
    pub fn repetition_count(&self) -> u32 {
        if !self.position.is_turn_start() {
            return 0;
        }
        let h = self.position.hash();
        self.history.iter().filter(|&&x| x == h).count() as u32
    }

    /// The result if the game is over, `None` while it goes on (always `None` mid-chain).
    pub fn outcome(&self) -> Option<Outcome> {
        let pos = &self.position;
        if !pos.is_turn_start() {
            return None;
        }
        let us = pos.side_to_move();
        if pos.stones(us).is_empty() {
            return Some(Outcome::Win {
                winner: !us,
                reason: WinReason::AllCaptured,
            });
        }
        if pos.stones(!us).is_empty() {
            return Some(Outcome::Win {
                winner: us,
                reason: WinReason::AllCaptured,
            });
        }
        if !pos.has_legal_action() {
            return Some(Outcome::Win {
                winner: !us,
                reason: WinReason::NoLegalMove,
            });
        }
        if self.repetition_count() >= 3 {
            return Some(Outcome::Draw(DrawReason::Repetition));
        }
        let limit = self.rules.no_progress_limit;
        if limit > 0 && pos.no_capture_turns() >= limit {
            return Some(Outcome::Draw(DrawReason::NoProgress));
        }
        None
    }
}
