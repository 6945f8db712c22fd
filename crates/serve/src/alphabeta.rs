//! The built-in engine: a small alpha-beta search over whole turns.
//!
//! A stand-in until the project's own players plug in behind [`TurnChooser`]: negamax with
//! alpha-beta pruning over [`Position::for_each_turn`], material evaluation, iterative
//! deepening up to [`Level::max_depth`] turns, and a short capture extension at the horizon
//! (captures are compulsory, so a quiet-looking leaf where the side to move must capture is
//! searched a little further). The clock is checked every 1024 nodes.

use std::time::Instant;

use fanorona_engine::{Color, Game, Outcome, Position, Turn};

use crate::chooser::{ChooseError, Level, TurnChooser};

/// Score of a won position, less the number of turns it takes (so quicker wins score more).
const WIN: i32 = 1_000_000;
/// Larger than any score.
const INFINITY: i32 = WIN + 1;
/// Value of one stone.
const STONE: i32 = 100;
/// Extra turns searched past the horizon while the side to move has a capture.
const CAPTURE_EXTENSION: i32 = 2;

/// The built-in alpha-beta engine. Stateless: one instance serves any number of threads.
#[derive(Debug, Default, Clone, Copy)]
pub struct AlphaBeta;

impl AlphaBeta {
    /// A new engine.
    pub fn new() -> AlphaBeta {
        AlphaBeta
    }
}

impl TurnChooser for AlphaBeta {
    fn name(&self) -> &str {
        "alphabeta"
    }

    fn choose(&self, game: &Game, level: Level, deadline: Instant) -> Result<Turn, ChooseError> {
        if let Some(outcome) = game.outcome() {
            return Err(ChooseError::GameOver(outcome));
        }
        let pos = game.position();
        let us = pos.side_to_move();
        let mut root: Vec<RootTurn> = Vec::new();
        pos.for_each_turn(|turn, child| {
            // The game decides the exact result of each root turn, repetition included.
            let mut after = game.clone();
            let outcome = after.play_turn(turn).ok().and_then(|()| after.outcome());
            root.push(RootTurn {
                turn: *turn,
                child: *child,
                outcome,
                noise: noise(pos.hash(), turn, level.noise()),
            });
        });
        if root.is_empty() {
            return Err(ChooseError::NoLegalTurn);
        }
        if root.len() == 1 {
            return Ok(root[0].turn);
        }
        // Most stones captured first: good turns early make the pruning work.
        root.sort_by_key(|r| r.child.stones(!us).count());

        let mut search = Search {
            deadline,
            nodes: 0,
            aborted: false,
            no_progress_limit: game.rules().no_progress_limit,
            extension: if level.max_depth() > 1 {
                CAPTURE_EXTENSION
            } else {
                0
            },
        };
        let mut best = 0usize;
        for depth in 1..=level.max_depth() as i32 {
            let mut alpha = -INFINITY;
            let mut best_here = None;
            for (i, r) in root.iter().enumerate() {
                let value = match r.outcome {
                    Some(outcome) => outcome_score(outcome, us, 1),
                    // With noise, every root turn needs its exact value, so no pruning here.
                    None if level.noise() > 0 => {
                        -search.negamax(&r.child, depth - 1, -INFINITY, INFINITY, 1)
                    }
                    None => -search.negamax(&r.child, depth - 1, -INFINITY, -alpha, 1),
                };
                if search.aborted {
                    break;
                }
                let value = value.saturating_add(r.noise);
                if value > alpha {
                    alpha = value;
                    best_here = Some(i);
                }
            }
            // An interrupted iteration only counts when it is the first one.
            if let Some(i) = best_here
                && (!search.aborted || depth == 1)
            {
                best = i;
            }
            if search.aborted || Instant::now() >= deadline || alpha >= WIN - depth {
                break;
            }
            // Search the best turn first in the next iteration.
            let chosen = root.remove(best);
            root.insert(0, chosen);
            best = 0;
        }
        Ok(root[best].turn)
    }
}

struct RootTurn {
    turn: Turn,
    child: Position,
    outcome: Option<Outcome>,
    noise: i32,
}

struct Search {
    deadline: Instant,
    nodes: u64,
    aborted: bool,
    no_progress_limit: u32,
    extension: i32,
}

impl Search {
    /// The value of `pos` for its side to move, searched `depth` more turns.
    fn negamax(&mut self, pos: &Position, depth: i32, mut alpha: i32, beta: i32, ply: i32) -> i32 {
        self.nodes += 1;
        if self.nodes.is_multiple_of(1024) && Instant::now() >= self.deadline {
            self.aborted = true;
        }
        if self.aborted {
            return 0;
        }
        let us = pos.side_to_move();
        if pos.stones(us).is_empty() {
            return -(WIN - ply);
        }
        if pos.stones(!us).is_empty() {
            return WIN - ply;
        }
        if self.no_progress_limit > 0 && pos.no_capture_turns() >= self.no_progress_limit {
            return 0;
        }
        if depth <= 0 && (depth <= -self.extension || !pos.has_capture()) {
            return evaluate(pos);
        }
        let mut children: Vec<Position> = Vec::new();
        pos.for_each_turn(|_, child| children.push(*child));
        if children.is_empty() {
            return -(WIN - ply);
        }
        children.sort_by_key(|c| c.stones(!us).count());
        let mut best = -INFINITY;
        for child in &children {
            let value = -self.negamax(child, depth - 1, -beta, -alpha, ply + 1);
            if self.aborted {
                return 0;
            }
            best = best.max(value);
            alpha = alpha.max(value);
            if alpha >= beta {
                break;
            }
        }
        best
    }
}

/// Material balance for the side to move.
fn evaluate(pos: &Position) -> i32 {
    let us = pos.side_to_move();
    STONE * (pos.stones(us).count() as i32 - pos.stones(!us).count() as i32)
}

/// The score of a finished game for `us`, `ply` turns from the root.
fn outcome_score(outcome: Outcome, us: Color, ply: i32) -> i32 {
    match outcome.winner() {
        Some(w) if w == us => WIN - ply,
        Some(_) => -(WIN - ply),
        None => 0,
    }
}

/// A bonus in `0..=max`, fixed for a position and a turn.
fn noise(position_hash: u64, turn: &Turn, max: i32) -> i32 {
    if max <= 0 {
        return 0;
    }
    let mut h = position_hash ^ 0x9e37_79b9_7f4a_7c15;
    for step in turn.steps() {
        for byte in step.to_string().bytes() {
            h = (h ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3);
        }
    }
    // splitmix64 finaliser
    h ^= h >> 30;
    h = h.wrapping_mul(0xbf58_476d_1ce4_e5b9);
    h ^= h >> 27;
    h = h.wrapping_mul(0x94d0_49bb_1331_11eb);
    h ^= h >> 31;
    (h % (max as u64 + 1)) as i32
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use fanorona_engine::{Rules, parse_position};

    use super::*;

    fn choose(fen: &str, level: Level) -> String {
        let game = Game::from_position(parse_position(fen).unwrap(), Rules::default());
        let deadline = Instant::now() + Duration::from_secs(5);
        AlphaBeta
            .choose(&game, level, deadline)
            .unwrap()
            .to_string()
    }

    #[test]
    fn plays_a_legal_opening_turn_at_every_level() {
        let start = Position::start();
        for level in Level::ALL {
            let game = Game::new(Rules::default());
            let deadline = Instant::now() + Duration::from_millis(200);
            let turn = AlphaBeta.choose(&game, level, deadline).unwrap();
            assert!(start.try_play_turn(&turn).is_ok(), "{level}: {turn}");
        }
    }

    #[test]
    fn takes_the_whole_line_when_it_wins() {
        // Approach from a3 takes all seven black stones; every other turn takes fewer.
        let fen = "9/9/W1BBBBBBB/9/8W w";
        for level in [Level::Medium, Level::Hard] {
            assert_eq!(choose(fen, level), "a3b3a");
        }
    }

    #[test]
    fn looks_past_the_larger_capture() {
        // d3e3a takes f3 and g3 but lets c3d3a take White's last stone; d3e3w takes c3 and
        // leaves Black nothing to capture.
        let fen = "9/9/2BW1BB2/9/9 w";
        assert_eq!(choose(fen, Level::Easy), "d3e3w");
        assert_eq!(choose(fen, Level::Medium), "d3e3w");
    }

    #[test]
    fn reports_a_finished_game() {
        let game = Game::from_position(parse_position("9/9/9/9/8W b").unwrap(), Rules::default());
        let e = AlphaBeta
            .choose(&game, Level::Easy, Instant::now())
            .unwrap_err();
        assert!(matches!(e, ChooseError::GameOver(_)), "{e}");
    }

    #[test]
    fn answers_even_with_no_time_left() {
        let game = Game::new(Rules::default());
        let turn = AlphaBeta
            .choose(&game, Level::Hard, Instant::now())
            .unwrap();
        assert!(Position::start().try_play_turn(&turn).is_ok());
    }

    #[test]
    fn the_same_position_gets_the_same_turn() {
        let start = fanorona_engine::START_FEN;
        assert_eq!(
            choose(start, Level::Beginner),
            choose(start, Level::Beginner)
        );
    }
}
