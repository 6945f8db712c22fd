//! Random openings: a few random whole turns from the start position, so that games between
//! the same players differ (match play, the rating harness, benchmarks).

use fanorona_engine::{Game, Rules, Turn};
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};

/// `plies` random whole turns from the start position, drawn from `seed`, none of which ends
/// the game (the list is shorter if at some point every turn would end it).
pub fn random_opening(seed: u64, plies: u32, rules: Rules) -> Vec<Turn> {
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut game = Game::new(rules);
    let mut turns = Vec::with_capacity(plies as usize);
    let mut candidates = Vec::new();
    for _ in 0..plies {
        candidates.clear();
        for turn in game.position().legal_turns() {
            let mut next = game.clone();
            if next.play_turn(&turn).is_ok() && next.outcome().is_none() {
                candidates.push(turn);
            }
        }
        if candidates.is_empty() {
            break;
        }
        let turn = candidates[rng.random_range(0..candidates.len())];
        if game.play_turn(&turn).is_err() {
            break;
        }
        turns.push(turn);
    }
    turns
}
