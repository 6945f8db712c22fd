//! Descent: unbounded best-first minimax over whole turns, with completion (Cohen-Solal and
//! Cazenave, "Minimax Strikes Back", 2020), as a source of training positions for the learned
//! evaluation.
//!
//! The tree keeps a value for every position it has seen, from the side to move's view, in
//! centi-stones: the evaluation's where the position has not been expanded, the best of its
//! children's (negated) where it has. One iteration walks from the root along the best
//! child not yet *resolved* (its value exact: the rules, the tables or every child resolved),
//! expanding each position it reaches that has no children yet, down to a resolved position
//! (the end of the game, the tables, a position whose every turn is resolved or one that wins),
//! and backs the values up along the walk. Unlike alpha-beta to a fixed depth, the lines that
//! decide the value are followed to the end of the game, so the values of the tree's expanded
//! positions are backed up from far beyond where the evaluation was read.
//!
//! The tree lasts as long as the searcher (a whole game of self-play: both sides share it) and
//! every expanded position with its value is a training example ([`Descent::expanded`]).
//! Repetition is not seen inside the tree (as in the solver); the no-progress counter is part
//! of a position's key, so the tree has no cycles while the no-progress rule is on, and a walk
//! is capped at [`MAX_WALK`] turns either way.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::Arc;

use fanorona_engine::{Position, Rules, Turn};
use fanorona_tablebase::{Tablebase, Wdl};

use crate::Evaluation;

/// The value of a won position (beyond any evaluation's [`crate::LEARNED_MAX`]).
pub const WIN: i32 = 30_000;

/// The longest walk of one iteration, in turns (only reached with the no-progress rule off).
pub const MAX_WALK: usize = 512;

/// The tree's keys are mixed already: the map uses them as they are.
#[derive(Default)]
struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 << 8) | u64::from(b);
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

type Tree = HashMap<u64, Node, BuildHasherDefault<KeyHasher>>;

#[derive(Clone, Debug)]
struct Node {
    /// For the side to move, in centi-stones; `WIN`, `-WIN` or 0 where resolved by a result.
    value: i32,
    /// The value is exact.
    resolved: bool,
    /// The children's keys, once expanded (empty before).
    kids: Box<[u64]>,
}

/// A position of the tree that was expanded, with its backed-up value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DescentNode {
    /// The position (a turn start).
    pub position: Position,
    /// Its value for the side to move, in centi-stones, or `WIN` / `-WIN` / 0 where resolved
    /// by a result.
    pub value: i32,
    /// The value is exact: a proven win, loss or draw.
    pub resolved: bool,
}

/// The searcher: the tree, the evaluation and the tables.
pub struct Descent {
    eval: Evaluation,
    tables: Option<Arc<Tablebase>>,
    rules: Rules,
    tree: Tree,
    /// Expanded positions in the order they were expanded.
    expanded: Vec<(u64, Position)>,
    evaluations: u64,
}

/// A position's key in the tree: the solver's (its hash and its no-progress counter, mixed).
use fanorona_solve::node_key as key_of;

impl Descent {
    /// An empty tree searched with `eval`, `tables` (used where they fit `rules`) and `rules`.
    pub fn new(eval: Evaluation, tables: Option<Arc<Tablebase>>, rules: Rules) -> Descent {
        let tables = tables.filter(|t| t.fits(rules));
        Descent {
            eval,
            tables,
            rules,
            tree: Tree::default(),
            expanded: Vec::new(),
            evaluations: 0,
        }
    }

    /// Positions in the tree (expanded or not).
    pub fn len(&self) -> usize {
        self.tree.len()
    }

    /// The tree is empty.
    pub fn is_empty(&self) -> bool {
        self.tree.is_empty()
    }

    /// Evaluations read so far.
    pub fn evaluations(&self) -> u64 {
        self.evaluations
    }

    /// Forgets the tree.
    pub fn clear(&mut self) {
        self.tree.clear();
        self.expanded.clear();
    }

    /// The result for the side to move where the rules or the tables decide the position.
    fn decided(&self, pos: &Position) -> Option<Wdl> {
        let us = pos.side_to_move();
        if pos.stones(us).is_empty() || !pos.has_legal_action() {
            return Some(Wdl::Loss);
        }
        if pos.stones(!us).is_empty() {
            return Some(Wdl::Win);
        }
        let limit = self.rules.no_progress_limit;
        if limit > 0 && pos.no_capture_turns() >= limit {
            return Some(Wdl::Draw);
        }
        crate::tables::exact(self.tables.as_deref(), pos, true).map(|p| p.wdl)
    }

    /// Adds `pos` as a leaf if the tree does not have it; returns its key.
    fn leaf(&mut self, pos: &Position) -> u64 {
        let key = key_of(pos);
        if !self.tree.contains_key(&key) {
            let node = match self.decided(pos) {
                Some(wdl) => Node {
                    value: match wdl {
                        Wdl::Win => WIN,
                        Wdl::Draw => 0,
                        Wdl::Loss => -WIN,
                    },
                    resolved: true,
                    kids: Box::new([]),
                },
                None => {
                    self.evaluations += 1;
                    Node {
                        value: self.eval.evaluate(pos),
                        resolved: false,
                        kids: Box::new([]),
                    }
                }
            };
            self.tree.insert(key, node);
        }
        key
    }

    /// Gives the expanded node `key` its value from its children: the best of theirs for its
    /// side; resolved when a child resolved as lost for its mover wins it, or every child is
    /// resolved.
    fn back_up(&mut self, key: u64) {
        let node = &self.tree[&key];
        let (mut best, mut all_resolved, mut won) = (i32::MIN, true, false);
        for kid in node.kids.iter() {
            let k = &self.tree[kid];
            best = best.max(-k.value);
            all_resolved &= k.resolved;
            won |= k.resolved && k.value == -WIN;
        }
        let node = self
            .tree
            .get_mut(&key)
            .expect("backed-up node is in the tree");
        node.value = best;
        node.resolved = won || all_resolved;
    }

    /// Expands `pos` (key `key`): every turn's position becomes a leaf, the node takes its value.
    fn expand(&mut self, key: u64, pos: &Position) {
        let mut children = Vec::new();
        pos.for_each_turn(|_, child| children.push(*child));
        let mut kids: Vec<u64> = children.iter().map(|c| self.leaf(c)).collect();
        kids.sort_unstable();
        kids.dedup();
        self.tree
            .get_mut(&key)
            .expect("expanded node is in the tree")
            .kids = kids.into();
        self.expanded.push((key, *pos));
        self.back_up(key);
    }

    /// The child of `pos` (expanded, key `key`) the walk goes to: the best for `pos`'s side of
    /// those not resolved.
    fn walk_to(&self, key: u64, pos: &Position) -> Option<(u64, Position)> {
        let node = &self.tree[&key];
        let target = node
            .kids
            .iter()
            .filter(|k| !self.tree[*k].resolved)
            .min_by_key(|k| self.tree[*k].value)
            .copied()?;
        let mut found = None;
        pos.for_each_turn(|_, child| {
            if found.is_none() && key_of(child) == target {
                found = Some(*child);
            }
        });
        found.map(|c| (target, c))
    }

    /// One iteration from `root` (in the tree); returns the positions expanded and whether the
    /// walk was cut at [`MAX_WALK`].
    fn iterate(&mut self, root: u64, pos: &Position) -> (u32, bool) {
        let mut path = vec![root];
        let (mut key, mut at) = (root, *pos);
        let mut expanded = 0;
        while path.len() <= MAX_WALK {
            if self.tree[&key].resolved {
                break;
            }
            if self.tree[&key].kids.is_empty() {
                self.expand(key, &at);
                expanded += 1;
                continue;
            }
            match self.walk_to(key, &at) {
                Some((k, child)) => {
                    key = k;
                    at = child;
                    path.push(k);
                }
                None => break,
            }
        }
        let capped = path.len() > MAX_WALK;
        for &k in path.iter().rev() {
            if !self.tree[&k].kids.is_empty() {
                self.back_up(k);
            }
        }
        (expanded, capped)
    }

    /// Searches `pos` (a turn start, game not over) until at least `budget` positions more have
    /// been expanded or its value is resolved; returns the best turn and the root's value for
    /// its side (`None` if it has no turn).
    pub fn search(&mut self, pos: &Position, budget: u32) -> Option<(Turn, i32)> {
        let root = self.leaf(pos);
        let mut done = 0;
        while done < budget && !self.tree[&root].resolved {
            // A walk that expands nothing has still mended a node whose children were resolved
            // by other paths (its back-up marks it resolved), unless it was cut: then the walks
            // would only repeat.
            let (n, capped) = self.iterate(root, pos);
            if n == 0 && capped {
                break;
            }
            done += n;
        }
        if self.tree[&root].kids.is_empty() {
            self.expand(root, pos);
        }
        let mut best: Option<(Turn, i32)> = None;
        pos.for_each_turn(|turn, child| {
            let v = -self.tree.get(&key_of(child)).map_or(0, |n| n.value);
            if best.is_none_or(|(_, b)| v > b) {
                best = Some((*turn, v));
            }
        });
        best
    }

    /// The value of `pos` in the tree, for its side, and whether it is resolved.
    pub fn value(&self, pos: &Position) -> Option<(i32, bool)> {
        self.tree.get(&key_of(pos)).map(|n| (n.value, n.resolved))
    }

    /// Backs every expanded position's value up again from its children's, children first, so
    /// that positions that other paths have changed below are up to date (a walk backs up only
    /// its own path). The order is the game's: a turn captures (fewer stones) or raises the
    /// no-progress counter, so children come before parents when expanded positions are taken
    /// by stones, then by the counter from the highest.
    pub fn refresh(&mut self) {
        let mut order: Vec<(u32, std::cmp::Reverse<u32>, u64)> = self
            .expanded
            .iter()
            .map(|(key, p)| {
                (
                    p.occupied().count(),
                    std::cmp::Reverse(p.no_capture_turns()),
                    *key,
                )
            })
            .collect();
        order.sort_unstable();
        for (_, _, key) in order {
            self.back_up(key);
        }
    }

    /// Every expanded position with its value now, in the order they were expanded.
    pub fn expanded(&self) -> impl Iterator<Item = DescentNode> + '_ {
        self.expanded.iter().map(|(key, position)| {
            let n = &self.tree[key];
            DescentNode {
                position: *position,
                value: n.value,
                resolved: n.resolved,
            }
        })
    }
}
