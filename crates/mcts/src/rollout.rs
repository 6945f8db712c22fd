//! Evaluators that need no network: uniform priors with a flat value, or with random rollouts
//! (plain UCT when combined with PUCT and `c_puct` of about 1.4 to 2).

use std::sync::atomic::{AtomicU64, Ordering};

use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};

use crate::game::{EvalError, EvalRequest, Evaluation, Evaluator, GameState};
use crate::seed::derive_seed;

/// Uniform priors and the same WDL everywhere. For tests, benchmarks and batching experiments.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct UniformEvaluator {
    /// The WDL returned for every position.
    pub wdl: [f32; 3],
}

impl Default for UniformEvaluator {
    fn default() -> Self {
        UniformEvaluator {
            wdl: [0.0, 1.0, 0.0],
        }
    }
}

impl<G: GameState> Evaluator<G> for UniformEvaluator {
    fn evaluate(
        &self,
        batch: &[EvalRequest<'_, G>],
        out: &mut Vec<Evaluation>,
    ) -> Result<(), EvalError> {
        out.extend(
            batch
                .iter()
                .map(|r| Evaluation::uniform(r.legal.len(), self.wdl)),
        );
        Ok(())
    }
}

/// Uniform priors and a value from random playouts with the game's own rules.
///
/// Each playout plays uniformly random legal actions until the game ends or `max_plies` actions
/// were played (then it counts as a draw). The WDL is the average over `rollouts` playouts, for
/// the player to move in the evaluated position. Deterministic for a given seed and sequence of
/// calls: every request draws its random generator from the seed and a call counter.
#[derive(Debug)]
pub struct RolloutEvaluator {
    seed: u64,
    max_plies: u32,
    rollouts: u32,
    counter: AtomicU64,
}

impl RolloutEvaluator {
    /// One playout per position, capped at 1000 plies.
    pub fn new(seed: u64) -> Self {
        RolloutEvaluator {
            seed,
            max_plies: 1000,
            rollouts: 1,
            counter: AtomicU64::new(0),
        }
    }

    /// Sets the ply cap after which a playout counts as a draw.
    pub fn with_max_plies(mut self, max_plies: u32) -> Self {
        self.max_plies = max_plies;
        self
    }

    /// Sets the number of playouts averaged per position (at least 1).
    pub fn with_rollouts(mut self, rollouts: u32) -> Self {
        self.rollouts = rollouts.max(1);
        self
    }

    /// The WDL of random playouts from `state`, for its player to move.
    pub fn rollout_wdl<G: GameState>(&self, state: &G, rng: &mut SmallRng) -> [f32; 3] {
        let player = state.to_move();
        let mut wdl = [0.0; 3];
        let mut legal = Vec::new();
        for _ in 0..self.rollouts {
            let mut s = state.clone();
            let mut plies = 0;
            let result = loop {
                if let Some(outcome) = s.terminal() {
                    break outcome.wdl_for(player);
                }
                if plies >= self.max_plies {
                    break [0.0, 1.0, 0.0];
                }
                legal.clear();
                s.legal_actions(&mut legal);
                if legal.is_empty() {
                    break [0.0, 1.0, 0.0];
                }
                s.apply(legal[rng.random_range(0..legal.len())]);
                plies += 1;
            };
            for (acc, x) in wdl.iter_mut().zip(result) {
                *acc += x;
            }
        }
        wdl.map(|x| x / self.rollouts as f32)
    }
}

impl<G: GameState> Evaluator<G> for RolloutEvaluator {
    fn evaluate(
        &self,
        batch: &[EvalRequest<'_, G>],
        out: &mut Vec<Evaluation>,
    ) -> Result<(), EvalError> {
        let first = self
            .counter
            .fetch_add(batch.len() as u64, Ordering::Relaxed);
        out.extend(batch.iter().enumerate().map(|(i, r)| {
            let mut rng = SmallRng::seed_from_u64(derive_seed(self.seed, first + i as u64));
            Evaluation::uniform(r.legal.len(), self.rollout_wdl(r.state, &mut rng))
        }));
        Ok(())
    }
}
