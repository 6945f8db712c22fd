//! The random player: uniform over the legal turns.

use std::time::Instant;

use fanorona_engine::{Game, Turn};
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};

use crate::player::{Choice, ChoiceInfo, Limit, Player, PlayerError, check_playable};

/// Plays a uniformly random legal turn (every chain prefix and both capture kinds count as
/// different turns, as in [`fanorona_engine::Position::legal_turns`]). Ignores limits.
#[derive(Debug, Clone)]
pub struct RandomPlayer {
    name: String,
    rng: SmallRng,
}

impl RandomPlayer {
    /// A random player drawing from `seed`.
    pub fn new(seed: u64) -> Self {
        RandomPlayer {
            name: "random".into(),
            rng: SmallRng::seed_from_u64(seed),
        }
    }

    /// Renames the player (for reports).
    pub fn with_name(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
    }
}

impl Player for RandomPlayer {
    fn name(&self) -> &str {
        &self.name
    }

    fn choose(&mut self, game: &Game, _limit: Option<Limit>) -> Result<Choice, PlayerError> {
        let started = Instant::now();
        check_playable(game)?;
        let pos = game.position();
        let n = pos.count_turns();
        let pick = self.rng.random_range(0..n.max(1));
        let mut chosen = Turn::empty();
        let mut i = 0u64;
        pos.for_each_turn(|turn, _| {
            if i == pick {
                chosen = *turn;
            }
            i += 1;
        });
        Ok(Choice {
            turn: chosen,
            info: ChoiceInfo {
                nodes: n,
                elapsed: started.elapsed(),
                ..ChoiceInfo::default()
            },
        })
    }
}
