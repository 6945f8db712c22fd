//! The tree policy: what differs between PUCT and Gumbel search, in one place.
//!
//! [`TreePolicy`] holds the per-search state of the root algorithm and answers the three
//! questions the search asks: prepare the root once it is expanded (Dirichlet noise, or the
//! Gumbel sample and the sequential-halving schedule), pick the child to descend into at a
//! node, and give a selection back when it collided. The rest of the search (descent, batching,
//! backup, results) is the same for both algorithms.

use rand::rngs::StdRng;
use rand_distr::multi::{Dirichlet, MultiDistribution};

use super::gumbel::{self, GumbelRoot};
use super::select::Puct;
use super::tree::{NodeId, ROOT, Tree};
use crate::config::{Algorithm, SearchConfig};

/// The root algorithm's state for the current search.
#[derive(Clone, Debug)]
pub(super) enum TreePolicy {
    /// PUCT everywhere; the root's priors mixed with this search's Dirichlet noise.
    Puct {
        /// Noise-mixed priors of the root's children, once prepared.
        root_priors: Vec<f32>,
    },
    /// Gumbel root search; the root's sample and schedule once prepared.
    Gumbel(Option<GumbelRoot>),
}

impl TreePolicy {
    /// The policy of `algorithm`, unprepared.
    pub(super) fn new(algorithm: Algorithm) -> Self {
        match algorithm {
            Algorithm::Puct => TreePolicy::Puct {
                root_priors: Vec::new(),
            },
            Algorithm::Gumbel => TreePolicy::Gumbel(None),
        }
    }

    /// Forgets the previous search's root preparation.
    pub(super) fn reset(&mut self) {
        match self {
            TreePolicy::Puct { root_priors } => root_priors.clear(),
            TreePolicy::Gumbel(root) => *root = None,
        }
    }

    /// Prepares the expanded root for a search with `budget` simulations left: mixes the
    /// Dirichlet noise into the root priors (PUCT), or draws the Gumbel sample (Gumbel).
    pub(super) fn prepare<A: Copy>(
        &mut self,
        tree: &Tree<A>,
        config: &SearchConfig,
        budget: u32,
        rng: &mut StdRng,
    ) {
        match self {
            TreePolicy::Puct { root_priors } => {
                root_priors.clear();
                root_priors.extend(tree.root().children().map(|c| tree.node(c).prior));
                let (alpha, weight) = (config.dirichlet_alpha, config.dirichlet_weight);
                let n = root_priors.len();
                if weight > 0.0 && n >= 2 {
                    let dirichlet = Dirichlet::new(&vec![alpha; n]).expect("alpha validated");
                    let mut noise = vec![0.0f32; n];
                    dirichlet.sample_to_slice(rng, &mut noise);
                    for (p, eta) in root_priors.iter_mut().zip(noise) {
                        *p = (1.0 - weight) * *p + weight * eta;
                    }
                }
            }
            TreePolicy::Gumbel(root) => {
                *root = Some(GumbelRoot::new(tree, &config.gumbel, budget, rng));
            }
        }
    }

    /// The child of the expanded node `id` to descend into. `scratch` is a reusable buffer.
    pub(super) fn select<A: Copy>(
        &mut self,
        tree: &Tree<A>,
        id: NodeId,
        config: &SearchConfig,
        scratch: &mut Vec<f32>,
    ) -> NodeId {
        let at_root = id == ROOT;
        match self {
            TreePolicy::Puct { root_priors } => Puct {
                c_puct: config.c_puct,
                fpu_reduction: if at_root {
                    config.root_fpu_reduction
                } else {
                    config.fpu_reduction
                },
                virtual_loss: config.virtual_loss,
                priors: at_root.then_some(&root_priors[..]),
            }
            .select(tree, id),
            TreePolicy::Gumbel(Some(root)) if at_root => {
                let a = root.select(tree, &config.gumbel, scratch);
                tree.root().first_child + a as NodeId
            }
            TreePolicy::Gumbel(None) if at_root => {
                panic!("the Gumbel root is prepared before the first selection")
            }
            TreePolicy::Gumbel(_) => {
                gumbel::select_interior(tree, id, &config.gumbel, config.virtual_loss, scratch)
            }
        }
    }

    /// A selection through the root child `child` reached a leaf already waiting for its
    /// evaluation: the Gumbel root gets that simulation back at once (counting it would let
    /// sequential halving run ahead of the visits that actually happen).
    pub(super) fn collided(&mut self, root_child_index: usize) {
        if let TreePolicy::Gumbel(Some(root)) = self {
            root.started[root_child_index] -= 1;
        }
    }

    /// Before the result is built: a Gumbel search in which only the root was evaluated still
    /// needs its sample (the move is then the Gumbel-max sample of the prior).
    pub(super) fn finish<A: Copy>(
        &mut self,
        tree: &Tree<A>,
        config: &SearchConfig,
        rng: &mut StdRng,
    ) {
        if let TreePolicy::Gumbel(root @ None) = self {
            *root = Some(GumbelRoot::new(tree, &config.gumbel, 0, rng));
        }
    }

    /// The Gumbel root of this search, if the algorithm is Gumbel and it was prepared.
    pub(super) fn gumbel_root(&self) -> Option<&GumbelRoot> {
        match self {
            TreePolicy::Gumbel(root) => root.as_ref(),
            TreePolicy::Puct { .. } => None,
        }
    }
}
