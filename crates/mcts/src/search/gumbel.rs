//! Gumbel root search (Danihelka, Guez, Schrittwieser, Silver 2022, "Policy improvement by
//! planning with Gumbel"), following DeepMind's `mctx` implementation.
//!
//! - At the root, `g(a) + logit(a)` with Gumbel noise `g` ranks actions; sequential halving over
//!   the budget visits the top `m` once each, keeps the better half by
//!   `g + logit + sigma(q̂)`, and so on. As in `mctx`, this is driven by a precomputed sequence:
//!   simulation `i` goes to the best-scoring action whose visit count this search equals
//!   `sequence[i]`, which both samples the top `m` without replacement and halves.
//! - Below the root, selection is deterministic: the child maximising
//!   `pi'(a) - N(a) / (1 + sum_b N(b))`, where `pi' = softmax(logits + sigma(q̂))`.
//! - The training target is `pi'` at the root over all legal actions.

use rand::Rng;
use rand_distr::{Distribution, Gumbel};

use super::select::with_virtual_loss;
use super::tree::{NodeId, ROOT, Tree};
use crate::config::GumbelConfig;

/// Logit of a prior; zero priors get a very low but finite logit.
fn logit(p: f32) -> f32 {
    p.max(1e-30).ln()
}

/// `mctx`'s `get_sequence_of_considered_visits`: the visit count (of this search) that the action
/// chosen by simulation `i` must have, for `num_simulations` simulations over `m` actions.
pub(crate) fn considered_visit_sequence(m: u32, num_simulations: u32) -> Vec<u32> {
    let n = num_simulations as usize;
    if m <= 1 {
        return (0..num_simulations).collect();
    }
    let log2max = u32::BITS - (m - 1).leading_zeros(); // ceil(log2(m))
    let mut sequence = Vec::with_capacity(n);
    let mut visits = vec![0u32; m as usize];
    let mut considered = m;
    while sequence.len() < n {
        let extra = (num_simulations / (log2max * considered)).max(1);
        for _ in 0..extra {
            sequence.extend_from_slice(&visits[..considered as usize]);
            for v in &mut visits[..considered as usize] {
                *v += 1;
            }
        }
        considered = (considered / 2).max(2);
    }
    sequence.truncate(n);
    sequence
}

/// Writes `sigma(completed q)` of every child of `id`, for the player choosing at `id`, into
/// `out`. With `virtual_loss > 0` the selections in flight count as lost visits.
pub(crate) fn completed_sigma<A: Copy>(
    tree: &Tree<A>,
    id: NodeId,
    cfg: &GumbelConfig,
    virtual_loss: f32,
    out: &mut Vec<f32>,
) {
    out.clear();
    let node = tree.node(id);
    let (mut sum_n, mut max_n, mut visited_prior, mut weighted_q) = (0.0f32, 0.0f32, 0.0, 0.0);
    for c in node.children() {
        let child = tree.node(c);
        let (n, q) = with_virtual_loss(child, virtual_loss);
        sum_n += n;
        max_n = max_n.max(n);
        if let Some(q) = q {
            let p = child.prior.max(f32::MIN_POSITIVE);
            visited_prior += p;
            weighted_q += p * q;
        }
        out.push(q.unwrap_or(f32::NAN));
    }
    // Mixed value: the network's value, blended with the prior-weighted Q of visited children.
    let v_mix = if visited_prior > 0.0 {
        (node.raw_value + sum_n * weighted_q / visited_prior) / (sum_n + 1.0)
    } else {
        node.raw_value
    };
    for q in out.iter_mut() {
        if q.is_nan() {
            *q = v_mix;
        }
    }
    if cfg.rescale_values {
        let (lo, hi) = out
            .iter()
            .fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), &q| {
                (lo.min(q), hi.max(q))
            });
        let span = (hi - lo).max(1e-8);
        for q in out.iter_mut() {
            *q = (*q - lo) / span;
        }
    }
    let scale = (cfg.c_visit + max_n) * cfg.c_scale;
    for q in out.iter_mut() {
        *q *= scale;
    }
}

/// `softmax(logits + sigma)` over the children of `id`, written into `out` (which must hold
/// `sigma` on entry).
fn improved_policy_in_place<A: Copy>(tree: &Tree<A>, id: NodeId, out: &mut [f32]) {
    for (x, c) in out.iter_mut().zip(tree.node(id).children()) {
        *x += logit(tree.node(c).prior);
    }
    let max = out.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let mut total = 0.0;
    for x in out.iter_mut() {
        *x = (*x - max).exp();
        total += *x;
    }
    for x in out.iter_mut() {
        *x /= total;
    }
}

/// Deterministic non-root selection: the child maximising `pi'(a) - N(a) / (1 + sum_b N(b))`.
pub(crate) fn select_interior<A: Copy>(
    tree: &Tree<A>,
    id: NodeId,
    cfg: &GumbelConfig,
    virtual_loss: f32,
    scratch: &mut Vec<f32>,
) -> NodeId {
    completed_sigma(tree, id, cfg, virtual_loss, scratch);
    improved_policy_in_place(tree, id, scratch);
    let children = tree.node(id).children();
    let total: f32 = children
        .clone()
        .map(|c| with_virtual_loss(tree.node(c), virtual_loss).0)
        .sum();
    let mut best = children.start;
    let mut best_score = f32::NEG_INFINITY;
    for (c, p) in children.zip(scratch.iter()) {
        let n = with_virtual_loss(tree.node(c), virtual_loss).0;
        let score = p - n / (1.0 + total);
        if score > best_score {
            best_score = score;
            best = c;
        }
    }
    best
}

/// Per-search state of the Gumbel root.
#[derive(Clone, Debug)]
pub(crate) struct GumbelRoot {
    /// Gumbel noise plus logit of each root action.
    noisy_logits: Vec<f32>,
    /// Simulations this search sent through each root action (selections in flight included,
    /// collisions not).
    pub started: Vec<u32>,
    /// Required visit count for each simulation index (see the module docs).
    sequence: Vec<u32>,
}

impl GumbelRoot {
    /// Draws the Gumbel noise for the (expanded) root and plans `budget` root simulations.
    pub fn new<A: Copy, R: Rng + ?Sized>(
        tree: &Tree<A>,
        cfg: &GumbelConfig,
        budget: u32,
        rng: &mut R,
    ) -> Self {
        let root = tree.root();
        let gumbel = Gumbel::new(0.0f32, 1.0).expect("standard Gumbel parameters are valid");
        let noisy_logits = root
            .children()
            .map(|c| {
                let g = if cfg.noise { gumbel.sample(rng) } else { 0.0 };
                g + logit(tree.node(c).prior)
            })
            .collect();
        let m = cfg.max_considered_actions.min(root.num_children);
        GumbelRoot {
            noisy_logits,
            started: vec![0; root.num_children as usize],
            sequence: considered_visit_sequence(m, budget),
        }
    }

    /// Best root action index among those whose visit count this search equals `visits`, by
    /// `g + logit + sigma(q̂)`. Falls back to the least visited action if none qualifies.
    fn best_with_visits<A: Copy>(
        &self,
        tree: &Tree<A>,
        cfg: &GumbelConfig,
        visits: u32,
        scratch: &mut Vec<f32>,
    ) -> usize {
        completed_sigma(tree, ROOT, cfg, 0.0, scratch);
        let mut best = None;
        let mut best_score = f32::NEG_INFINITY;
        for (i, (&g, &s)) in self.noisy_logits.iter().zip(scratch.iter()).enumerate() {
            let score = (g + s).max(-1e9);
            if self.started[i] == visits && (best.is_none() || score > best_score) {
                best = Some(i);
                best_score = score;
            }
        }
        best.unwrap_or_else(|| {
            (0..self.started.len())
                .min_by_key(|&i| self.started[i])
                .unwrap_or_default()
        })
    }

    /// Index of the root action for the next simulation (and counts it as started).
    pub fn select<A: Copy>(
        &mut self,
        tree: &Tree<A>,
        cfg: &GumbelConfig,
        scratch: &mut Vec<f32>,
    ) -> usize {
        let index = self.started.iter().sum::<u32>() as usize;
        let visits = match self.sequence.get(index).or(self.sequence.last()) {
            Some(&v) => v,
            None => 0,
        };
        let a = self.best_with_visits(tree, cfg, visits, scratch);
        self.started[a] += 1;
        a
    }

    /// The action to play: the best among the most visited (the last survivor of the halving).
    pub fn chosen<A: Copy>(&self, tree: &Tree<A>, cfg: &GumbelConfig) -> usize {
        let most = self.started.iter().copied().max().unwrap_or(0);
        self.best_with_visits(tree, cfg, most, &mut Vec::new())
    }
}

/// The improved policy `softmax(logits + sigma(q̂))` at the root: the Gumbel training target.
pub(crate) fn root_improved_policy<A: Copy>(tree: &Tree<A>, cfg: &GumbelConfig) -> Vec<f32> {
    let mut out = Vec::new();
    completed_sigma(tree, ROOT, cfg, 0.0, &mut out);
    improved_policy_in_place(tree, ROOT, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sequence_matches_mctx() {
        // Values from mctx's seq_halving_test.py.
        assert_eq!(considered_visit_sequence(1, 5), [0, 1, 2, 3, 4]);
        assert_eq!(considered_visit_sequence(2, 8), [0, 0, 1, 1, 2, 2, 3, 3]);
        assert_eq!(
            considered_visit_sequence(4, 16),
            [0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5]
        );
        assert_eq!(considered_visit_sequence(16, 8), [0, 0, 0, 0, 0, 0, 0, 0]);
    }

    #[test]
    fn sequence_halves_the_considered_set() {
        // 8 actions, 24 simulations: log2(8) = 3 phases of 24 / 3 = 8 visits each.
        let s = considered_visit_sequence(8, 24);
        assert_eq!(&s[..8], &[0; 8]);
        assert_eq!(&s[8..12], &[1; 4]);
        assert_eq!(&s[12..14], &[2; 2]);
        assert_eq!(s.len(), 24);
    }
}
