//! Negamax with alpha-beta pruning (principal variation search), a quiescence extension over
//! captures, the transposition table, and the game's end and draw rules.

use std::time::Instant;

use fanorona_engine::{Position, Turn};
use fanorona_tablebase::{Probe as TableProbe, Tablebase, Wdl};

use super::eval::Evaluation;
use super::tt::{Bound, Table};

/// Score of a win at the root; a win found `n` turns deep scores `WIN - n`.
pub(super) const WIN: i32 = 30_000;
/// Deepest ply the search ever reaches (main search and quiescence together).
pub(super) const MAX_PLY: usize = 128;
/// Larger than any score.
pub(super) const INF: i32 = 32_000;
/// Scores at least this large (in absolute value) are forced wins or losses.
pub(super) const WIN_BOUND: i32 = WIN - MAX_PLY as i32;

/// Score of a position the endgame tables say is won with the next capture `d` turns away:
/// `TABLE_WIN - d`. Below every forced win the search finds itself, above every evaluation.
pub(super) const TABLE_WIN: i32 = 20_000;
/// Table scores lie in `TABLE_WIN - TABLE_SPAN ..= TABLE_WIN` (and the negatives).
pub(super) const TABLE_SPAN: i32 = 1_000;

/// The search score of an exact result from the tables.
#[inline]
pub(super) fn table_score(p: TableProbe) -> i32 {
    match p.wdl {
        Wdl::Win => TABLE_WIN - p.dtz as i32,
        Wdl::Draw => 0,
        Wdl::Loss => -(TABLE_WIN - p.dtz as i32),
    }
}

/// The exact result a search score stands for, when it is a table score.
pub(super) fn table_probe_of(score: i32) -> Option<TableProbe> {
    let d = TABLE_WIN - score.abs();
    if score.abs() >= WIN_BOUND || !(0..=TABLE_SPAN).contains(&d) {
        return None;
    }
    let wdl = if score > 0 { Wdl::Win } else { Wdl::Loss };
    Some(TableProbe { wdl, dtz: d as u32 })
}

/// Nodes between two looks at the clock.
const CLOCK_INTERVAL: u64 = 1024;

/// A successor of a node: the position after one whole turn, the turn's index in
/// [`Position::for_each_turn`] order, and its move-ordering key.
#[derive(Clone, Copy, Debug)]
pub(super) struct Child {
    pub pos: Position,
    pub index: u32,
    pub key: i32,
}

/// A turn-start position on the way from the game's last capture to the current node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct PathEntry {
    pub hash: u64,
    /// The position came right after a capture: nothing before it can repeat.
    pub reset: bool,
}

impl PathEntry {
    pub fn of(pos: &Position) -> PathEntry {
        PathEntry {
            hash: pos.hash(),
            reset: pos.no_capture_turns() == 0,
        }
    }
}

/// Lists the turns of `pos` into `out`, best-looking first: the transposition-table turn, then
/// by stones captured (most first), then paika steps onto strong points.
pub(super) fn children(pos: &Position, out: &mut Vec<Child>, tt_best: Option<u32>) {
    out.clear();
    let them = !pos.side_to_move();
    let before = pos.stones(them).count();
    let mut index = 0u32;
    pos.for_each_turn(|turn: &Turn, child| {
        let captured = (before - child.stones(them).count()) as i32;
        let key = if Some(index) == tt_best {
            i32::MAX
        } else if captured > 0 {
            captured * 16
        } else {
            // A paika move is its only step: prefer landing on a strong point.
            i32::from(turn.steps().first().is_some_and(|s| s.to().is_strong()))
        };
        out.push(Child {
            pos: *child,
            index,
            key,
        });
        index += 1;
    });
    // Stable, so that equal keys keep the generation order and results stay reproducible.
    out.sort_by_key(|c| std::cmp::Reverse(c.key));
}

/// A mate score as stored in the table: relative to the node instead of the root.
#[inline]
fn to_tt(score: i32, ply: usize) -> i32 {
    if score >= WIN_BOUND {
        score + ply as i32
    } else if score <= -WIN_BOUND {
        score - ply as i32
    } else {
        score
    }
}

#[inline]
fn from_tt(score: i32, ply: usize) -> i32 {
    if score >= WIN_BOUND {
        score - ply as i32
    } else if score <= -WIN_BOUND {
        score + ply as i32
    } else {
        score
    }
}

/// The state of one search (one decision).
/// A transposition-table answer.
enum Probe {
    /// The stored score settles the node.
    Cut(i32),
    /// The stored best turn, to search first.
    Hint(Option<u32>),
}

pub(super) struct Searcher<'a> {
    pub tt: &'a mut Table,
    /// One move list per ply, reused between nodes so that searching does not allocate.
    pub buffers: &'a mut Vec<Vec<Child>>,
    pub nodes: u64,
    pub deadline: Option<Instant>,
    /// Raised from outside (the engine protocol's `stop`): end as at the deadline.
    pub stop: &'a crate::player::Stop,
    pub stopped: bool,
    /// Turn-start positions since the game's last capture known before the root, then the
    /// root, then the current search path (parent on top).
    pub path: Vec<PathEntry>,
    /// Index of the root in `path`.
    pub root_index: usize,
    /// The game's no-progress limit (0: off).
    pub no_progress_limit: u32,
    /// Most capture turns the quiescence extension plays beyond the nominal depth.
    pub quiescence: u32,
    /// Endgame tables for the game's rules: positions they cover get their exact score
    /// (waiting for a class's distances only without a `deadline`: see
    /// [`crate::tables::exact`]).
    pub tables: Option<&'a Tablebase>,
    /// How quiet positions are scored.
    pub eval: &'a Evaluation,
    /// Where the searched nodes go while [`Searcher::recording`] (a learning run's examples).
    pub record: Option<&'a mut Vec<RawNode>>,
    /// Record the nodes this iteration searches.
    pub recording: bool,
}

/// A node below the root as the search left it: the position, its score for the side to
/// move (mate scores counted from the root), whether that score is exact or a bound, and
/// the depth it was searched to.
#[derive(Clone, Copy, Debug)]
pub(super) struct RawNode {
    pub pos: Position,
    pub score: i32,
    pub bound: Bound,
    pub depth: u32,
}

impl Searcher<'_> {
    fn tick(&mut self) {
        self.nodes += 1;
        if self.nodes.is_multiple_of(CLOCK_INTERVAL)
            && (self.stop.is_raised() || self.deadline.is_some_and(|d| Instant::now() >= d))
        {
            self.stopped = true;
        }
    }

    fn take_buffer(&mut self, ply: usize) -> Vec<Child> {
        if self.buffers.len() <= ply {
            self.buffers.resize_with(ply + 1, Vec::new);
        }
        std::mem::take(&mut self.buffers[ply])
    }

    /// The game's win and loss rules at a turn start, in the order of
    /// [`fanorona_engine::Game::outcome`]: no stones (loss), opponent without stones (win), no
    /// legal move (loss).
    #[inline]
    pub(super) fn decided(pos: &Position, ply: usize) -> Option<i32> {
        let us = pos.side_to_move();
        let mate = WIN - ply as i32;
        if pos.stones(us).is_empty() {
            Some(-mate)
        } else if pos.stones(!us).is_empty() {
            Some(mate)
        } else if !pos.has_legal_action() {
            Some(-mate)
        } else {
            None
        }
    }

    /// The draw rules, for a node below the root (the path's top is its parent).
    ///
    /// No progress: the game's limit is reached. Repetition: the position already occurred in
    /// this search path (the root included) since the last capture; a position that occurred
    /// only in the game before the root counts as a draw when this would be its third time, as
    /// the rules say. Scoring a first repetition inside the tree as a draw is the usual engine
    /// shortcut: whoever could repeat once can repeat again.
    fn is_draw(&self, pos: &Position) -> bool {
        let since_capture = pos.no_capture_turns();
        if since_capture == 0 {
            return false;
        }
        if self.no_progress_limit > 0 && since_capture >= self.no_progress_limit {
            return true;
        }
        let h = pos.hash();
        let mut before_root = 0;
        for i in (0..self.path.len()).rev() {
            let e = self.path[i];
            if e.hash == h {
                if i >= self.root_index {
                    return true;
                }
                before_root += 1;
                if before_root >= 2 {
                    return true;
                }
            }
            if e.reset {
                break;
            }
        }
        false
    }

    /// What the transposition table knows of `key` for a search `depth` deep in the window
    /// `(alpha, beta)`: a score that settles the node, or the best turn to try first.
    fn probe(&self, key: u64, depth: u32, alpha: i32, beta: i32, ply: usize) -> Probe {
        let Some(e) = self.tt.probe(key) else {
            return Probe::Hint(None);
        };
        if u32::from(e.depth) >= depth {
            let s = from_tt(i32::from(e.score), ply);
            let cut = match e.bound {
                Bound::Exact => true,
                Bound::Lower => s >= beta,
                Bound::Upper => s <= alpha,
                Bound::None => false,
            };
            if cut {
                return Probe::Cut(s);
            }
        }
        Probe::Hint(Some(e.best))
    }

    /// Negamax value of `pos` (a turn start below the root) searched `depth` turns deep.
    pub fn negamax(
        &mut self,
        pos: &Position,
        depth: u32,
        mut alpha: i32,
        beta: i32,
        ply: usize,
    ) -> i32 {
        self.tick();
        if self.stopped {
            return 0;
        }
        if let Some(score) = Self::decided(pos, ply) {
            return score;
        }
        if self.is_draw(pos) {
            return 0;
        }
        if let Some(p) = crate::tables::exact(self.tables, pos, self.deadline.is_none()) {
            return table_score(p);
        }
        if depth == 0 || ply + 1 >= MAX_PLY {
            return self.quiesce(pos, alpha, beta, ply, self.quiescence);
        }
        let alpha_start = alpha;
        let key = pos.hash();
        let tt_best = match self.probe(key, depth, alpha, beta, ply) {
            Probe::Cut(score) => return score,
            Probe::Hint(best) => best,
        };
        let mut list = self.take_buffer(ply);
        children(pos, &mut list, tt_best);
        self.path.push(PathEntry::of(pos));
        let mut best = -INF;
        let mut best_index = list.first().map_or(0, |c| c.index);
        for (i, child) in list.iter().enumerate() {
            let score = if i == 0 {
                -self.negamax(&child.pos, depth - 1, -beta, -alpha, ply + 1)
            } else {
                // Principal variation search: prove the move worse with a null window, and
                // search it properly only when that fails.
                let s = -self.negamax(&child.pos, depth - 1, -alpha - 1, -alpha, ply + 1);
                if s > alpha && s < beta && !self.stopped {
                    -self.negamax(&child.pos, depth - 1, -beta, -alpha, ply + 1)
                } else {
                    s
                }
            };
            if self.stopped {
                break;
            }
            if score > best {
                best = score;
                best_index = child.index;
            }
            alpha = alpha.max(score);
            if alpha >= beta {
                break;
            }
        }
        self.path.pop();
        self.buffers[ply] = list;
        if self.stopped {
            return 0;
        }
        let bound = if best <= alpha_start {
            Bound::Upper
        } else if best >= beta {
            Bound::Lower
        } else {
            Bound::Exact
        };
        self.tt
            .store(key, best_index, to_tt(best, ply), depth, bound);
        if self.recording
            && let Some(record) = self.record.as_deref_mut()
        {
            record.push(RawNode {
                pos: *pos,
                score: best,
                bound,
                depth,
            });
        }
        best
    }

    /// The quiescence extension: while the side to move can capture (and `left` allows), play
    /// the captures out, with the static evaluation as the stand-pat score. Capture turns reset
    /// the no-progress counter and cannot repeat a position, so no draw rule applies here.
    fn quiesce(&mut self, pos: &Position, mut alpha: i32, beta: i32, ply: usize, left: u32) -> i32 {
        let stand = self.eval.evaluate(pos);
        if left == 0 || ply + 1 >= MAX_PLY || stand >= beta || !pos.has_capture() {
            return stand;
        }
        alpha = alpha.max(stand);
        let mut best = stand;
        let mut list = self.take_buffer(ply);
        children(pos, &mut list, None);
        for child in &list {
            self.tick();
            if self.stopped {
                break;
            }
            let score = match Self::decided(&child.pos, ply + 1) {
                Some(s) => -s,
                None => {
                    match crate::tables::exact(self.tables, &child.pos, self.deadline.is_none()) {
                        Some(p) => -table_score(p),
                        None => -self.quiesce(&child.pos, -beta, -alpha, ply + 1, left - 1),
                    }
                }
            };
            best = best.max(score);
            alpha = alpha.max(score);
            if alpha >= beta {
                break;
            }
        }
        self.buffers[ply] = list;
        best
    }
}
