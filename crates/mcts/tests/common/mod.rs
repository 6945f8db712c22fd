//! Shared test helpers: toy games and fake evaluators.
#![allow(dead_code)]

pub mod games;

use std::sync::Mutex;

use fanorona_mcts::{EvalError, EvalRequest, Evaluation, Evaluator, GameState};

/// An evaluator defined by a function of one position.
pub struct FnEvaluator<F>(pub F);

impl<G, F> Evaluator<G> for FnEvaluator<F>
where
    G: GameState,
    F: Fn(&G, &[G::Action]) -> Evaluation + Send + Sync,
{
    fn evaluate(
        &self,
        batch: &[EvalRequest<'_, G>],
        out: &mut Vec<Evaluation>,
    ) -> Result<(), EvalError> {
        out.extend(batch.iter().map(|r| (self.0)(r.state, r.legal)));
        Ok(())
    }
}

/// Wraps an evaluator and records the size of every batch it receives.
pub struct Recording<E> {
    pub inner: E,
    pub sizes: Mutex<Vec<usize>>,
}

impl<E> Recording<E> {
    pub fn new(inner: E) -> Self {
        Recording {
            inner,
            sizes: Mutex::new(Vec::new()),
        }
    }

    pub fn sizes(&self) -> Vec<usize> {
        self.sizes.lock().unwrap().clone()
    }

    pub fn total(&self) -> usize {
        self.sizes().iter().sum()
    }
}

impl<G: GameState, E: Evaluator<G>> Evaluator<G> for Recording<E> {
    fn evaluate(
        &self,
        batch: &[EvalRequest<'_, G>],
        out: &mut Vec<Evaluation>,
    ) -> Result<(), EvalError> {
        self.sizes.lock().unwrap().push(batch.len());
        self.inner.evaluate(batch, out)
    }
}

/// Exact values for [`games::ChainNim`] (uniform priors): the search must find the move from the
/// values alone, across the same-player chain steps.
pub fn perfect_chain_nim() -> FnEvaluator<fn(&games::ChainNim, &[games::Chain]) -> Evaluation> {
    FnEvaluator(|s, legal| {
        let wdl = if s.player_to_move_wins() {
            [1.0, 0.0, 0.0]
        } else {
            [0.0, 0.0, 1.0]
        };
        Evaluation::uniform(legal.len(), wdl)
    })
}

/// Exact values for [`games::Nim`] (uniform priors).
pub fn perfect_nim() -> FnEvaluator<fn(&games::Nim, &[u8]) -> Evaluation> {
    FnEvaluator(|s, legal| {
        let wdl = if !s.stones.is_multiple_of(4) {
            [1.0, 0.0, 0.0]
        } else {
            [0.0, 0.0, 1.0]
        };
        Evaluation::uniform(legal.len(), wdl)
    })
}

/// Exact values for [`games::ChainNim`], but priors that put 90% on a losing action whenever
/// there is one.
pub fn misleading_chain_nim() -> FnEvaluator<fn(&games::ChainNim, &[games::Chain]) -> Evaluation> {
    FnEvaluator(|s, legal| {
        let wdl = if s.player_to_move_wins() {
            [1.0, 0.0, 0.0]
        } else {
            [0.0, 0.0, 1.0]
        };
        let winning = s.winning_actions();
        let n = legal.len();
        let priors = legal
            .iter()
            .map(|a| {
                if n == 1 {
                    1.0
                } else if winning.contains(a) {
                    0.1 / (n - 1) as f32
                } else {
                    0.9
                }
            })
            .collect();
        Evaluation { priors, wdl }
    })
}
