//! The greedy player: the turn that captures the most stones.

use std::time::Instant;

use fanorona_engine::{Game, Turn};
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};

use crate::player::{Choice, ChoiceInfo, Limit, Player, PlayerError, check_playable};

/// Plays the turn that captures the most stones, choosing at random among equally good ones
/// (so among all paika moves when nothing can be captured). Looks no further; ignores limits.
#[derive(Debug, Clone)]
pub struct GreedyPlayer {
    name: String,
    rng: SmallRng,
}

impl GreedyPlayer {
    /// A greedy player breaking ties with `seed`.
    pub fn new(seed: u64) -> Self {
        GreedyPlayer {
            name: "greedy".into(),
            rng: SmallRng::seed_from_u64(seed),
        }
    }

    /// Renames the player (for reports).
    pub fn with_name(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
    }
}

impl Player for GreedyPlayer {
    fn name(&self) -> &str {
        &self.name
    }

    fn choose(&mut self, game: &Game, _limit: Option<Limit>) -> Result<Choice, PlayerError> {
        let started = Instant::now();
        check_playable(game)?;
        let pos = game.position();
        let them = !pos.side_to_move();
        let before = pos.stones(them).count();
        let mut best = Turn::empty();
        let mut best_captured = 0u32;
        // Reservoir sampling over the ties: the k-th equal turn replaces the pick with
        // probability 1/k, which leaves every tied turn equally likely.
        let mut ties = 0u64;
        let mut nodes = 0u64;
        pos.for_each_turn(|turn, child| {
            nodes += 1;
            let captured = before - child.stones(them).count();
            if ties == 0 || captured > best_captured {
                best = *turn;
                best_captured = captured;
                ties = 1;
            } else if captured == best_captured {
                ties += 1;
                if self.rng.random_range(0..ties) == 0 {
                    best = *turn;
                }
            }
        });
        Ok(Choice {
            turn: best,
            info: ChoiceInfo {
                nodes,
                elapsed: started.elapsed(),
                ..ChoiceInfo::default()
            },
        })
    }
}
