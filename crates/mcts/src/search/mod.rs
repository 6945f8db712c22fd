//! Monte Carlo tree search with batched leaf evaluation: PUCT or Gumbel at the root.
//!
//! A [`Search`] owns the root position and an arena tree. It is driven step by step so that one
//! evaluator call can serve many searches (see [`crate::scheduler`]):
//!
//! 1. [`Search::start`] begins a search of [`SearchConfig::simulations`] simulations.
//! 2. [`Search::step`] selects leaves under virtual loss until it holds
//!    [`SearchConfig::batch_size`] of them (terminal leaves are backed up on the spot with their
//!    exact value), and returns [`SearchState::NeedsEvaluation`]; or it returns [`SearchState::Done`].
//! 3. [`Search::requests`] lists the leaves; [`Search::supply`] takes one [`Evaluation`] per
//!    leaf, expands and backs them up. Then step again.
//! 4. When done, [`Search::result`] holds visits, policy target, value and the chosen action;
//!    [`Search::advance`] plays an action and keeps its subtree.
//!
//! [`Search::run`] does all of this for a single search and one evaluator.

mod descent;
mod gumbel;
mod policy;
mod result;
mod select;
mod tree;

use rand::SeedableRng;
use rand::rngs::StdRng;

pub use result::SearchResult;

use crate::config::{ConfigError, SearchConfig};
use crate::game::{EvalError, EvalRequest, Evaluation, Evaluator, GameState};
use policy::TreePolicy;
use tree::{NodeId, Status, Tree};

/// What [`Search::step`] needs next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[must_use]
pub enum SearchState {
    /// Leaves are waiting: evaluate [`Search::requests`] and pass the results to
    /// [`Search::supply`].
    NeedsEvaluation,
    /// The search is finished (or the root is terminal); see [`Search::result`].
    Done,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    Idle,
    Running,
    Done,
}

/// How one selection ended.
enum Descent {
    /// A new leaf was queued for evaluation.
    Leaf,
    /// A terminal node was reached and backed up.
    Terminal,
    /// A leaf already queued in this batch was reached (`true` if it is the root).
    Collision(bool),
}

/// A leaf waiting for its evaluation. Slots are reused between batches.
#[derive(Clone, Debug)]
struct PendingLeaf<G: GameState> {
    node: NodeId,
    state: G,
    legal: Vec<G::Action>,
}

/// Most nodes a search tree holds (about 1 GiB of nodes): a search that fills it ends there, with
/// what it found, however many simulations were asked for. With every simulation adding one
/// expanded node and its children, this is reached only by searches of a million simulations
/// or more.
pub const MAX_TREE_NODES: usize = 1 << 24;

/// One game's search tree and the state of its current search. See the [module docs](self).
#[derive(Debug)]
pub struct Search<G: GameState> {
    config: SearchConfig,
    rng: StdRng,
    root_state: G,
    tree: Tree<G::Action>,
    /// Actions applied through `advance`: the temperature schedule's clock.
    plies: u32,
    phase: Phase,
    /// Simulations wanted and started in the current search.
    target: u32,
    started: u32,
    /// Root noise / Gumbel sampling done for the current search.
    root_prepared: bool,
    /// PUCT or Gumbel: the root algorithm's state for this search.
    policy: TreePolicy,
    pending: Vec<PendingLeaf<G>>,
    num_pending: usize,
    /// Leaves reached a second time in this batch; their virtual loss is undone after it.
    collisions: Vec<NodeId>,
    scratch_state: G,
    scratch: Vec<f32>,
    result: Option<SearchResult<G::Action>>,
    /// Nodes the tree may hold before a search ends early ([`MAX_TREE_NODES`] unless lowered).
    node_limit: usize,
}

impl<G: GameState> Search<G> {
    /// A search rooted at `root`. The same seed, configuration, root and evaluator give the same
    /// results.
    pub fn new(root: G, config: SearchConfig, seed: u64) -> Result<Self, ConfigError> {
        config.validate()?;
        Ok(Search {
            config,
            rng: StdRng::seed_from_u64(seed),
            tree: Tree::new(player(root.to_move())),
            scratch_state: root.clone(),
            root_state: root,
            plies: 0,
            phase: Phase::Idle,
            target: 0,
            started: 0,
            root_prepared: false,
            policy: TreePolicy::new(config.algorithm),
            pending: Vec::new(),
            num_pending: 0,
            collisions: Vec::new(),
            scratch: Vec::new(),
            result: None,
            node_limit: MAX_TREE_NODES,
        })
    }

    /// Lowers the bound on the tree's size from [`MAX_TREE_NODES`] to `nodes` (for a small
    /// machine, or a test): a search that fills the tree ends there.
    pub fn with_node_limit(mut self, nodes: usize) -> Self {
        self.node_limit = nodes.min(MAX_TREE_NODES);
        self
    }

    /// The configuration.
    pub fn config(&self) -> &SearchConfig {
        &self.config
    }

    /// The root position.
    pub fn root_state(&self) -> &G {
        &self.root_state
    }

    /// Actions applied through [`advance`](Self::advance) so far.
    pub fn plies(&self) -> u32 {
        self.plies
    }

    /// Completed visits of the root (kept across [`advance`](Self::advance) by tree reuse).
    pub fn root_visits(&self) -> u32 {
        self.tree.root().visits
    }

    /// The player proven to win from the root with best play (the solver, [`SearchConfig::solver`]):
    /// `None` while the root is not proven. A root value of exactly 1 or -1 is not a proof on
    /// its own: one rollout or one evaluation can say as much.
    pub fn root_winner(&self) -> Option<usize> {
        self.tree.root().winner.map(usize::from)
    }

    /// Number of nodes in the tree.
    pub fn tree_size(&self) -> usize {
        self.tree.nodes.len()
    }

    /// Whether a search is started and not finished.
    pub fn is_running(&self) -> bool {
        self.phase == Phase::Running
    }

    /// Starts a search of [`SearchConfig::simulations`] simulations. See
    /// [`start_with`](Self::start_with).
    pub fn start(&mut self) {
        self.start_with(self.config.simulations);
    }

    /// Starts a search of `simulations` simulations (at least 1), for example for playout-cap
    /// randomisation. If the root is terminal the search is immediately done, with no result.
    ///
    /// # Panics
    /// If evaluations are outstanding.
    pub fn start_with(&mut self, simulations: u32) {
        assert_eq!(
            self.num_pending, 0,
            "Search::start_with: evaluations are still outstanding"
        );
        self.result = None;
        self.target = simulations.max(1);
        self.started = 0;
        self.root_prepared = false;
        self.policy.reset();
        self.phase = if self.root_state.terminal().is_some() {
            Phase::Done
        } else {
            Phase::Running
        };
    }

    /// Advances the current search until it needs evaluations or is finished.
    ///
    /// # Panics
    /// If no search was started, or if the previous batch's evaluations were not supplied.
    pub fn step(&mut self) -> SearchState {
        assert_eq!(
            self.num_pending, 0,
            "Search::step: supply the pending evaluations first"
        );
        match self.phase {
            Phase::Idle => panic!("Search::step: call start first"),
            Phase::Done => return SearchState::Done,
            Phase::Running => {}
        }
        let batch = self.config.batch_size as usize;
        let max_collisions = self.config.max_collisions.max(1) as usize;
        // The tree's memory is bounded whatever the simulations asked: a full tree ends the
        // search (after its first simulation) as if it had run them all.
        // A root proven won or lost (MCTS-Solver) needs no more simulations.
        while self.num_pending < batch
            && self.started < self.target
            && (self.started == 0 || self.tree.nodes.len() < self.node_limit)
            && self.tree.root().winner.is_none()
        {
            self.prepare_root();
            match self.descend() {
                Descent::Leaf | Descent::Terminal => self.started += 1,
                Descent::Collision(at_root) => {
                    if at_root || self.collisions.len() >= max_collisions {
                        break;
                    }
                }
            }
        }
        if self.num_pending > 0 {
            return SearchState::NeedsEvaluation;
        }
        debug_assert!(self.collisions.is_empty());
        self.finish();
        SearchState::Done
    }

    /// Number of leaves waiting for evaluation.
    pub fn pending_len(&self) -> usize {
        self.num_pending
    }

    /// The leaves waiting for evaluation, in the order [`supply`](Self::supply) expects.
    pub fn requests(&self) -> impl ExactSizeIterator<Item = EvalRequest<'_, G>> + '_ {
        self.pending[..self.num_pending]
            .iter()
            .map(|p| EvalRequest {
                state: &p.state,
                legal: &p.legal,
            })
    }

    /// Expands and backs up the pending leaves with one evaluation each, in
    /// [`requests`](Self::requests) order. Priors are renormalised (uniform if their sum is not
    /// positive); a WDL that is not a finite, positive-sum vector counts as a draw.
    ///
    /// # Panics
    /// If `evals` does not hold one evaluation per pending leaf, or an evaluation's priors are not
    /// aligned with its leaf's legal actions.
    pub fn supply(&mut self, evals: &[Evaluation]) {
        assert_eq!(
            evals.len(),
            self.num_pending,
            "Search::supply: one evaluation per request"
        );
        for (leaf, eval) in self.pending[..self.num_pending].iter().zip(evals) {
            assert_eq!(
                eval.priors.len(),
                leaf.legal.len(),
                "Search::supply: priors must be aligned with the legal actions"
            );
            normalise_priors(&eval.priors, &mut self.scratch);
            let wdl = sanitise_wdl(eval.wdl);
            let to_move = self.tree.node(leaf.node).to_move;
            self.tree
                .expand(leaf.node, &leaf.legal, &self.scratch, wdl[0] - wdl[2]);
            self.tree.backup(leaf.node, wdl, to_move);
        }
        self.num_pending = 0;
        for node in self.collisions.drain(..) {
            self.tree.undo_selection(node);
        }
    }

    /// The result of the last finished search; `None` while running, before the first search,
    /// after [`advance`](Self::advance), or when the root is terminal.
    pub fn result(&self) -> Option<&SearchResult<G::Action>> {
        self.result.as_ref()
    }

    /// Runs a whole search of [`SearchConfig::simulations`] with `evaluator` and returns its
    /// result (`None` if the root is terminal), or the evaluator's error.
    pub fn run<E: Evaluator<G> + ?Sized>(
        &mut self,
        evaluator: &E,
    ) -> Result<Option<&SearchResult<G::Action>>, EvalError> {
        self.run_with(evaluator, self.config.simulations)
    }

    /// Runs `simulations` more simulations on the current tree (see
    /// [`start_with`](Self::start_with)) with `evaluator`, one call per batch, and returns the
    /// result (`None` if the root is terminal), or the evaluator's error (the search is then
    /// left idle, ready to start again).
    pub fn run_with<E: Evaluator<G> + ?Sized>(
        &mut self,
        evaluator: &E,
        simulations: u32,
    ) -> Result<Option<&SearchResult<G::Action>>, EvalError> {
        self.run_until_stopped(evaluator, simulations, &|| false)
    }

    /// [`run_with`](Self::run_with), asking `stop` after every batch: once it answers `true` the
    /// search ends with the simulations done so far (at least one). Until then the search is
    /// exactly that of `run_with`.
    pub fn run_until_stopped<E: Evaluator<G> + ?Sized>(
        &mut self,
        evaluator: &E,
        simulations: u32,
        stop: &dyn Fn() -> bool,
    ) -> Result<Option<&SearchResult<G::Action>>, EvalError> {
        self.start_with(simulations);
        let mut out = Vec::new();
        while self.step() == SearchState::NeedsEvaluation {
            let requests: Vec<EvalRequest<'_, G>> = self.requests().collect();
            out.clear();
            let evaluated = evaluator.evaluate(&requests, &mut out);
            drop(requests);
            if let Err(e) = evaluated {
                self.abandon();
                return Err(e);
            }
            self.supply(&out);
            if stop() {
                self.end_early();
            }
        }
        Ok(self.result())
    }

    /// Ends the current search at the next [`step`](Self::step): no more simulations are
    /// started (one at least, so that there is a result); those in flight are still supplied.
    pub fn end_early(&mut self) {
        self.target = self.target.min(self.started.max(1));
    }

    /// Plays `action` at the root. With [`SearchConfig::reuse_tree`], the action's subtree
    /// (visits and values included) becomes the new tree; otherwise the tree starts afresh.
    ///
    /// # Panics
    /// If evaluations are outstanding.
    pub fn advance(&mut self, action: G::Action) {
        assert_eq!(
            self.num_pending, 0,
            "Search::advance: evaluations are still outstanding"
        );
        let root = self.tree.root();
        let kept = if self.config.reuse_tree {
            root.children().find(|&c| {
                let node = self.tree.node(c);
                node.action == Some(action) && node.status != Status::Fresh
            })
        } else {
            None
        };
        self.root_state.apply(action);
        self.plies += 1;
        match kept {
            Some(child) => self.tree.reroot(child),
            None => self.tree = Tree::new(player(self.root_state.to_move())),
        }
        self.phase = Phase::Idle;
        self.result = None;
        self.policy.reset();
        self.root_prepared = false;
    }

    /// Gives up the pending leaves of a batch that could not be evaluated: their selections
    /// are undone and the search is idle (its tree keeps what earlier batches added).
    pub fn abandon(&mut self) {
        for leaf in 0..self.num_pending {
            let node = self.pending[leaf].node;
            self.tree.node_mut(node).status = Status::Fresh;
            self.tree.undo_selection(node);
        }
        self.num_pending = 0;
        for node in self.collisions.drain(..) {
            self.tree.undo_selection(node);
        }
        self.phase = Phase::Idle;
        self.result = None;
    }

    /// Replaces the root position and drops the tree (for a position not reached by `advance`).
    ///
    /// # Panics
    /// If evaluations are outstanding.
    pub fn reset(&mut self, root: G) {
        assert_eq!(
            self.num_pending, 0,
            "Search::reset: evaluations are still outstanding"
        );
        self.tree = Tree::new(player(root.to_move()));
        self.root_state = root;
        self.phase = Phase::Idle;
        self.result = None;
        self.policy.reset();
        self.root_prepared = false;
    }

    fn finish(&mut self) {
        self.phase = Phase::Done;
        if self.tree.root().status != Status::Expanded {
            return;
        }
        self.policy.finish(&self.tree, &self.config, &mut self.rng);
        self.result = Some(SearchResult::from_tree(
            &self.tree,
            &self.config,
            self.policy.gumbel_root(),
            self.plies,
            self.started,
            &mut self.rng,
        ));
    }
}

fn player(p: usize) -> u8 {
    debug_assert!(p < 2, "players are 0 and 1");
    p as u8
}

fn normalise_priors(priors: &[f32], out: &mut Vec<f32>) {
    out.clear();
    let total: f32 = priors.iter().filter(|p| p.is_finite() && **p > 0.0).sum();
    if total > 0.0 && total.is_finite() {
        out.extend(priors.iter().map(|&p| {
            if p.is_finite() && p > 0.0 {
                p / total
            } else {
                0.0
            }
        }));
    } else {
        out.extend(std::iter::repeat_n(1.0 / priors.len() as f32, priors.len()));
    }
}

fn sanitise_wdl(wdl: [f32; 3]) -> [f32; 3] {
    let total: f32 = wdl.iter().sum();
    if wdl.iter().all(|x| x.is_finite() && *x >= 0.0) && total > 0.0 {
        wdl.map(|x| x / total)
    } else {
        [0.0, 1.0, 0.0]
    }
}
