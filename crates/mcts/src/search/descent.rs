//! One selection from the root to a leaf: root preparation, child selection, leaf queueing.

use super::tree::{NodeId, ROOT, Status};
use super::{Descent, PendingLeaf, Search, player};
use crate::game::{GameState, Terminal};

impl<G: GameState> Search<G> {
    /// Prepares the tree policy for this search once the root is expanded.
    pub(super) fn prepare_root(&mut self) {
        if self.root_prepared || self.tree.root().status != Status::Expanded {
            return;
        }
        self.root_prepared = true;
        let budget = self.target - self.started;
        self.policy
            .prepare(&self.tree, &self.config, budget, &mut self.rng);
    }

    /// One selection from the root, replaying actions on a copy of the root state.
    pub(super) fn descend(&mut self) -> Descent {
        self.scratch_state.clone_from(&self.root_state);
        let mut id = ROOT;
        loop {
            let node = self.tree.node_mut(id);
            node.in_flight += 1;
            match node.status {
                Status::Terminal(outcome) => {
                    self.tree.backup(id, outcome.wdl_for(0), 0);
                    return Descent::Terminal;
                }
                Status::Pending => {
                    // Keep the virtual loss until the batch is evaluated, but give the Gumbel
                    // root its simulation back at once: counting it would let sequential halving
                    // run ahead of the visits that actually happen.
                    if let Some(c) = self.tree.root_child_above(id) {
                        let index = (c - self.tree.root().first_child) as usize;
                        self.policy.collided(index);
                    }
                    self.collisions.push(id);
                    return Descent::Collision(id == ROOT);
                }
                Status::Fresh => {
                    if let Some(outcome) = self.scratch_state.terminal() {
                        node.status = Status::Terminal(outcome);
                        if let (true, Terminal::Win(w)) = (self.config.solver, outcome) {
                            self.tree.prove(id, player(w));
                        }
                        self.tree.backup(id, outcome.wdl_for(0), 0);
                        return Descent::Terminal;
                    }
                    node.status = Status::Pending;
                    node.to_move = player(self.scratch_state.to_move());
                    self.queue_leaf(id);
                    return Descent::Leaf;
                }
                Status::Expanded if id != ROOT && node.winner.is_some() => {
                    // Proven (MCTS-Solver): valued exactly, like a terminal node.
                    let w = Terminal::Win(usize::from(node.winner.unwrap_or(0)));
                    self.tree.backup(id, w.wdl_for(0), 0);
                    return Descent::Terminal;
                }
                Status::Expanded => {
                    let child = self.select_child(id);
                    let action = self
                        .tree
                        .node(child)
                        .action
                        .expect("children have an action");
                    self.scratch_state.apply(action);
                    id = child;
                }
            }
        }
    }

    /// Moves the replayed state into a pending slot and lists its legal actions.
    fn queue_leaf(&mut self, id: NodeId) {
        if self.num_pending == self.pending.len() {
            self.pending.push(PendingLeaf {
                node: id,
                state: self.scratch_state.clone(),
                legal: Vec::new(),
            });
        } else {
            let slot = &mut self.pending[self.num_pending];
            slot.node = id;
            std::mem::swap(&mut slot.state, &mut self.scratch_state);
        }
        let slot = &mut self.pending[self.num_pending];
        slot.legal.clear();
        slot.state.legal_actions(&mut slot.legal);
        assert!(
            !slot.legal.is_empty(),
            "GameState contract: no legal actions in a position without an outcome"
        );
        self.num_pending += 1;
    }

    fn select_child(&mut self, id: NodeId) -> NodeId {
        self.policy
            .select(&self.tree, id, &self.config, &mut self.scratch)
    }
}
