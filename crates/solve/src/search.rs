//! Depth-first proof-number search (df-pn, Nagai 2002) over whole turns, with the 1 + epsilon
//! threshold of Pawlewicz and Lew (2007) and the endgame tables as leaves.
//!
//! One search answers one question about the side to move at its root, the *attacker*: does it
//! win ([`Goal::Win`]), or does it at least draw ([`Goal::NotLose`])? A proof is a strategy
//! for the attacker; a disproof one for the other side (it draws or wins). Either is turned
//! into a [`Claim`] for a certificate.
//!
//! A node is a turn-start position with its no-capture counter. Every turn either captures or
//! raises the counter, and the counter's limit ends the game, so the graph has no cycles and
//! a transposition table keyed by position and counter is sound. Repetition is left out: a
//! side that wins under these rules wins with repetition too (docs/solve.md), and a side that
//! does not lose without it does not lose with it.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use fanorona_engine::{Color, Position, Rules, Turn};
use fanorona_eval::EvalNet;
use fanorona_tablebase::{ProbeError, Tablebase, Wdl};

use crate::certificate::{Claim, MAX_TURNS, NodeKey, Strategy};
use crate::check::Met;
use crate::table::{Edges, Holds, INFINITE, Table};

/// What the attacker (the side to move at the root) is to prove.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Goal {
    /// It wins.
    Win,
    /// It wins or draws.
    NotLose,
}

impl Goal {
    /// Whether `result` (for the attacker) meets the goal.
    pub fn met(self, result: Wdl) -> bool {
        match self {
            Goal::Win => result == Wdl::Win,
            Goal::NotLose => result >= Wdl::Draw,
        }
    }

    /// What a proof gives the attacker at least.
    pub fn proven(self) -> Wdl {
        match self {
            Goal::Win => Wdl::Win,
            Goal::NotLose => Wdl::Draw,
        }
    }

    /// What a disproof gives the other side at least.
    pub fn disproven(self) -> Wdl {
        match self {
            Goal::Win => Wdl::Draw,
            Goal::NotLose => Wdl::Win,
        }
    }

    /// `win` or `not-lose`.
    pub fn name(self) -> &'static str {
        match self {
            Goal::Win => "win",
            Goal::NotLose => "not-lose",
        }
    }
}

/// The answer to one question.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The attacker meets the goal.
    Proven,
    /// It does not: the other side has a strategy against it.
    Disproven,
    /// The budget ran out first.
    Unknown,
}

/// Why a search stopped without an answer it could trust.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SolveError {
    /// The position is mid-chain (a proof starts at a turn start).
    #[error("the position is in the middle of a capture chain; give a turn start")]
    MidChain,
    /// The rules have no no-progress limit: the graph of positions would have cycles.
    #[error("a proof needs the no-progress rule (a limit above 0)")]
    NoLimit,
    /// The tables could not be read.
    #[error("the endgame tables: {0}")]
    Tables(String),
    /// A proof the search had found could not be found again (a bug if ever seen).
    #[error("the proof of {0} was lost while writing the certificate")]
    Lost(String),
    /// The table is too small to hold the proof's strategy: reading it meant searching the
    /// same positions again and again (the value stands; the certificate needs more memory).
    #[error(
        "the table is too small to hold the proof's strategy: reading it took more than {0} nodes of searching again; give more memory, or more nodes to read it (--strategy-nodes)"
    )]
    TooSmall(u64),
}

/// How a search runs.
#[derive(Clone)]
pub struct SolveOptions {
    /// The rules (their no-progress limit must be above 0).
    pub rules: Rules,
    /// Memory for the transposition table, in bytes.
    pub table_bytes: usize,
    /// Stop after this many expanded nodes.
    pub max_nodes: Option<u64>,
    /// Stop at this time.
    pub deadline: Option<Instant>,
    /// Stop when this is set (Ctrl-C).
    pub stop: Option<Arc<AtomicBool>>,
    /// The evaluation that orders the search (the initial proof and disproof numbers of a new
    /// node); `None`: every new node starts at 1 and 1.
    pub eval: Option<Arc<EvalNet>>,
    /// The 1 + epsilon of the child's threshold (0.25: a quarter more than the second best).
    pub epsilon: f32,
    /// Write the certificate of what is proven ([`crate::solve`]); without it only the turn
    /// at the root is read from the proof.
    pub certificate: bool,
    /// Ask only this question, on one thread with all of the memory ([`crate::solve`]);
    /// `None`: both at once. One question is enough where only one half of a value is wanted
    /// (a split proof: "the other side does not lose" after each of the mover's turns).
    pub only: Option<Goal>,
    /// Nodes that reading the certificate's strategy may search again, past which it gives up
    /// with [`SolveError::TooSmall`]; `None`: four times the search's own nodes, at least two
    /// million. A search seeded or resumed from a saved one has searched little itself, while
    /// the strategy of its proof can need millions of positions searched again (the saved
    /// entries are the solved positions, not what proved them).
    pub strategy_nodes: Option<u64>,
}

impl Default for SolveOptions {
    fn default() -> Self {
        SolveOptions {
            rules: Rules::default(),
            table_bytes: 64 << 20,
            max_nodes: None,
            deadline: None,
            stop: None,
            eval: None,
            epsilon: 0.25,
            certificate: true,
            only: None,
            strategy_nodes: None,
        }
    }
}

/// Where a search stands, for progress lines.
#[derive(Clone, Copy, Debug)]
pub struct Progress {
    /// Nodes expanded.
    pub nodes: u64,
    /// The root's proof number (for the attacker).
    pub root_pn: u32,
    /// The root's disproof number.
    pub root_dn: u32,
    /// Entries in the transposition table.
    pub entries: usize,
    /// Entries it can hold.
    pub capacity: usize,
    /// Solved entries written into it so far (proven plus disproven, counted as stored).
    pub solved: u64,
    /// Time since the search began.
    pub elapsed: Duration,
    /// While the certificate's strategy is read: the positions given a turn so far and those
    /// visited (`None` while searching).
    pub strategy: Option<(usize, usize)>,
}

/// A child of a node being searched.
struct Kid {
    pos: Position,
    key: u64,
    /// Its numbers as this node last saw them (attacker's view; exact when the rules or the
    /// tables decide it).
    nums: (u32, u32),
}

type Reporter = Box<dyn FnMut(&Progress) + Send>;

/// One question's search: its table, counters and budget.
pub struct Prover {
    tables: Option<Arc<Tablebase>>,
    options: SolveOptions,
    goal: Goal,
    attacker: Color,
    table: Table,
    /// Results over every counter of a placement, from proofs at one counter.
    edges: Edges,
    nodes: u64,
    solved: u64,
    started: Instant,
    /// Calls of `out_of_budget` until it looks at the clock again (counted in calls, not
    /// nodes, so that the clock is read even while no node is expanded).
    next_look: u32,
    stopped: bool,
    failure: Option<SolveError>,
    root_key: u64,
    reporter: Option<(Duration, Instant, Reporter)>,
    /// While a strategy is read: the node count at which its searches again give up.
    again_limit: Option<u64>,
    /// The searches again may expand this many times the search's own nodes, and at least
    /// `again_floor` (4 and 2 million, or 0 and [`SolveOptions::strategy_nodes`]; tests lower
    /// them).
    again_factor: u64,
    again_floor: u64,
}

/// The key of a placement (stones and side to move), whatever its counter.
fn placement_key(pos: &Position) -> u64 {
    let mut z = pos.hash() ^ 0x5851_F42D_4C95_7F2D;
    z = (z ^ (z >> 33)).wrapping_mul(0xFF51_AFD7_ED55_8CCD);
    z ^= z >> 33;
    z.max(1)
}

/// The search's key of a turn-start position: its hash, mixed with the no-capture counter.
pub fn node_key(pos: &Position) -> u64 {
    let mut z =
        pos.hash() ^ (u64::from(pos.no_capture_turns()) + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    // SplitMix64's finaliser: the table picks buckets from the high bits.
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^= z >> 31;
    z.max(1)
}

/// The evaluation's score (in hundredths of a stone) over which a new node's proof or
/// disproof number doubles: a tenth of a stone, so the evaluation's side of the goal's margin
/// all but decides which of the two starts cheap. Nodes to prove two parts of the start
/// position fell by 46-58% from 150 (docs/solve.md, "Ordering by the evaluation, sharper").
const ORDER_SCALE: f32 = 10.0;

/// The most doublings either way: a new node's numbers lie between 1 and 256.
const ORDER_DOUBLINGS: f32 = 8.0;

const PROVEN: (u32, u32) = (0, INFINITE);
const DISPROVEN: (u32, u32) = (INFINITE, 0);

impl Prover {
    /// A search for `goal` with `tables` as leaves.
    pub fn new(tables: Option<Arc<Tablebase>>, goal: Goal, options: SolveOptions) -> Prover {
        // An eighth of the memory for the placements' edges, the rest for the table.
        let table = Table::with_bytes(options.table_bytes / 8 * 7);
        let (proven, disproven) = match goal {
            Goal::Win => (Holds::AtOrBelow, Holds::AtOrAbove),
            Goal::NotLose => (Holds::AtOrAbove, Holds::AtOrBelow),
        };
        let edges = Edges::with_bytes(options.table_bytes / 8, proven, disproven);
        let (again_factor, again_floor) = match options.strategy_nodes {
            Some(n) => (0, n),
            None => (4, 2_000_000),
        };
        Prover {
            tables,
            options,
            goal,
            attacker: Color::White,
            table,
            edges,
            nodes: 0,
            solved: 0,
            started: Instant::now(),
            next_look: 0,
            stopped: false,
            failure: None,
            root_key: 0,
            reporter: None,
            again_limit: None,
            again_factor,
            again_floor,
        }
    }

    /// Calls `report` about every `every` while searching.
    pub fn on_progress(&mut self, every: Duration, report: impl FnMut(&Progress) + Send + 'static) {
        self.reporter = Some((every, Instant::now(), Box::new(report)));
    }

    /// The question.
    pub fn goal(&self) -> Goal {
        self.goal
    }

    /// Nodes expanded so far.
    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    /// Where the search stands now.
    pub fn progress(&self) -> Progress {
        let (root_pn, root_dn) = self.table.get(self.root_key).unwrap_or((1, 1));
        Progress {
            nodes: self.nodes,
            root_pn,
            root_dn,
            entries: self.table.used(),
            capacity: self.table.capacity(),
            solved: self.solved,
            elapsed: self.started.elapsed(),
            strategy: None,
        }
    }

    /// Solved positions to save (key, proven), for a later run to resume from.
    pub fn solved_entries(&self) -> Vec<(u64, bool)> {
        self.table.solved().collect()
    }

    /// Puts solved positions saved by an earlier run of the same question back.
    pub fn load_solved(&mut self, entries: &[(u64, bool)]) {
        for &(key, proven) in entries {
            let (pn, dn) = if proven { PROVEN } else { DISPROVEN };
            self.table.put(key, pn, dn, u64::MAX / 2);
        }
    }

    /// The result for the side to move of a position the rules or the tables decide (without
    /// repetition: see the module's docs).
    fn decided(&mut self, pos: &Position) -> Option<Wdl> {
        let us = pos.side_to_move();
        if pos.stones(us).is_empty() {
            return Some(Wdl::Loss);
        }
        if pos.stones(!us).is_empty() {
            return Some(Wdl::Win);
        }
        if !pos.has_legal_action() {
            return Some(Wdl::Loss);
        }
        if pos.no_capture_turns() >= self.options.rules.no_progress_limit {
            return Some(Wdl::Draw);
        }
        let tb = self.tables.as_ref()?;
        if !tb.covers(pos) {
            return None;
        }
        match tb.probe(pos) {
            Ok(p) => Some(p.wdl),
            Err(ProbeError::NotCovered { .. }) => None,
            Err(e) => {
                self.failure = Some(SolveError::Tables(e.to_string()));
                self.stopped = true;
                None
            }
        }
    }

    /// Whether a decided position (result for its side to move) meets the goal.
    fn meets(&self, pos: &Position, result: Wdl) -> bool {
        let for_attacker = if pos.side_to_move() == self.attacker {
            result
        } else {
            result.flip()
        };
        self.goal.met(for_attacker)
    }

    /// The numbers a new node starts with: from the evaluation when there is one (a position
    /// that looks good for the attacker is cheap to prove and dear to disprove): 2 to the power
    /// of the score's distance from the goal's margin over [`ORDER_SCALE`], at most
    /// [`ORDER_DOUBLINGS`] either way.
    fn initial(&self, pos: &Position) -> (u32, u32) {
        let Some(eval) = &self.options.eval else {
            return (1, 1);
        };
        let score = eval.evaluate(pos);
        let score = if pos.side_to_move() == self.attacker {
            score
        } else {
            -score
        };
        let target = match self.goal {
            Goal::Win => 100,
            Goal::NotLose => -100,
        };
        let x = ((score - target) as f32 / ORDER_SCALE).clamp(-ORDER_DOUBLINGS, ORDER_DOUBLINGS);
        let pn = 2f32.powf(-x).round().max(1.0) as u32;
        let dn = 2f32.powf(x).round().max(1.0) as u32;
        (pn, dn)
    }

    /// Answers the question for `root`.
    pub fn prove(&mut self, root: &Position) -> Result<Verdict, SolveError> {
        if !root.is_turn_start() {
            return Err(SolveError::MidChain);
        }
        if self.options.rules.no_progress_limit == 0 {
            return Err(SolveError::NoLimit);
        }
        self.attacker = root.side_to_move();
        self.root_key = node_key(root);
        self.stopped = false;
        let root = *root;
        let (pn, dn) = run_deep(|| self.numbers_of(&root));
        if let Some(e) = self.failure.take() {
            return Err(e);
        }
        Ok(match (pn, dn) {
            (0, _) => Verdict::Proven,
            (_, 0) => Verdict::Disproven,
            _ => Verdict::Unknown,
        })
    }

    /// Searches `pos` until it is solved or the budget runs out; its numbers.
    fn numbers_of(&mut self, pos: &Position) -> (u32, u32) {
        if let Some(result) = self.decided(pos) {
            return if self.meets(pos, result) {
                PROVEN
            } else {
                DISPROVEN
            };
        }
        let key = node_key(pos);
        let attacker_moves = pos.side_to_move() == self.attacker;
        let own = |a: u32, b: u32| if attacker_moves { (a, b) } else { (b, a) };
        let (mut phi, mut delta) = {
            let (pn, dn) = self.table.get(key).unwrap_or((1, 1));
            own(pn, dn)
        };
        // Thresholds that double rather than infinite ones: the search comes back to this
        // node now and then, so its numbers are in the table for the progress lines.
        loop {
            let th_phi = phi.saturating_mul(2).max(phi + 1).min(INFINITE);
            let th_delta = delta.saturating_mul(2).max(delta + 1).min(INFINITE);
            (phi, delta) = self.mid(pos, key, th_phi, th_delta);
            if phi == 0 || delta == 0 || self.stopped {
                return own(phi, delta);
            }
        }
    }

    /// Whether to stop now; looks at the clock and the flag every few thousand nodes.
    fn out_of_budget(&mut self) -> bool {
        if self.stopped {
            return true;
        }
        if self.options.max_nodes.is_some_and(|n| self.nodes >= n) {
            self.stopped = true;
            return true;
        }
        self.next_look = self.next_look.saturating_sub(1);
        if self.next_look == 0 {
            self.next_look = 4096;
            let now = Instant::now();
            if self.options.deadline.is_some_and(|d| now >= d)
                || self
                    .options
                    .stop
                    .as_ref()
                    .is_some_and(|s| s.load(Ordering::Relaxed))
            {
                self.stopped = true;
                return true;
            }
            self.report_if_due(now, None);
        }
        false
    }

    /// Calls the progress callback when it is due; `strategy` while a strategy is read.
    fn report_if_due(&mut self, now: Instant, strategy: Option<(usize, usize)>) {
        let due =
            matches!(&self.reporter, Some((every, last, _)) if now.duration_since(*last) >= *every);
        if due {
            let progress = Progress {
                strategy,
                ..self.progress()
            };
            if let Some((_, last, report)) = &mut self.reporter {
                *last = now;
                report(&progress);
            }
        }
    }

    /// The children of a position not decided itself, each decided or with its first numbers.
    fn children(&mut self, pos: &Position) -> Vec<Kid> {
        let mut kids = Vec::new();
        pos.for_each_turn(|_, child| {
            kids.push(Kid {
                pos: *child,
                key: node_key(child),
                nums: (1, 1),
            });
        });
        kids.sort_unstable_by_key(|k| k.key);
        kids.dedup_by_key(|k| k.key);
        self.table.touch(kids.iter().map(|k| k.key));
        self.edges.touch(kids.iter().map(|k| placement_key(&k.pos)));
        for kid in &mut kids {
            if let Some(result) = self.decided(&kid.pos) {
                kid.nums = if self.meets(&kid.pos, result) {
                    PROVEN
                } else {
                    DISPROVEN
                };
            } else {
                kid.nums = match self.table.get(kid.key) {
                    Some(nums) => nums,
                    None => match self.edge_result(&kid.pos) {
                        Some(true) => PROVEN,
                        Some(false) => DISPROVEN,
                        None => self.initial(&kid.pos),
                    },
                };
            }
        }
        kids
    }

    /// A proof or a disproof of the same placement at another counter that covers this one.
    fn edge_result(&self, pos: &Position) -> Option<bool> {
        let counter = pos.no_capture_turns().min(255) as u8;
        self.edges.get(placement_key(pos), counter)
    }

    /// The multiple-iterative-deepening step of df-pn: searches `pos` (not decided) until its
    /// own numbers reach a threshold. Thresholds and the return value are the node's own phi and
    /// delta (proof and disproof numbers at the attacker's nodes, the other way round at the
    /// other side's); the table stores the attacker's view.
    fn mid(&mut self, pos: &Position, key: u64, th_phi: u32, th_delta: u32) -> (u32, u32) {
        let attacker_moves = pos.side_to_move() == self.attacker;
        let own = |pn: u32, dn: u32| if attacker_moves { (pn, dn) } else { (dn, pn) };
        // Reached by another path and already enough (solved, or over a threshold).
        if let Some((pn, dn)) = self.table.get(key) {
            let (phi, delta) = own(pn, dn);
            if phi >= th_phi || delta >= th_delta {
                return (phi, delta);
            }
        }
        let work_before = self.nodes;
        self.nodes += 1;
        let mut kids = self.children(pos);
        let (mut phi, mut delta);
        loop {
            // The node's phi is the least delta of a kid (a kid's delta is its phi from the
            // node's side); its delta the sum of the kids' phis.
            phi = INFINITE;
            delta = 0u32;
            let (mut best, mut best_delta, mut second_delta, mut best_phi) =
                (0usize, INFINITE, INFINITE, 0u32);
            // The kids' numbers as this node last saw them: a kid reached meanwhile by
            // another path shows its news when it is searched from here next.
            for (i, kid) in kids.iter().enumerate() {
                let (pn, dn) = kid.nums;
                // The kid moves for the other side: its own phi/delta are the other way round.
                let (k_delta, k_phi) = own(pn, dn);
                delta = add_numbers(delta, k_phi);
                if k_delta < best_delta {
                    second_delta = best_delta;
                    best_delta = k_delta;
                    best = i;
                    best_phi = k_phi;
                } else if k_delta < second_delta {
                    second_delta = k_delta;
                }
            }
            phi = phi.min(best_delta);
            if phi >= th_phi || delta >= th_delta || self.out_of_budget() {
                break;
            }
            let widened = ((second_delta as f32) * (1.0 + self.options.epsilon)).ceil() as u32;
            let kid_th_delta = th_phi.min(widened.max(second_delta.saturating_add(1)));
            let kid_th_phi = th_delta.saturating_sub(delta - best_phi).min(INFINITE);
            let kid = &kids[best];
            let (kpos, kkey) = (kid.pos, kid.key);
            let (k_phi, k_delta) = self.mid(&kpos, kkey, kid_th_phi, kid_th_delta);
            // Back to the attacker's view for the kid (whose side is the other one).
            let kid_view = if attacker_moves {
                (k_delta, k_phi)
            } else {
                (k_phi, k_delta)
            };
            kids[best].nums = kid_view;
        }
        let (pn, dn) = own(phi, delta);
        if pn == 0 || dn == 0 {
            self.solved += 1;
            let counter = pos.no_capture_turns().min(255) as u8;
            self.edges.put(placement_key(pos), counter, pn == 0);
        }
        self.table.put(key, pn, dn, self.nodes - work_before);
        (phi, delta)
    }

    /// Whether the numbers of a position show what the claim needs: proven for the attacker's
    /// claim, disproven for the other side's.
    fn settled(&mut self, pos: &Position, for_attacker: bool) -> bool {
        let (pn, dn) = match self.decided(pos) {
            Some(r) if self.meets(pos, r) => PROVEN,
            Some(_) => DISPROVEN,
            None => match (self.table.get(node_key(pos)), self.edge_result(pos)) {
                (Some(nums), _) => nums,
                (None, Some(true)) => PROVEN,
                (None, Some(false)) => DISPROVEN,
                (None, None) => (1, 1),
            },
        };
        if for_attacker { pn == 0 } else { dn == 0 }
    }

    /// Settles `pos` for the claim, searching it again when the table has let it go.
    fn settle(&mut self, pos: &Position, for_attacker: bool) -> bool {
        if self.settled(pos, for_attacker) {
            return true;
        }
        let (pn, dn) = self.search_again(pos);
        if for_attacker { pn == 0 } else { dn == 0 }
    }

    /// Searches `pos` to the end, whatever the budget but the strategy's own (for the
    /// certificate of a proof already found); past that, the search records
    /// [`SolveError::TooSmall`].
    fn search_again(&mut self, pos: &Position) -> (u32, u32) {
        if let Some(limit) = self.again_limit.filter(|&l| self.nodes >= l) {
            self.failure.get_or_insert(SolveError::TooSmall(limit));
            return (1, 1);
        }
        let saved = std::mem::replace(&mut self.options.max_nodes, self.again_limit);
        let deadline = self.options.deadline.take();
        let stop = self.options.stop.take();
        self.stopped = false;
        let numbers = self.numbers_of(pos);
        if let Some(limit) = self.again_limit.filter(|&l| self.nodes >= l) {
            self.failure.get_or_insert(SolveError::TooSmall(limit));
        }
        self.options.max_nodes = saved;
        self.options.deadline = deadline;
        self.options.stop = stop;
        numbers
    }

    /// How much a settled position the strategy does not cover yet would add to it, as a
    /// rank: 0 for one ended by the rules or the tables, else the work level its table entry
    /// keeps (the nodes its proof took, about 4 levels a doubling), and past every level for
    /// one only its placement's edge settles (its proof is gone from the table and would be
    /// searched again). Choosing the cheapest keeps strategies small.
    fn proof_cost(&mut self, pos: &Position) -> u16 {
        if self.decided(pos).is_some() {
            return 0;
        }
        self.table.level(node_key(pos)).map_or(256, u16::from)
    }

    /// A turn of the claim's side at `pos` (one of `options`) whose position is settled for
    /// the claim, the cheapest to prove of those ([`Prover::proof_cost`]: a position already in
    /// the strategy, `seen`, or ended by the rules or the tables, before one with little work
    /// below it). When the table has let go of every such position, `pos` itself is searched
    /// again (the search goes straight for the turn that settles it; trying the turns one by
    /// one could spend a whole search on a turn that loses).
    fn pick(
        &mut self,
        pos: &Position,
        options: &[(Turn, Position)],
        for_attacker: bool,
        seen: Option<&Met>,
    ) -> Option<usize> {
        let found = |me: &mut Self| {
            let mut best: Option<(u16, usize)> = None;
            for (i, (_, c)) in options.iter().enumerate() {
                // A position the strategy covers already holds the claim (it is walked from
                // the covering counter): the cheapest there is.
                if seen.is_some_and(|s| s.covered(&NodeKey::of(c))) {
                    return Some(i);
                }
                if !me.settled(c, for_attacker) {
                    continue;
                }
                let cost = me.proof_cost(c);
                if best.is_none_or(|(b, _)| cost < b) {
                    best = Some((cost, i));
                    if cost == 0 {
                        break;
                    }
                }
            }
            best.map(|(_, i)| i)
        };
        if let Some(hit) = found(self) {
            return Some(hit);
        }
        // Its own entry may still say "solved" and end the search at once: drop it first,
        // and search it whatever its placement's edge says (the edge settles it, but names no
        // turn).
        self.table.forget(node_key(pos));
        self.search_again(pos);
        found(self).or_else(|| {
            options
                .iter()
                .position(|(_, c)| self.settle(c, for_attacker))
        })
    }

    /// After a proof, a turn of the attacker at `root` that keeps what was proven (without
    /// writing the whole certificate); `None` when the root is decided without a turn.
    pub fn proving_turn(&mut self, root: &Position) -> Option<Turn> {
        self.attacker = root.side_to_move();
        if self.decided(root).is_some() {
            return None;
        }
        let mut options: Vec<(Turn, Position)> = Vec::new();
        root.for_each_turn(|t, c| options.push((*t, *c)));
        let root = *root;
        self.again_limit = Some(self.again_budget());
        let turn = run_deep(|| self.pick(&root, &options, true, None)).map(|i| options[i].0);
        self.again_limit = None;
        self.failure = None;
        turn
    }

    /// Where the searches again that read a strategy give up: four times the search's own
    /// nodes more, and at least two million more (a strategy the table holds costs none; one
    /// it cannot hold would be searched again without end).
    fn again_budget(&self) -> u64 {
        let more = self
            .nodes
            .saturating_mul(self.again_factor)
            .max(self.again_floor);
        self.nodes.saturating_add(more)
    }

    /// The strategy the verdict rests on, as a certificate's claim: the attacker's after a
    /// proof, the other side's after a disproof. Parts of the proof the table let go are
    /// searched again.
    pub fn claim(&mut self, root: &Position, verdict: Verdict) -> Result<Claim, SolveError> {
        let for_attacker = match verdict {
            Verdict::Proven => true,
            Verdict::Disproven => false,
            Verdict::Unknown => {
                return Err(SolveError::Lost("an unanswered question".into()));
            }
        };
        self.attacker = root.side_to_move();
        let side = if for_attacker {
            self.attacker
        } else {
            !self.attacker
        };
        let at_least = if for_attacker {
            self.goal.proven()
        } else {
            self.goal.disproven()
        };
        let root = *root;
        self.again_limit = Some(self.again_budget());
        let turns = run_deep(|| self.strategy(&root, side, for_attacker));
        self.again_limit = None;
        let turns = turns?;
        Ok(Claim {
            side,
            at_least,
            turns,
        })
    }

    fn strategy(
        &mut self,
        root: &Position,
        side: Color,
        for_attacker: bool,
    ) -> Result<Strategy, SolveError> {
        // Packed keys and entries, 16 bytes a position each: a strategy of tens of millions of
        // positions has to fit beside the table (a map of keys to turns took about 300 bytes
        // a position and ran out of memory at 56 million).
        // A position is walked unless the strategy covers it already: the same placement met
        // at a counter where the claim holds for this one too (`check::covers`). The checker
        // walks the same way, and plays a covering counter's turn where a position has none.
        let at_least = if for_attacker {
            self.goal.proven()
        } else {
            self.goal.disproven()
        };
        let mut turns: Vec<u128> = Vec::new();
        let mut seen = Met::new(at_least);
        let mut stack = vec![*root];
        seen.first_time(&NodeKey::of(root));
        // Why a strategy could not be read at `pos`: the table too small (recorded by the
        // search again), else a proof lost.
        let lost = |me: &mut Self, pos: &Position| {
            me.failure
                .take()
                .unwrap_or_else(|| SolveError::Lost(fanorona_engine::format_position(pos)))
        };
        let mut popped = 0u64;
        while let Some(pos) = stack.pop() {
            popped += 1;
            if popped.is_multiple_of(1024) {
                self.report_if_due(Instant::now(), Some((turns.len(), seen.len())));
            }
            if self.decided(&pos).is_some() {
                if !self.settled(&pos, for_attacker) {
                    return Err(lost(self, &pos));
                }
                continue;
            }
            let mut options: Vec<(Turn, Position)> = Vec::new();
            pos.for_each_turn(|t, c| options.push((*t, *c)));
            let mut next = Vec::new();
            if pos.side_to_move() == side {
                let Some(index) = self.pick(&pos, &options, for_attacker, Some(&seen)) else {
                    return Err(lost(self, &pos));
                };
                if index >= MAX_TURNS {
                    return Err(SolveError::Lost(format!(
                        "{}: turn {index} is past the {MAX_TURNS} a strategy can name",
                        fanorona_engine::format_position(&pos)
                    )));
                }
                turns.push(Strategy::entry(&NodeKey::of(&pos), index));
                next.push(options[index].1);
            } else {
                for (_, child) in options {
                    if seen.covered(&NodeKey::of(&child)) {
                        continue;
                    }
                    if !self.settle(&child, for_attacker) {
                        return Err(lost(self, &child));
                    }
                    next.push(child);
                }
            }
            for child in next {
                if seen.first_time(&NodeKey::of(&child)) {
                    stack.push(child);
                }
            }
        }
        if let Some(e) = self.failure.take() {
            return Err(e);
        }
        drop(seen);
        Ok(Strategy::from_entries(turns))
    }
}

/// The sum of two proof (or disproof) numbers. It saturates just below infinity: an infinite
/// number means solved, never merely large (sums over a graph with many paths to one node can
/// grow past any bound, and a node whose sum read as infinite looked solved to its parent
/// while its own search had nothing left to do: the search spun in place).
fn add_numbers(a: u32, b: u32) -> u32 {
    if a >= INFINITE || b >= INFINITE {
        INFINITE
    } else {
        a.saturating_add(b).min(INFINITE - 1)
    }
}

/// Runs `f` on a thread with a deep stack (the search recurses once per turn of a line, and a
/// line can run to a few thousand turns).
fn run_deep<T: Send>(f: impl FnOnce() -> T + Send) -> T {
    std::thread::scope(|s| {
        std::thread::Builder::new()
            .name("solve".into())
            .stack_size(256 << 20)
            .spawn_scoped(s, f)
            .expect("a thread for the search")
            .join()
            .expect("the search does not panic")
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use fanorona_engine::Setup;
    use fanorona_testkit::{Rng, random_position, random_walk};

    #[test]
    fn a_sum_of_finite_numbers_never_reads_as_solved() {
        assert_eq!(add_numbers(3, 4), 7);
        assert_eq!(add_numbers(INFINITE - 5, INFINITE - 5), INFINITE - 1);
        assert_eq!(
            add_numbers(INFINITE / 2 + 1, INFINITE / 2 + 1),
            INFINITE - 1
        );
        assert_eq!(add_numbers(INFINITE, 1), INFINITE);
        assert_eq!(add_numbers(0, INFINITE), INFINITE);
    }

    /// A proof whose table let go of everything: its strategy is read by searching again,
    /// within the reading's budget, and a budget too small says so instead of searching on.
    #[test]
    fn reading_a_strategy_the_table_let_go_stays_within_its_budget() {
        let pos = fanorona_engine::parse_position("9/9/3B5/9/WW7 w 0 1").unwrap();
        let options = SolveOptions {
            table_bytes: 8 << 20,
            ..SolveOptions::default()
        };
        let forget = |p: &mut Prover| {
            p.table = Table::with_bytes(options.table_bytes / 8 * 7);
            p.edges =
                Edges::with_bytes(options.table_bytes / 8, Holds::AtOrBelow, Holds::AtOrAbove);
        };
        let mut prover = Prover::new(None, Goal::Win, options.clone());
        assert_eq!(prover.prove(&pos), Ok(Verdict::Proven));
        let searched = prover.nodes();
        forget(&mut prover);
        let claim = prover.claim(&pos, Verdict::Proven).unwrap();
        assert!(!claim.turns.is_empty());
        assert!(prover.nodes() > searched, "the strategy was searched again");
        // No room to search again: the reading stops at once and says why.
        prover.again_factor = 0;
        prover.again_floor = 1_000;
        forget(&mut prover);
        let before = prover.nodes();
        assert!(matches!(
            prover.claim(&pos, Verdict::Proven),
            Err(SolveError::TooSmall(_))
        ));
        assert!(prover.nodes() <= before + 1_000 + 1);
    }

    /// A table as full of solved entries as it can hold (seeded, as a search seeded from a
    /// saved one is, here with positions this search never meets; most buckets full of them):
    /// the search keeps its unsolved numbers in the spill and disproves the win at about six
    /// times the nodes of a search on an empty table. Without the spill, a position whose
    /// bucket was full was found back at its first numbers on every visit and searched again
    /// from there: no answer in fifty times the nodes.
    #[test]
    fn a_table_full_of_solved_entries_still_holds_the_search() {
        let pos = fanorona_engine::parse_position("9/9/3B5/9/WW7 w 40 1").unwrap();
        let options = SolveOptions {
            table_bytes: 1 << 20,
            ..SolveOptions::default()
        };
        let mut plain = Prover::new(None, Goal::Win, options.clone());
        assert_eq!(plain.prove(&pos), Ok(Verdict::Disproven));
        let mut seeded = Prover::new(
            None,
            Goal::Win,
            SolveOptions {
                max_nodes: Some(plain.nodes() * 12),
                ..options
            },
        );
        let capacity = seeded.table.capacity() as u64;
        let mut rng = Rng::new(11);
        let fake: Vec<(u64, bool)> = (0..capacity)
            .map(|i| (rng.next_u64() | 1, i % 2 == 0))
            .collect();
        seeded.load_solved(&fake);
        assert!(seeded.table.used() as u64 > capacity * 3 / 5);
        assert_eq!(
            seeded.prove(&pos),
            Ok(Verdict::Disproven),
            "{} nodes, {} on an empty table",
            seeded.nodes(),
            plain.nodes()
        );
    }

    fn small() -> SolveOptions {
        SolveOptions {
            table_bytes: 1 << 12,
            ..SolveOptions::default()
        }
    }

    /// A strategy takes the cheapest of the turns that keep the claim: one that ends the game
    /// as claimed, else one whose position the strategy already holds, else the one with the
    /// least work below it in the table; not the first in the engine's order, which made the
    /// strategies of the start position's parts tens of times larger than they needed to be.
    #[test]
    fn a_strategy_takes_the_cheapest_turn_that_keeps_the_claim() {
        let mut rng = Rng::new(11);
        let (mut checked, mut not_first) = (0, 0);
        for n in 0..300 {
            let pos = random_position(&mut rng, 2 + n % 4, 2 + n % 3, Color::White);
            let mut options: Vec<(Turn, Position)> = Vec::new();
            pos.for_each_turn(|t, c| options.push((*t, *c)));
            if options.len() < 2 {
                continue;
            }
            let mut prover = Prover::new(
                None,
                Goal::Win,
                SolveOptions {
                    table_bytes: 16 << 20,
                    ..SolveOptions::default()
                },
            );
            prover.attacker = Color::White;
            // Every turn's position proven, the later turns with less work below them.
            for (i, (_, c)) in options.iter().enumerate() {
                prover
                    .table
                    .put(node_key(c), 0, INFINITE, 1 << (40 - i.min(30)));
            }
            let ends_as_claimed =
                |p: &mut Prover, c: &Position| p.decided(c).is_some_and(|r| p.meets(c, r));
            let ends = options
                .iter()
                .position(|(_, c)| ends_as_claimed(&mut prover, c));
            let last_open = options
                .iter()
                .rposition(|(_, c)| prover.decided(c).is_none());
            let Some(expected) = ends.or(last_open) else {
                continue;
            };
            let shown = fanorona_engine::format_position(&pos);
            assert_eq!(
                prover.pick(&pos, &options, true, None),
                Some(expected),
                "{shown}"
            );
            not_first += usize::from(expected != 0);
            checked += 1;
            // A position the strategy already holds costs nothing more, and so does one it
            // covers: the same placement met at a counter where the claim holds for this one
            // too (a win: one turn more on the counter).
            if ends.is_none() && prover.decided(&options[0].1).is_none() {
                let key = NodeKey::of(&options[0].1);
                for met in [
                    key,
                    NodeKey {
                        counter: key.counter + 1,
                        ..key
                    },
                ] {
                    let mut seen = Met::new(prover.goal().proven());
                    seen.first_time(&met);
                    assert_eq!(
                        prover.pick(&pos, &options, true, Some(&seen)),
                        Some(0),
                        "{shown}"
                    );
                }
            }
        }
        assert!(checked >= 50 && not_first >= 25, "{checked} {not_first}");
    }

    /// The search's quick end-of-game test and the checker's (the engine's `Game::outcome`,
    /// then the tables) agree on every position, at every counter.
    #[test]
    fn the_search_and_the_checker_decide_the_same_positions() {
        let tb =
            Arc::new(fanorona_tablebase::build::build_in_memory(3, 50, 2, &mut |_| {}).unwrap());
        let mut rng = Rng::new(7);
        let mut positions = Vec::new();
        for _ in 0..20 {
            positions.extend(random_walk(&mut rng, Position::start(), 300));
        }
        for n in 0..400 {
            let side = if n % 2 == 0 {
                Color::White
            } else {
                Color::Black
            };
            positions.push(random_position(&mut rng, n % 5, (n / 5) % 6, side));
        }
        let mut decided = 0;
        for (i, pos) in positions.iter().filter(|p| p.is_turn_start()).enumerate() {
            let mut setup: Setup = pos.to_setup();
            setup.no_capture_turns = [0, 49, 50, 70][i % 4];
            let pos = Position::from_setup(&setup).unwrap();
            for tables in [None, Some(Arc::clone(&tb))] {
                let mut prover = Prover::new(tables.clone(), Goal::Win, small());
                let ours = prover.decided(&pos);
                let theirs =
                    crate::check::decided(&pos, Rules::default(), tables.as_deref()).unwrap();
                assert_eq!(ours, theirs, "{}", fanorona_engine::format_position(&pos));
                decided += usize::from(ours.is_some());
            }
        }
        assert!(decided > 100, "{decided}");
    }
}
