//! The alpha-beta player's judgement of one position, for another search to use at its leaves
//! (see [`LeafJudge`]).

use fanorona_engine::Position;
use fanorona_tablebase::Tablebase;

use super::eval::Evaluation;
use super::search::{Child, INF, Searcher, TABLE_SPAN, TABLE_WIN, children};
use super::tt::Table;
use crate::player::Stop;

/// Judges positions with the alpha-beta search: `depth` whole turns of principal variation
/// search, then the quiescence extension (captures played out, at most `quiescence` capture
/// turns, the static evaluation as stand-pat score), with the game's end rules and the
/// endgame tables. A position in the middle of a capture chain is judged by its best rest of
/// the turn.
///
/// It keeps its buffers and a small transposition table from one call to the next, so judging
/// does not allocate once warm.
pub struct LeafJudge {
    tt: Table,
    buffers: Vec<Vec<Child>>,
    /// The rests of the turn of a mid-chain position.
    rests: Vec<Child>,
    stop: Stop,
    depth: u32,
    quiescence: u32,
    nodes: u64,
    eval: Evaluation,
}

impl std::fmt::Debug for LeafJudge {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LeafJudge")
            .field("depth", &self.depth)
            .field("quiescence", &self.quiescence)
            .field("nodes", &self.nodes)
            .finish_non_exhaustive()
    }
}

/// What a [`LeafJudge`] found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Judgement {
    /// The side to move wins by force (the search found the last stone taken or the opponent
    /// blocked, or the tables say so).
    Win,
    /// The side to move loses by force.
    Loss,
    /// No forced result found: the evaluation (0 for a draw the tables or the draw rules
    /// see) in centi-stones (one stone is 100), for the side to move.
    Score(i32),
}

impl LeafJudge {
    /// A judge searching `depth` turns and then at most `quiescence` capture turns.
    pub fn new(depth: u32, quiescence: u32) -> Self {
        LeafJudge {
            tt: Table::new(1),
            buffers: Vec::new(),
            rests: Vec::new(),
            stop: Stop::new(),
            depth,
            quiescence,
            nodes: 0,
            eval: Evaluation::Handwritten,
        }
    }

    /// The same judge scoring quiet positions with `eval`.
    pub fn with_evaluation(mut self, eval: Evaluation) -> Self {
        self.eval = eval;
        self
    }

    /// Positions searched so far, over every call.
    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    /// Judges `pos` for its side to move, under the no-progress limit `no_progress_limit` (0:
    /// off) and with `tables` if given. `pos` may be in the middle of a capture chain; a
    /// position whose game is already over is judged by the end rules (no stones or no legal
    /// action: lost).
    pub fn judge(
        &mut self,
        pos: &Position,
        no_progress_limit: u32,
        tables: Option<&Tablebase>,
    ) -> Judgement {
        self.judge_before(pos, no_progress_limit, tables, None)
            .unwrap_or(Judgement::Score(0))
    }

    /// [`LeafJudge::judge`] that gives up at `deadline` (if any): `None` when the time ran
    /// out before the search ended (a timed player's budget is kept whatever the judge's depth).
    pub fn judge_before(
        &mut self,
        pos: &Position,
        no_progress_limit: u32,
        tables: Option<&Tablebase>,
        deadline: Option<std::time::Instant>,
    ) -> Option<Judgement> {
        if deadline.is_some_and(|d| std::time::Instant::now() >= d) {
            return None;
        }
        let mut searcher = Searcher {
            tt: &mut self.tt,
            buffers: &mut self.buffers,
            nodes: 0,
            deadline,
            stop: &self.stop,
            stopped: false,
            path: Vec::new(),
            root_index: 0,
            no_progress_limit,
            quiescence: self.quiescence,
            tables,
            eval: &self.eval,
            record: None,
            recording: false,
        };
        let score = if pos.is_turn_start() {
            searcher.negamax(pos, self.depth, -INF, INF, 0)
        } else {
            // The rests of the turn (the chain goes on, or stops after any capture), the
            // biggest captures first.
            children(pos, &mut self.rests, None);
            let mut best = -INF;
            for rest in &self.rests {
                let score = -searcher.negamax(&rest.pos, self.depth, -INF, -best, 1);
                best = best.max(score);
            }
            best
        };
        self.nodes += searcher.nodes;
        (!searcher.stopped).then(|| judgement_of(score))
    }
}

/// The [`Judgement`] a search score stands for.
fn judgement_of(score: i32) -> Judgement {
    // Forced wins found by the search score above the tables' range, table wins within it.
    if score >= TABLE_WIN - TABLE_SPAN {
        Judgement::Win
    } else if score <= -(TABLE_WIN - TABLE_SPAN) {
        Judgement::Loss
    } else {
        Judgement::Score(score)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fanorona_engine::Position;

    #[test]
    fn material_and_captures_in_the_air_are_seen() {
        let mut judge = LeafJudge::new(0, 4);
        // The start: five captures for White, balanced after they are played out or not.
        let start = judge.judge(&Position::start(), 0, None);
        assert!(
            matches!(start, Judgement::Score(s) if s.abs() < 300),
            "{start:?}"
        );
        // White a1 and i5 against Black e3 alone: one stone up, no capture for Black to move.
        let up: Position = "8W/9/4B4/9/W8 b".parse().unwrap();
        assert!(matches!(judge.judge(&up, 0, None), Judgement::Score(s) if s <= -90));
    }

    #[test]
    fn a_last_stone_taken_is_a_win() {
        // White c3 can take Black's only stone on e3 by approach (c3-d3).
        let pos: Position = "9/9/2W1B4/9/9 w".parse().unwrap();
        let mut judge = LeafJudge::new(0, 4);
        assert_eq!(judge.judge(&pos, 0, None), Judgement::Win);
        let other: Position = "9/9/2W1B4/9/9 b".parse().unwrap();
        // Black to move: e3 takes c3 by approach (e3-d3).
        assert_eq!(judge.judge(&other, 0, None), Judgement::Win);
    }

    #[test]
    fn a_position_in_the_middle_of_a_chain_is_judged_by_the_rest_of_the_turn() {
        // White c3 takes e3 by approach (c3-d3); the chain goes on d3-d4, taking d5, Black's
        // last stone. Stopping after the first capture would leave one stone each.
        let start: Position = "3B5/9/2W1B4/9/9 w".parse().unwrap();
        let mid = start.apply("c3d3a".parse().unwrap());
        assert!(!mid.is_turn_start());
        let mut judge = LeafJudge::new(0, 4);
        assert_eq!(judge.judge(&mid, 0, None), Judgement::Win);
        // With the chain's next capture out of reach (Black d5 moved to a5), the turn ends
        // there, one stone each.
        let start: Position = "B8/9/2W1B4/9/9 w".parse().unwrap();
        let after = start.apply("c3d3a".parse().unwrap());
        let judged = judge.judge(&after, 0, None);
        assert!(after.is_turn_start(), "{after}");
        assert!(
            matches!(judged, Judgement::Score(s) if s.abs() < 50),
            "{judged:?}"
        );
    }

    #[test]
    fn a_judge_out_of_time_says_so_instead_of_guessing() {
        use std::time::{Duration, Instant};
        let mut judge = LeafJudge::new(3, 4);
        let pos = Position::start();
        let past = Instant::now() - Duration::from_millis(1);
        assert_eq!(judge.judge_before(&pos, 0, None, Some(past)), None);
        assert_eq!(judge.nodes(), 0, "nothing searched after the deadline");
        // A deadline that is far away changes nothing.
        let later = Instant::now() + Duration::from_secs(3600);
        let timed = judge.judge_before(&pos, 0, None, Some(later));
        assert_eq!(timed, Some(LeafJudge::new(3, 4).judge(&pos, 0, None)));
        // A deadline that passes during the search stops it (the clock is read every 1,024
        // positions; depth 3 from the start searches far more than that in far more than
        // 200 us): no judgement either.
        let mut deep = LeafJudge::new(3, 4);
        let soon = Instant::now() + Duration::from_micros(200);
        assert_eq!(deep.judge_before(&pos, 0, None, Some(soon)), None);
        let mut whole = LeafJudge::new(3, 4);
        whole.judge(&pos, 0, None);
        assert!(whole.nodes() > 10 * 1024, "{} positions", whole.nodes());
    }
}
