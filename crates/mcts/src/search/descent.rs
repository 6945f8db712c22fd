//! One selection from the root to a leaf: root preparation, child selection, leaf queueing.

use rand_distr::multi::{Dirichlet, MultiDistribution};

use super::gumbel::{self, GumbelRoot};
use super::select::Puct;
use super::tree::{NodeId, ROOT, Status};
use super::{Descent, PendingLeaf, Search, player};
use crate::config::Algorithm;
use crate::game::GameState;

impl<G: GameState> Search<G> {
    /// Draws this search's root noise (PUCT) or Gumbel sample once the root is expanded.
    pub(super) fn prepare_root(&mut self) {
        if self.root_prepared || self.tree.root().status != Status::Expanded {
            return;
        }
        self.root_prepared = true;
        match self.config.algorithm {
            Algorithm::Puct => {
                let root = self.tree.root();
                self.root_priors.clear();
                self.root_priors
                    .extend(root.children().map(|c| self.tree.node(c).prior));
                let (alpha, weight) = (self.config.dirichlet_alpha, self.config.dirichlet_weight);
                let n = self.root_priors.len();
                if weight > 0.0 && n >= 2 {
                    let dirichlet = Dirichlet::new(&vec![alpha; n]).expect("alpha validated");
                    let mut noise = vec![0.0f32; n];
                    dirichlet.sample_to_slice(&mut self.rng, &mut noise);
                    for (p, eta) in self.root_priors.iter_mut().zip(noise) {
                        *p = (1.0 - weight) * *p + weight * eta;
                    }
                }
            }
            Algorithm::Gumbel => {
                let budget = self.target - self.started;
                self.gumbel = Some(GumbelRoot::new(
                    &self.tree,
                    &self.config.gumbel,
                    budget,
                    &mut self.rng,
                ));
            }
        }
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
                    if let (Some(g), Some(c)) = (&mut self.gumbel, self.tree.root_child_above(id)) {
                        g.started[(c - self.tree.root().first_child) as usize] -= 1;
                    }
                    self.collisions.push(id);
                    return Descent::Collision(id == ROOT);
                }
                Status::Fresh => {
                    if let Some(outcome) = self.scratch_state.terminal() {
                        node.status = Status::Terminal(outcome);
                        self.tree.backup(id, outcome.wdl_for(0), 0);
                        return Descent::Terminal;
                    }
                    node.status = Status::Pending;
                    node.to_move = player(self.scratch_state.to_move());
                    self.queue_leaf(id);
                    return Descent::Leaf;
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
        let cfg = &self.config;
        match (cfg.algorithm, id == ROOT) {
            (Algorithm::Puct, at_root) => Puct {
                c_puct: cfg.c_puct,
                fpu_reduction: if at_root {
                    cfg.root_fpu_reduction
                } else {
                    cfg.fpu_reduction
                },
                virtual_loss: cfg.virtual_loss,
                priors: at_root.then_some(&self.root_priors[..]),
            }
            .select(&self.tree, id),
            (Algorithm::Gumbel, true) => {
                let g = self
                    .gumbel
                    .as_mut()
                    .expect("Gumbel root prepared before selection");
                let a = g.select(&self.tree, &cfg.gumbel, &mut self.scratch);
                self.tree.root().first_child + a as NodeId
            }
            (Algorithm::Gumbel, false) => gumbel::select_interior(
                &self.tree,
                id,
                &cfg.gumbel,
                cfg.virtual_loss,
                &mut self.scratch,
            ),
        }
    }
}
