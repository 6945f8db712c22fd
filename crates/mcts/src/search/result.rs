//! What one search returns.

use super::gumbel::{GumbelRoot, root_improved_policy};
use super::select::sample_with_temperature;
use super::tree::{NodeId, Tree};
use crate::config::SearchConfig;

/// The outcome of one search, aligned with the root's legal actions.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchResult<A> {
    /// Player to move at the root.
    pub to_move: usize,
    /// The root's legal actions, in [`GameState::legal_actions`](crate::GameState::legal_actions)
    /// order. Every other vector below is aligned with this one.
    pub actions: Vec<A>,
    /// The evaluator's priors at the root (without root noise).
    pub priors: Vec<f32>,
    /// Visits of each action, including those kept by tree reuse.
    pub visits: Vec<u32>,
    /// Mean `W - L` of each action for the player to move at the root; `None` if unvisited.
    pub q: Vec<Option<f32>>,
    /// Training target: normalised visit counts (PUCT; the priors if no action was visited) or the
    /// completed-Q improved policy (Gumbel). Sums to 1.
    pub policy: Vec<f32>,
    /// Root value `W - L` for the player to move, averaged over all its visits.
    pub value: f32,
    /// Root win/draw/loss for the player to move.
    pub wdl: [f32; 3],
    /// The search's own preference, without randomness: the most visited action (PUCT; ties go
    /// to the higher Q, then the first), or the mode of the improved policy (Gumbel).
    pub best: A,
    /// The action to play: sampled from the visit counts with the schedule's temperature at this
    /// ply (PUCT), or the sequential-halving winner (Gumbel: with noise on, a sample from the
    /// improved policy; with noise off, deterministic).
    pub chosen: A,
    /// Simulations this search added.
    pub simulations: u32,
}

impl<A: Copy + PartialEq> SearchResult<A> {
    /// Position of `action` among the root's legal actions.
    pub fn index_of(&self, action: A) -> Option<usize> {
        self.actions.iter().position(|&a| a == action)
    }

    /// Visits of `action` (0 if it is not legal at the root).
    pub fn visits_of(&self, action: A) -> u32 {
        self.index_of(action).map_or(0, |i| self.visits[i])
    }

    /// Policy-target mass on `action` (0 if it is not legal at the root).
    pub fn policy_of(&self, action: A) -> f32 {
        self.index_of(action).map_or(0.0, |i| self.policy[i])
    }

    /// Builds the result of a finished search on an expanded root.
    pub(crate) fn from_tree<R: rand::Rng + ?Sized>(
        tree: &Tree<A>,
        config: &SearchConfig,
        gumbel: Option<&GumbelRoot>,
        ply: u32,
        simulations: u32,
        rng: &mut R,
    ) -> Self {
        let root = tree.root();
        let children = root.children();
        let child = |c| tree.node(c);
        let actions: Vec<A> = children
            .clone()
            .map(|c| child(c).action.expect("child"))
            .collect();
        let priors: Vec<f32> = children.clone().map(|c| child(c).prior).collect();
        let visits: Vec<u32> = children.clone().map(|c| child(c).visits).collect();
        // Children's statistics are kept for the player choosing at the root: no flip.
        let q: Vec<Option<f32>> = children.clone().map(|c| child(c).q()).collect();

        let total: u32 = visits.iter().sum();
        let most_visited = (0..actions.len())
            .max_by(|&a, &b| {
                let key = |i: usize| (visits[i], q[i].unwrap_or(f32::NEG_INFINITY));
                // `max_by` keeps the last maximum; compare reversed indices to keep the first.
                key(a)
                    .partial_cmp(&key(b))
                    .unwrap_or(std::cmp::Ordering::Equal)
                    .then(b.cmp(&a))
            })
            .unwrap_or(0);
        let (policy, best, chosen) = match gumbel {
            Some(g) => {
                let policy = root_improved_policy(tree, &config.gumbel);
                let best = first_argmax(&policy);
                (policy, best, g.chosen(tree, &config.gumbel))
            }
            None => {
                let policy = if total > 0 {
                    visits.iter().map(|&n| n as f32 / total as f32).collect()
                } else {
                    priors.clone()
                };
                let chosen = sample_with_temperature(&policy, config.temperature.at(ply), rng);
                (policy, most_visited, chosen)
            }
        };
        let (best, chosen) = if config.solver {
            (
                respecting_proofs(tree, best, &visits),
                respecting_proofs(tree, chosen, &visits),
            )
        } else {
            (best, chosen)
        };
        let (value, draw) = match root.winner {
            Some(w) if config.solver => (if w == root.to_move { 1.0 } else { -1.0 }, 0.0),
            _ => root
                .value_draw_for(root.to_move)
                .unwrap_or((root.raw_value, 0.0)),
        };
        let win = ((1.0 - draw + value) / 2.0).clamp(0.0, 1.0);
        let loss = ((1.0 - draw - value) / 2.0).clamp(0.0, 1.0);
        SearchResult {
            to_move: usize::from(root.to_move),
            best: actions[best],
            chosen: actions[chosen],
            actions,
            priors,
            visits,
            q,
            policy,
            value,
            wdl: [win, draw, loss],
            simulations,
        }
    }
}

/// The root child to play instead of child `index` given what is proven (MCTS-Solver): a
/// child proven won for the player to move if there is one (the most visited of them), else
/// `index` unless it is proven lost and another is not (then the most visited of those).
fn respecting_proofs<A: Copy>(tree: &Tree<A>, index: usize, visits: &[u32]) -> usize {
    let root = tree.root();
    let first = root.first_child;
    let winner_of = |i: usize| tree.node(first + i as NodeId).winner;
    let most_visited = |keep: &dyn Fn(Option<u8>) -> bool| {
        (0..visits.len())
            .filter(|&i| keep(winner_of(i)))
            .max_by_key(|&i| (visits[i], std::cmp::Reverse(i)))
    };
    let us = root.to_move;
    if let Some(win) = most_visited(&|w| w == Some(us)) {
        return win;
    }
    if winner_of(index).is_some_and(|w| w != us)
        && let Some(other) = most_visited(&|w| w.is_none_or(|w| w == us))
    {
        return other;
    }
    index
}

/// Index of the first maximum.
fn first_argmax(xs: &[f32]) -> usize {
    let mut best = 0;
    for (i, &x) in xs.iter().enumerate() {
        if x > xs[best] {
            best = i;
        }
    }
    best
}
