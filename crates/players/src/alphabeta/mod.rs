//! The alpha-beta player (see [`AlphaBetaPlayer`]).

mod eval;
mod leaf;
mod pv;
mod search;
mod tt;

use std::time::{Duration, Instant};

use fanorona_engine::{Game, Position, Turn};
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};

pub use eval::{Evaluation, LEARNED_MAX, evaluate};
pub use leaf::{Judgement, LeafJudge};
use search::{Child, INF, PathEntry, RawNode, Searcher, WIN, WIN_BOUND, children};
use tt::{Bound, Table};

use crate::player::{
    Choice, ChoiceInfo, Limit, Player, PlayerError, Score, Stop, check_limit, check_playable,
};

/// Deepest nominal depth the player searches, in turns.
const MAX_DEPTH: u32 = AlphaBetaConfig::MAX_DEPTH;

/// Settings of the alpha-beta player.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AlphaBetaConfig {
    /// Search this many turns deep (at most [`AlphaBetaConfig::MAX_DEPTH`]). `None`: deepen
    /// until the time runs out.
    pub depth: Option<u32>,
    /// Stop deepening after about this many milliseconds. `None`: no time limit. With neither
    /// limit the player searches [`AlphaBetaConfig::DEFAULT_DEPTH`] deep.
    pub millis: Option<u64>,
    /// Most capture turns the quiescence extension adds below the nominal depth (0: none).
    pub quiescence: u32,
    /// Size of the transposition table in MiB.
    pub tt_mebibytes: usize,
    /// Shuffles the root turns before ordering them, so that equally scored turns are picked
    /// at random.
    pub seed: u64,
}

impl AlphaBetaConfig {
    /// Deepest nominal depth, in turns.
    pub const MAX_DEPTH: u32 = Limit::MAX_DEPTH;
    /// Depth used when neither a depth nor a time is given.
    pub const DEFAULT_DEPTH: u32 = 4;
    /// Default quiescence extension.
    pub const DEFAULT_QUIESCENCE: u32 = 4;
    /// Default table size in MiB.
    pub const DEFAULT_TT_MEBIBYTES: usize = 16;
}

impl Default for AlphaBetaConfig {
    fn default() -> Self {
        AlphaBetaConfig {
            depth: Some(Self::DEFAULT_DEPTH),
            millis: None,
            quiescence: Self::DEFAULT_QUIESCENCE,
            tt_mebibytes: Self::DEFAULT_TT_MEBIBYTES,
            seed: 0,
        }
    }
}

/// What a searched score says of a node's value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScoreBound {
    /// The value itself.
    Exact,
    /// At least the score (the search failed high: a turn at least this good was found and
    /// the rest were not searched).
    Lower,
    /// At most the score (the search failed low: no turn reached it).
    Upper,
}

/// A position below the root of a search, with what the search found out about it: a
/// training example of the learned evaluation (TreeStrap's "every node of the search").
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SearchedNode {
    /// The turn-start position.
    pub position: Position,
    /// Its score for the side to move (a forced result as [`Score::WinIn`] or
    /// [`Score::LossIn`], counted from the root).
    pub score: Score,
    /// Whether the score is the value or a bound of it.
    pub bound: ScoreBound,
    /// Whole turns it was searched deep (at least 1; the quiescence comes on top).
    pub depth: u32,
}

impl SearchedNode {
    fn of(raw: &RawNode) -> Option<SearchedNode> {
        let bound = match raw.bound {
            Bound::Exact => ScoreBound::Exact,
            Bound::Lower => ScoreBound::Lower,
            Bound::Upper => ScoreBound::Upper,
            Bound::None => return None,
        };
        Some(SearchedNode {
            position: raw.pos,
            score: score_of(raw.score),
            bound,
            depth: raw.depth,
        })
    }
}

/// A turn at the root of the last search with what the search found out about it
/// ([`AlphaBetaPlayer::score_root_turns`]): a policy target for a network taught by the search.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RootTurn {
    /// The turn.
    pub turn: Turn,
    /// Its score for the mover, as reported.
    pub score: Score,
    /// The search's own number for the score: centi-stones for an evaluation, larger than any
    /// evaluation for a win (larger still the sooner), the negatives for losses. Comparable
    /// between the turns of one search.
    pub value: i32,
    /// Whether `score` is the turn's value (`false`: an upper bound, the turn is worse than
    /// the best by more than the margin).
    pub exact: bool,
}

/// The alpha-beta player: turn-level negamax with alpha-beta pruning.
///
/// - **Search**: principal variation search over whole turns ([`Position::for_each_turn`], which
///   enumerates turns and their resulting positions without allocating), iterative deepening
///   from depth 1, limited by depth, by time, or both. At depth 0 a quiescence extension plays
///   out captures (at most [`AlphaBetaConfig::quiescence`] more turns) with the static
///   evaluation as stand-pat score.
/// - **Transposition table**: direct-mapped, keyed by [`Position::hash`] (placement and side to
///   move at a turn start), storing score, bound, depth and the best turn's index; kept across
///   the turns of one game.
/// - **Move ordering**: the table's turn, then captures by stones taken, then paika steps onto
///   strong points; at the root, the previous iteration's scores.
/// - **Evaluation**: [`evaluate`]: material first, then mobility and strong points.
/// - **End and draw rules**: a side without stones or without a legal move loses; a position
///   reached again since the last capture is a draw (a first repetition inside the search
///   tree already counts, as usual in game engines; a position seen only before the root needs
///   its third time), and so is one where the no-progress limit runs out. The turns at the root are judged by the [`Game`]
///   itself, with its whole history. Below that, a [`Game`] does not expose its history, so the
///   player remembers the game's turn-start positions from one call to the next: repetitions of
///   positions before the root are seen when it plays a whole game; for a game it joins midway
///   it knows only how often the root itself occurred.
pub struct AlphaBetaPlayer {
    name: String,
    config: AlphaBetaConfig,
    tt: Table,
    buffers: Vec<Vec<Child>>,
    rng: SmallRng,
    /// Turn-start positions of the current game since its last capture, up to the root of the
    /// last search.
    history: Vec<PathEntry>,
    /// The position after the turn this player chose last.
    after_last_turn: Option<Position>,
    /// Endgame tables: exact scores in the search, perfect play at a covered root.
    tables: crate::tables::Tables,
    /// Raised: end the search now with the best turn so far.
    stop: Stop,
    /// How quiet positions are scored.
    eval: Evaluation,
    /// The nodes of the last search's deepest iteration, when recording
    /// ([`AlphaBetaPlayer::record_nodes`]).
    recorded: Option<Vec<RawNode>>,
    /// Root turns within this many centi-stones of the best get exact scores
    /// ([`AlphaBetaPlayer::score_root_turns`]).
    root_margin: Option<i32>,
    /// The root turns of the last search's deepest completed iteration, when scoring them.
    root_scores: Vec<RootTurn>,
    /// The last search's principal variation leaf, when keeping it
    /// ([`AlphaBetaPlayer::record_leaf`]).
    leaf: Option<Option<(Position, i32)>>,
}

impl std::fmt::Debug for AlphaBetaPlayer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AlphaBetaPlayer")
            .field("name", &self.name)
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

/// A finished search: the turn, its score, the depth completed and the nodes.
#[derive(Clone, Copy, Debug)]
struct Outcome {
    turn: Turn,
    score: Option<i32>,
    depth: Option<u32>,
    nodes: u64,
}

impl AlphaBetaPlayer {
    /// A player with these settings.
    pub fn new(config: AlphaBetaConfig) -> Self {
        AlphaBetaPlayer {
            name: "alphabeta".into(),
            tt: Table::new(config.tt_mebibytes),
            buffers: Vec::new(),
            rng: SmallRng::seed_from_u64(config.seed),
            config,
            history: Vec::new(),
            after_last_turn: None,
            tables: None,
            stop: Stop::new(),
            eval: Evaluation::Handwritten,
            recorded: None,
            root_margin: None,
            root_scores: Vec::new(),
            leaf: None,
        }
    }

    /// Scores every root turn within `margin` centi-stones of the best exactly (a principal
    /// variation search whose null windows sit `margin` below the best score so far, so that
    /// each such turn is searched again with an open window), and the others with an upper
    /// bound, for [`AlphaBetaPlayer::take_root_scores`]. The turn chosen does not change; the
    /// search costs more, the more turns lie within the margin. Off by default.
    pub fn score_root_turns(mut self, margin: u32) -> Self {
        self.root_margin = Some(margin.min(10_000) as i32);
        self
    }

    /// The root turns the last search scored (empty when not scoring them, and for a turn
    /// found in the tables; a forced turn comes alone, exact only when it ends the game).
    pub fn take_root_scores(&mut self) -> Vec<RootTurn> {
        std::mem::take(&mut self.root_scores)
    }

    /// Keeps the nodes below the root that each search's deepest iteration searches, with
    /// their scores and bounds, for [`AlphaBetaPlayer::take_nodes`] (a learning run's
    /// examples; off by default, and free when off).
    pub fn record_nodes(mut self, on: bool) -> Self {
        self.recorded = on.then(Vec::new);
        self
    }

    /// The nodes the last search recorded (none when not recording, or for a turn that was
    /// forced, found in the tables or searched against a clock).
    pub fn take_nodes(&mut self) -> Vec<SearchedNode> {
        match self.recorded.as_mut() {
            Some(raw) => {
                let nodes = raw.iter().filter_map(SearchedNode::of).collect();
                raw.clear();
                nodes
            }
            None => Vec::new(),
        }
    }

    /// Keeps, after each search at a fixed depth, the end of its principal variation: the
    /// position whose evaluation the search returned as the root's score, with that score for
    /// its own mover, for [`AlphaBetaPlayer::take_leaf`] (TD-Leaf's training position; off by
    /// default, and a few transposition probes and one small quiescence when on).
    pub fn record_leaf(mut self, on: bool) -> Self {
        self.leaf = on.then_some(None);
        self
    }

    /// The last search's principal variation leaf and the root's score from the leaf's
    /// mover's view: `None` when not recording, for a turn forced, found in the tables or
    /// searched against a clock, for a score of a forced result, or where the line could not
    /// be followed to a position whose evaluation is that score.
    pub fn take_leaf(&mut self) -> Option<(Position, i32)> {
        self.leaf.as_mut().and_then(Option::take)
    }

    /// Scores quiet positions with `eval` instead of the hand-written evaluation.
    pub fn with_evaluation(mut self, eval: Evaluation) -> Self {
        self.eval = eval;
        self
    }

    /// Scores the positions the endgame tables cover exactly (no search below them) and plays
    /// a covered root perfectly: the turn that keeps its result with the best distance.
    pub fn with_tables(mut self, tables: crate::tables::Tables) -> Self {
        self.tables = tables;
        self
    }

    /// Renames the player (for reports).
    pub fn with_name(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
    }

    /// The settings.
    pub fn config(&self) -> &AlphaBetaConfig {
        &self.config
    }

    /// Brings the remembered turn-start positions up to `game`: extended by the position after
    /// this player's last turn and the current one when `game` continues from there, otherwise
    /// restarted from what `game` tells (the root and how often it occurred).
    fn sync_history(&mut self, game: &Game) {
        let pos = game.position();
        let continues = self.after_last_turn.is_some_and(|after| {
            // Positions compare counters and turn numbers too, so this is exact.
            let mut found = false;
            after.for_each_turn(|_, child| found |= child == pos);
            found
        });
        let record = |history: &mut Vec<PathEntry>, p: &Position| {
            if p.no_capture_turns() == 0 {
                history.clear();
            }
            history.push(PathEntry::of(p));
        };
        if let (true, Some(after)) = (continues, self.after_last_turn) {
            record(&mut self.history, &after);
            record(&mut self.history, pos);
        } else {
            self.history.clear();
            let seen = game.repetition_count().max(1);
            for i in 0..seen {
                self.history.push(PathEntry {
                    hash: pos.hash(),
                    reset: i == 0 && pos.no_capture_turns() == 0,
                });
            }
        }
    }

    /// The root turns in search order (shuffled by the seed, then ordered like any node), each
    /// with the exact score of those that end the game.
    fn root_turns(&mut self, game: &Game) -> (Vec<(Turn, Child)>, Vec<Option<i32>>) {
        let pos = *game.position();
        let mut list = Vec::new();
        children(&pos, &mut list, self.tt.probe(pos.hash()).map(|e| e.best));
        let mut turns = Vec::with_capacity(list.len());
        pos.for_each_turn(|t, _| turns.push(*t));
        let mut roots: Vec<(Turn, Child)> =
            list.iter().map(|c| (turns[c.index as usize], *c)).collect();
        // The game itself decides the turns that end it, with its full history: a third
        // repetition of a position seen only before the root is caught here even when this
        // player did not follow the game.
        let root_outcome = |turn: &Turn| {
            let mut next = game.clone();
            next.play_turn(turn).ok()?;
            next.outcome().map(|o| match o.winner() {
                Some(w) if w == pos.side_to_move() => WIN - 1,
                Some(_) => -(WIN - 1),
                None => 0,
            })
        };
        for i in (1..roots.len()).rev() {
            let j = self.rng.random_range(0..=i);
            roots.swap(i, j);
        }
        roots.sort_by_key(|(_, c)| std::cmp::Reverse(c.key));
        let decided = roots.iter().map(|(t, _)| root_outcome(t)).collect();
        (roots, decided)
    }

    fn search(&mut self, game: &Game, max_depth: u32, deadline: Option<Instant>) -> Outcome {
        let (mut roots, mut decided) = self.root_turns(game);
        let mut best = Outcome {
            turn: roots[0].0,
            score: None,
            depth: None,
            nodes: 1,
        };
        self.root_scores.clear();
        if roots.len() == 1 {
            // A forced turn: played without searching (scored only if it ends the game).
            best.score = decided[0];
            if self.root_margin.is_some() {
                self.root_scores.push(RootTurn {
                    turn: roots[0].0,
                    score: score_of(decided[0].unwrap_or(0)),
                    value: decided[0].unwrap_or(0),
                    exact: decided[0].is_some(),
                });
            }
            return best;
        }
        let margin = self.root_margin;
        let root_index = self.history.len() - 1;
        let mut searcher = Searcher {
            tt: &mut self.tt,
            buffers: &mut self.buffers,
            nodes: 1,
            deadline,
            stop: &self.stop,
            stopped: false,
            path: self.history.clone(),
            root_index,
            no_progress_limit: game.rules().no_progress_limit,
            quiescence: self.config.quiescence,
            tables: crate::tables::for_game(&self.tables, game),
            eval: &self.eval,
            // Recorded only at a fixed depth: a timed search's last iteration may be cut.
            record: self.recorded.as_mut().filter(|_| deadline.is_none()),
            recording: false,
        };
        let started = Instant::now();
        let mut scores = vec![-INF; roots.len()];
        let last = max_depth.clamp(1, MAX_DEPTH);
        for depth in 1..=last {
            searcher.recording = depth == last;
            let iteration_best =
                root_iteration(&mut searcher, &roots, &decided, depth, &mut scores, margin);
            // An interrupted iteration still counts for the turns it finished: the previous
            // best was searched first, so anything that beat it is better at this depth.
            if let Some((i, score)) = iteration_best {
                best.turn = roots[i].0;
                best.score = Some(score);
            }
            if searcher.stopped {
                break;
            }
            best.depth = Some(depth);
            if let (Some(margin), Some((_, top))) = (margin, iteration_best) {
                self.root_scores = (0..roots.len())
                    .map(|i| RootTurn {
                        turn: roots[i].0,
                        score: score_of(scores[i]),
                        value: scores[i],
                        exact: i == 0
                            || decided[i].is_some()
                            || scores[i] > window_floor(top, margin),
                    })
                    .collect();
            }
            // Best turn first, the others by their (bound) scores.
            let mut order: Vec<usize> = (0..roots.len()).collect();
            order.sort_by(|&a, &b| scores[b].cmp(&scores[a]));
            roots = order.iter().map(|&i| roots[i]).collect();
            scores = order.iter().map(|&i| scores[i]).collect();
            decided = order.iter().map(|&i| decided[i]).collect();
            if best.score.is_some_and(|s| s.abs() >= WIN_BOUND) {
                break; // a forced result: deeper searches cannot shorten it
            }
            // The next iteration usually costs several times this one: skip it when it could
            // not finish anyway.
            if deadline.is_some_and(|d| Instant::now() + started.elapsed() >= d) {
                break;
            }
        }
        best.nodes = searcher.nodes;
        best
    }
}

/// The score above which a root turn is scored exactly when the best so far is `best` and the
/// margin `margin` (never below the lowest score).
fn window_floor(best: i32, margin: i32) -> i32 {
    best.saturating_sub(margin).max(-INF + 1)
}

/// One iteration of iterative deepening over the root turns (principal variation search):
/// fills `scores` for the turns it finishes and returns the best of them, if any. With a
/// `margin`, the null windows sit that far below the best score so far: every turn within the
/// margin of the best gets its exact score, the others an upper bound.
fn root_iteration(
    searcher: &mut Searcher<'_>,
    roots: &[(Turn, Child)],
    decided: &[Option<i32>],
    depth: u32,
    scores: &mut [i32],
    margin: Option<i32>,
) -> Option<(usize, i32)> {
    let mut alpha = -INF;
    let beta = INF;
    let mut iteration_best: Option<(usize, i32)> = None;
    for (i, (_, child)) in roots.iter().enumerate() {
        let floor = match margin {
            Some(m) if alpha > -INF => window_floor(alpha, m),
            _ => alpha,
        };
        let score = if let Some(score) = decided[i] {
            score
        } else if i == 0 {
            -searcher.negamax(&child.pos, depth - 1, -beta, -alpha, 1)
        } else {
            let s = -searcher.negamax(&child.pos, depth - 1, -floor - 1, -floor, 1);
            if s > floor && !searcher.stopped {
                -searcher.negamax(&child.pos, depth - 1, -beta, -floor, 1)
            } else {
                s
            }
        };
        if searcher.stopped {
            break;
        }
        scores[i] = score;
        if iteration_best.is_none_or(|(_, s)| score > s) {
            iteration_best = Some((i, score));
            alpha = alpha.max(score);
        }
    }
    iteration_best
}

/// Converts a root score to the reported form.
fn score_of(score: i32) -> Score {
    if let Some(probe) = search::table_probe_of(score) {
        Score::Tablebase(probe)
    } else if score >= WIN_BOUND {
        Score::WinIn((WIN - score) as u32)
    } else if score <= -WIN_BOUND {
        Score::LossIn((WIN + score) as u32)
    } else {
        Score::Centistones(score)
    }
}

impl Player for AlphaBetaPlayer {
    fn name(&self) -> &str {
        &self.name
    }

    fn choose(&mut self, game: &Game, limit: Option<Limit>) -> Result<Choice, PlayerError> {
        let started = Instant::now();
        check_playable(game)?;
        check_limit(limit)?;
        let (depth, millis) = match limit {
            Some(Limit::Depth(d)) => (Some(d), None),
            Some(Limit::Millis(ms)) => (None, Some(ms)),
            Some(l @ Limit::Simulations(_)) => {
                return Err(PlayerError::UnsupportedLimit {
                    player: self.name.clone(),
                    limit: l,
                });
            }
            None => (self.config.depth, self.config.millis),
        };
        let max_depth = match (depth, millis) {
            (Some(d), _) => d,
            (None, Some(_)) => MAX_DEPTH,
            (None, None) => AlphaBetaConfig::DEFAULT_DEPTH,
        };
        // A time too far away to represent is no time limit.
        let deadline = millis.and_then(|ms| started.checked_add(Duration::from_millis(ms)));
        // A turn found in the tables, or a forced one, records no nodes.
        if let Some(record) = self.recorded.as_mut() {
            record.clear();
        }
        if let Some(leaf) = self.leaf.as_mut() {
            *leaf = None;
        }
        // Without a clock the tables' distances are waited for (the game replays exactly).
        if let Some(choice) = crate::tables::table_choice(&self.tables, game, deadline.is_none()) {
            self.after_last_turn = game.position().try_play_turn(&choice.turn).ok();
            return Ok(choice);
        }
        self.sync_history(game);
        let found = self.search(game, max_depth, deadline);
        self.after_last_turn = game.position().try_play_turn(&found.turn).ok();
        if let (Some(slot), None, Some(depth), Some(score)) =
            (self.leaf.as_mut(), deadline, found.depth, found.score)
            && score.abs() < WIN_BOUND
            && search::table_probe_of(score).is_none()
        {
            *slot = pv::leaf(
                &self.tt,
                &self.eval,
                game.position(),
                (&found.turn, score),
                depth,
                self.config.quiescence,
            );
        }
        Ok(Choice {
            turn: found.turn,
            info: ChoiceInfo {
                depth: found.depth,
                score: found.score.map(score_of),
                nodes: found.nodes,
                elapsed: started.elapsed(),
            },
        })
    }

    fn new_game(&mut self) {
        self.tt.clear();
        self.history.clear();
        self.after_last_turn = None;
    }

    fn set_stop(&mut self, stop: Stop) {
        self.stop = stop;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fanorona_engine::Rules;

    #[test]
    fn remembers_the_turn_start_positions_of_a_game_it_plays() {
        // One stone each, far apart: nothing can be captured, every turn is a paika step.
        let start: Position = "8B/9/9/9/W8 w".parse().unwrap();
        let mut game = Game::from_position(start, Rules::default());
        let mut player = AlphaBetaPlayer::new(AlphaBetaConfig {
            depth: Some(1),
            ..AlphaBetaConfig::default()
        });
        let mut seen = vec![game.position().hash()];
        for _ in 0..3 {
            let choice = player.choose(&game, None).unwrap();
            let hashes: Vec<u64> = player.history.iter().map(|e| e.hash).collect();
            assert_eq!(hashes, seen);
            game.play_turn(&choice.turn).unwrap();
            seen.push(game.position().hash());
            let reply = game.position().legal_turns()[0];
            game.play_turn(&reply).unwrap();
            seen.push(game.position().hash());
        }
        // A game it did not follow: only the root (and how often it occurred) is known.
        let other = Game::from_position(start, Rules::default());
        player.choose(&other, None).unwrap();
        assert_eq!(player.history.len(), 1);
    }
}
