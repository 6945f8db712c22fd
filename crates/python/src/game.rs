//! The game for Python: [`PyGame`] (a game with its history and rules), the notation, the
//! network's arrays and the action indices.

use fanorona_encoding::{self as encoding, ACTION_COUNT, Context, INPUT_LEN, INPUT_PLANES};
use fanorona_engine::{
    Action, BoardStyle, Color, Game, HEIGHT, Outcome, Position, Rules, Turn, WIDTH, draw_board,
};
use numpy::ndarray::Array;
use numpy::{IntoPyArray, PyArray1, PyArray3};
use pyo3::prelude::*;

use crate::FanoronaError;

/// A project error as the Python exception, with the project's message.
pub(crate) fn fail(message: impl std::fmt::Display) -> PyErr {
    FanoronaError::new_err(message.to_string())
}

/// `"white"` or `"black"`.
pub(crate) fn parse_color(text: &str) -> PyResult<Color> {
    text.parse().map_err(fail)
}

/// The rules with `no_progress_limit` (0 turns the rule off), checked as the CLI does.
pub(crate) fn rules(no_progress_limit: u32) -> PyResult<Rules> {
    if no_progress_limit > 10_000 {
        return Err(fail(format!(
            "no_progress_limit {no_progress_limit} is out of range: expected 0 (off) to 10000"
        )));
    }
    Ok(Rules { no_progress_limit })
}

/// An action given as its index or its notation (`"d2e3a"`, `"end"`).
#[derive(FromPyObject)]
pub(crate) enum ActionArg {
    Index(i64),
    Text(String),
}

/// The action `arg` names for a position where `side` moves.
pub(crate) fn action_of(arg: ActionArg, side: Color) -> PyResult<Action> {
    match arg {
        ActionArg::Index(i) => usize::try_from(i)
            .ok()
            .and_then(|i| encoding::index_action(i, side))
            .ok_or_else(|| {
                fail(format!(
                    "action index {i} names no step of the board (indices are 0 to {})",
                    ACTION_COUNT - 1
                ))
            }),
        ActionArg::Text(text) => text
            .parse()
            .map_err(|e| fail(format!("bad step `{text}`: {e}"))),
    }
}

/// The step-level actions that play `turn` from `pos`: its steps, and `end` where the chain
/// could go on after the last one.
pub(crate) fn turn_actions(pos: &Position, turn: &Turn) -> Vec<Action> {
    let mut actions: Vec<Action> = turn.steps().iter().map(|&s| Action::Step(s)).collect();
    let mut after = *pos;
    for &action in &actions {
        after = after.apply(action);
    }
    if !after.is_turn_start() {
        actions.push(Action::EndTurn);
    }
    actions
}

/// The legal-action mask of `pos` into `out` (length [`ACTION_COUNT`], all false first).
pub(crate) fn write_mask(pos: &Position, out: &mut [bool]) {
    out.fill(false);
    let side = pos.side_to_move();
    for &action in pos.legal_actions().iter() {
        out[encoding::action_index(action, side)] = true;
    }
}

/// The result of a finished game.
#[pyclass(module = "fanorona._fanorona", name = "Outcome", frozen, eq)]
#[derive(Clone, PartialEq)]
pub struct PyOutcome {
    outcome: Outcome,
}

#[pymethods]
impl PyOutcome {
    /// `"white"`, `"black"`, or `None` for a draw.
    #[getter]
    fn winner(&self) -> Option<&'static str> {
        self.outcome.winner().map(Color::name)
    }

    /// Why the game ended: `"all-captured"`, `"no-legal-move"`, `"repetition"` or
    /// `"no-progress"`.
    #[getter]
    fn reason(&self) -> &'static str {
        self.outcome.reason_tag()
    }

    /// `"1-0"`, `"0-1"` or `"1/2-1/2"`.
    #[getter]
    fn score(&self) -> &'static str {
        self.outcome.score()
    }

    fn __str__(&self) -> String {
        self.outcome.to_string()
    }

    fn __repr__(&self) -> String {
        format!(
            "Outcome(winner={:?}, reason={:?})",
            self.winner(),
            self.reason()
        )
    }
}

/// A game of Fanorona: the position, its history (for repetitions) and its rules.
///
/// `Game()` starts from the start position; `Game(fen)` from a position in the project's
/// notation (docs/rules.md). Moves are played one step at a time (`step`) or one whole turn
/// at a time (`play_turn`). Errors raise `FanoronaError` with the project's message.
#[pyclass(module = "fanorona._fanorona", name = "Game")]
#[derive(Clone)]
pub struct PyGame {
    pub(crate) game: Game,
}

#[pymethods]
impl PyGame {
    #[new]
    #[pyo3(signature = (fen = None, *, no_progress_limit = 50))]
    fn new(fen: Option<&str>, no_progress_limit: u32) -> PyResult<Self> {
        let rules = rules(no_progress_limit)?;
        let position = match fen {
            None => Position::start(),
            Some(text) => text.parse().map_err(fail)?,
        };
        Ok(PyGame {
            game: Game::from_position(position, rules),
        })
    }

    /// The position in the project's notation (a capture chain in progress is not shown).
    #[getter]
    fn fen(&self) -> String {
        self.game.position().to_string()
    }

    /// `"white"` or `"black"`.
    #[getter]
    fn side_to_move(&self) -> &'static str {
        self.game.position().side_to_move().name()
    }

    /// 0 when White is to move, 1 when Black is.
    #[getter]
    fn player(&self) -> usize {
        self.game.position().side_to_move().index()
    }

    /// Whether a capture chain is under way (the mover may continue it or play `end`).
    #[getter]
    fn in_chain(&self) -> bool {
        !self.game.position().is_turn_start()
    }

    /// Turns since the last capture (the no-progress counter).
    #[getter]
    fn no_progress(&self) -> u32 {
        self.game.position().no_capture_turns()
    }

    /// The no-progress limit of the rules (0: off).
    #[getter]
    fn no_progress_limit(&self) -> u32 {
        self.game.rules().no_progress_limit
    }

    /// How many times the current turn-start placement has occurred (0 mid-chain).
    #[getter]
    fn repetitions(&self) -> u32 {
        self.game.repetition_count()
    }

    /// The turn number: 1 at the start, increasing after each Black turn.
    #[getter]
    fn turn_number(&self) -> u32 {
        self.game.position().turn_number()
    }

    /// Stones on the board: `(white, black)`.
    #[getter]
    fn stones(&self) -> (u32, u32) {
        let pos = self.game.position();
        (
            pos.stones(Color::White).count(),
            pos.stones(Color::Black).count(),
        )
    }

    /// The result once the game is over, else `None`.
    #[getter]
    fn outcome(&self) -> Option<PyOutcome> {
        self.game.outcome().map(|outcome| PyOutcome { outcome })
    }

    /// Whether the game is over.
    #[getter]
    fn is_over(&self) -> bool {
        self.game.outcome().is_some()
    }

    /// The legal step-level actions as policy indices (the network's encoding).
    fn legal_actions(&self) -> Vec<usize> {
        let pos = self.game.position();
        let side = pos.side_to_move();
        if self.game.outcome().is_some() {
            return Vec::new();
        }
        pos.legal_actions()
            .iter()
            .map(|&a| encoding::action_index(a, side))
            .collect()
    }

    /// The legal step-level actions in notation (`"d2e3a"`, `"end"`).
    fn legal_steps(&self) -> Vec<String> {
        if self.game.outcome().is_some() {
            return Vec::new();
        }
        let pos = self.game.position();
        pos.legal_actions().iter().map(|a| a.to_string()).collect()
    }

    /// The legal whole turns in notation (steps joined by commas), at a turn start.
    fn legal_turns(&self) -> Vec<String> {
        if self.game.outcome().is_some() || !self.game.position().is_turn_start() {
            return Vec::new();
        }
        let pos = self.game.position();
        pos.legal_turns().iter().map(|t| t.to_string()).collect()
    }

    /// Plays one step-level action: a policy index or a step in notation (`"end"` stops a
    /// capture chain).
    fn step(&mut self, action: ActionArg) -> PyResult<()> {
        if let Some(outcome) = self.game.outcome() {
            return Err(fail(format!("the game is over ({outcome})")));
        }
        let side = self.game.position().side_to_move();
        let action = action_of(action, side)?;
        self.game.try_apply(action).map_err(fail)
    }

    /// Plays a whole turn in notation (`"d2e3a"`, `"c3d3w,d3d4a"`), from a turn start.
    fn play_turn(&mut self, turn: &str) -> PyResult<()> {
        if let Some(outcome) = self.game.outcome() {
            return Err(fail(format!("the game is over ({outcome})")));
        }
        let parsed: Turn = turn
            .parse()
            .map_err(|e| fail(format!("bad turn `{turn}`: {e}")))?;
        self.game.play_turn(&parsed).map_err(fail)
    }

    /// The network's input planes for the position, `float32[16, 5, 9]`, from the mover's
    /// side (docs/python.md lists the planes).
    fn observation<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray3<f32>> {
        let mut planes = vec![0.0; INPUT_LEN];
        encoding::encode(self.game.position(), Context::of(&self.game), &mut planes);
        Array::from_shape_vec((INPUT_PLANES, HEIGHT, WIDTH), planes)
            .expect("INPUT_LEN is planes x points")
            .into_pyarray(py)
    }

    /// The legal actions as a mask, `bool[1081]` (all false once the game is over).
    fn action_mask<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<bool>> {
        let mut mask = vec![false; ACTION_COUNT];
        if self.game.outcome().is_none() {
            write_mask(self.game.position(), &mut mask);
        }
        mask.into_pyarray(py)
    }

    /// The board as text, White's first row at the bottom.
    fn board(&self) -> String {
        draw_board(self.game.position(), BoardStyle::Lines)
    }

    /// Perft: the number of whole-turn sequences `depth` turns deep from the position.
    fn perft(&self, py: Python<'_>, depth: u32) -> PyResult<u64> {
        checked_perft(py, self.game.position(), depth)
    }

    /// An independent copy.
    fn copy(&self) -> PyGame {
        self.clone()
    }

    fn __copy__(&self) -> PyGame {
        self.clone()
    }

    fn __deepcopy__(&self, _memo: Bound<'_, PyAny>) -> PyGame {
        self.clone()
    }

    fn __str__(&self) -> String {
        self.board()
    }

    fn __repr__(&self) -> String {
        format!("Game({:?})", self.fen())
    }
}

/// Perft from a position in notation: whole-turn sequences `depth` turns deep (at most 8).
#[pyfunction]
pub fn perft(py: Python<'_>, fen: &str, depth: u32) -> PyResult<u64> {
    let pos: Position = fen.parse().map_err(fail)?;
    checked_perft(py, &pos, depth)
}

/// Perft with the depth checked, the interpreter free meanwhile.
fn checked_perft(py: Python<'_>, pos: &Position, depth: u32) -> PyResult<u64> {
    if depth > 8 {
        return Err(fail(format!(
            "perft depth {depth} is out of range: expected 0 to 8"
        )));
    }
    let pos = *pos;
    Ok(py.detach(move || fanorona_engine::perft(&pos, depth)))
}

/// The policy index of a step in notation (or `"end"`) for `side` (`"white"`/`"black"`) to
/// move: the network's encoding, which turns the board for Black.
#[pyfunction]
pub fn action_index(step: &str, side: &str) -> PyResult<usize> {
    let side = parse_color(side)?;
    let action = action_of(ActionArg::Text(step.to_string()), side)?;
    Ok(encoding::action_index(action, side))
}

/// The step in notation (or `"end"`) of a policy index, for `side` to move.
#[pyfunction]
pub fn index_action(index: i64, side: &str) -> PyResult<String> {
    let side = parse_color(side)?;
    Ok(action_of(ActionArg::Index(index), side)?.to_string())
}
