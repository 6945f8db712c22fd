//! The seam between the search and a game: the [`GameState`] and [`Evaluator`] traits.

use std::fmt::Debug;
use std::hash::Hash;
use std::sync::Arc;

/// How a finished game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum Terminal {
    /// The given player (0 or 1) won.
    Win(usize),
    /// Nobody won: repetition, no progress, an agreed draw...
    Draw,
}

impl Terminal {
    /// Win/draw/loss probabilities of this outcome seen by `player`: exactly one entry is 1.
    pub fn wdl_for(self, player: usize) -> [f32; 3] {
        match self {
            Terminal::Win(winner) if winner == player => [1.0, 0.0, 0.0],
            Terminal::Win(_) => [0.0, 0.0, 1.0],
            Terminal::Draw => [0.0, 1.0, 0.0],
        }
    }

    /// Scalar value (win 1, draw 0, loss -1) of this outcome seen by `player`.
    pub fn value_for(self, player: usize) -> f32 {
        let [w, _, l] = self.wdl_for(player);
        w - l
    }
}

/// A position of a two-player game, as the search sees it.
///
/// Players are numbered 0 and 1. A player may act several times in a row: after
/// [`apply`](GameState::apply), [`to_move`](GameState::to_move) may return the same player again
/// (Fanorona capture chains, where "end the turn" is itself an action). The search never assumes
/// that players alternate.
pub trait GameState: Clone + Send + Sync {
    /// One decision of the player to move: in Fanorona one step of a chain, or "end turn".
    type Action: Copy + Eq + Hash + Debug + Send + Sync;

    /// The player to move, 0 or 1.
    fn to_move(&self) -> usize;

    /// Appends the legal actions to `out` (the caller clears it). Must be non-empty unless
    /// [`outcome`](GameState::outcome) is `Some`. The order must be deterministic: search results
    /// and priors are aligned with it.
    fn legal_actions(&self, out: &mut Vec<Self::Action>);

    /// Plays a legal action. Behaviour on an illegal action is up to the game.
    fn apply(&mut self, action: Self::Action);

    /// `Some` when the game is over, all drawing rules (repetition, no progress) included.
    fn terminal(&self) -> Option<Terminal>;
}

/// What an evaluator says about one position.
#[derive(Clone, Debug, PartialEq)]
pub struct Evaluation {
    /// Prior probability of each legal action, aligned with [`EvalRequest::legal`]. Should sum to
    /// 1; the search renormalises (and falls back to uniform when the sum is not positive).
    pub priors: Vec<f32>,
    /// Win, draw and loss probabilities for the player to move in the evaluated position.
    pub wdl: [f32; 3],
}

impl Evaluation {
    /// Uniform priors over `n` actions with the given WDL.
    pub fn uniform(n: usize, wdl: [f32; 3]) -> Self {
        let p = if n == 0 { 0.0 } else { 1.0 / n as f32 };
        Evaluation {
            priors: vec![p; n],
            wdl,
        }
    }

    /// Scalar value `W - L` for the player to move.
    pub fn value(&self) -> f32 {
        self.wdl[0] - self.wdl[2]
    }
}

/// One position the search wants evaluated.
#[derive(Debug)]
pub struct EvalRequest<'a, G: GameState> {
    /// The position (never terminal when it comes from the search).
    pub state: &'a G,
    /// Its legal actions, in [`GameState::legal_actions`] order.
    pub legal: &'a [G::Action],
}

impl<G: GameState> Clone for EvalRequest<'_, G> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<G: GameState> Copy for EvalRequest<'_, G> {}

/// Why an evaluator could not evaluate a batch: a device failure, a stopped inference
/// service. The search stops and hands it to its caller.
#[derive(Debug, thiserror::Error)]
#[error("evaluation failed: {0}")]
pub struct EvalError(pub Box<dyn std::error::Error + Send + Sync>);

impl EvalError {
    /// An evaluation error from any error or message.
    pub fn new(error: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> Self {
        EvalError(error.into())
    }
}

/// Priors and values for a batch of positions: where a neural network plugs in.
pub trait Evaluator<G: GameState>: Send + Sync {
    /// Evaluates the whole batch at once, appending exactly one [`Evaluation`] per request, in
    /// order, to `out` (which the caller has cleared), or says why it could not.
    fn evaluate(
        &self,
        batch: &[EvalRequest<'_, G>],
        out: &mut Vec<Evaluation>,
    ) -> Result<(), EvalError>;
}

impl<G: GameState, E: Evaluator<G> + ?Sized> Evaluator<G> for &E {
    fn evaluate(
        &self,
        batch: &[EvalRequest<'_, G>],
        out: &mut Vec<Evaluation>,
    ) -> Result<(), EvalError> {
        (**self).evaluate(batch, out)
    }
}

impl<G: GameState, E: Evaluator<G> + ?Sized> Evaluator<G> for Box<E> {
    fn evaluate(
        &self,
        batch: &[EvalRequest<'_, G>],
        out: &mut Vec<Evaluation>,
    ) -> Result<(), EvalError> {
        (**self).evaluate(batch, out)
    }
}

impl<G: GameState, E: Evaluator<G> + ?Sized> Evaluator<G> for Arc<E> {
    fn evaluate(
        &self,
        batch: &[EvalRequest<'_, G>],
        out: &mut Vec<Evaluation>,
    ) -> Result<(), EvalError> {
        (**self).evaluate(batch, out)
    }
}
