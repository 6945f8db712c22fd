//! A player that plays proven turns: before its own search it asks the solver
//! (`fanorona-solve`) for the position's value for a short time, and where the value is proven
//! a win or a draw it plays the proof's turn, which keeps that value against any defence.
//! Elsewhere (nothing proven in time, or a proven loss, where every turn loses against best
//! play) the player it wraps chooses, and the choice reports the proven loss.
//!
//! The proofs assume the rules without repetition (docs/solve.md): a proven draw is kept with
//! the repetition rule too; a proven win is kept as long as the winner does not walk into a
//! third repetition, which each new proof from the position reached steers clear of in
//! practice but does not promise.

use std::sync::Arc;
use std::time::{Duration, Instant};

use fanorona_engine::Game;
use fanorona_eval::EvalNet;
use fanorona_solve::SolveOptions;
use fanorona_tablebase::{Tablebase, Wdl};

use crate::player::{Choice, ChoiceInfo, Limit, Player, PlayerError, Score, Stop};

/// Memory of the solver's transposition table for one decision.
const PROOF_TABLE_BYTES: usize = 32 << 20;

/// A player that first tries to prove the position, then lets `inner` choose.
pub struct ProvingPlayer {
    inner: Box<dyn Player>,
    budget: Duration,
    tables: Option<Arc<Tablebase>>,
    eval: Option<Arc<EvalNet>>,
    stop: Stop,
}

impl ProvingPlayer {
    /// `inner` plays wherever `budget` of proof-number search does not prove a win or a draw;
    /// `tables` are the proof's leaves and `eval` orders it.
    pub fn new(
        inner: Box<dyn Player>,
        budget: Duration,
        tables: Option<Arc<Tablebase>>,
        eval: Option<Arc<EvalNet>>,
    ) -> ProvingPlayer {
        ProvingPlayer {
            inner,
            budget,
            tables,
            eval,
            stop: Stop::new(),
        }
    }

    /// The value proven within the budget, with the proof's turn when it is a win or a draw.
    fn prove(&self, game: &Game) -> (Option<Wdl>, Option<fanorona_engine::Turn>, u64) {
        let pos = game.position();
        let options = SolveOptions {
            rules: game.rules(),
            table_bytes: PROOF_TABLE_BYTES,
            deadline: Some(Instant::now() + self.budget),
            stop: Some(self.stop.flag()),
            eval: self.eval.clone(),
            certificate: false,
            ..SolveOptions::default()
        };
        let Ok(solution) = fanorona_solve::solve(pos, self.tables.clone(), &options) else {
            return (None, None, 0);
        };
        (solution.value, solution.turn, solution.nodes)
    }
}

impl Player for ProvingPlayer {
    fn name(&self) -> &str {
        self.inner.name()
    }

    fn choose(&mut self, game: &Game, limit: Option<Limit>) -> Result<Choice, PlayerError> {
        crate::player::check_playable(game)?;
        let started = Instant::now();
        let (value, turn, nodes) = self.prove(game);
        if let (Some(value), Some(turn)) = (value, turn) {
            return Ok(Choice {
                turn,
                info: ChoiceInfo {
                    depth: None,
                    score: Some(Score::Proven(value)),
                    nodes,
                    elapsed: started.elapsed(),
                },
            });
        }
        let mut choice = self.inner.choose(game, limit)?;
        if value == Some(Wdl::Loss) {
            choice.info.score = Some(Score::Proven(Wdl::Loss));
        }
        choice.info.elapsed = started.elapsed();
        Ok(choice)
    }

    fn new_game(&mut self) {
        self.inner.new_game();
    }

    fn set_stop(&mut self, stop: Stop) {
        self.stop = stop.clone();
        self.inner.set_stop(stop);
    }
}
