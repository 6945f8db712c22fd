//! PUCT child selection and temperature move choice.

use rand::RngExt;

use super::tree::{Node, NodeId, Tree};

/// Effective visits and Q of a child, counting `virtual_loss` lost visits per selection in flight.
pub(crate) fn with_virtual_loss<A>(child: &Node<A>, virtual_loss: f32) -> (f32, Option<f32>) {
    let virtual_visits = child.in_flight as f32 * virtual_loss;
    let n = child.visits as f32 + virtual_visits;
    let q = (n > 0.0).then(|| ((child.value_sum as f32) - virtual_visits) / n);
    (n, q)
}

/// Parameters of one PUCT selection.
pub(crate) struct Puct<'a> {
    pub c_puct: f32,
    pub fpu_reduction: f32,
    pub virtual_loss: f32,
    /// Priors to use instead of the children's own (the noised root priors).
    pub priors: Option<&'a [f32]>,
}

impl Puct<'_> {
    /// The child of `id` maximising `Q + U`; ties go to the first child.
    pub fn select<A: Copy>(&self, tree: &Tree<A>, id: NodeId) -> NodeId {
        let node = tree.node(id);
        let children = node.children();
        debug_assert!(!children.is_empty());
        let prior = |i: usize, c: &Node<A>| self.priors.map_or(c.prior, |p| p[i]);

        // The parent's value for the player choosing here; its first visit is its own evaluation.
        let parent_q = node
            .value_draw_for(node.to_move)
            .map_or(node.raw_value, |(v, _)| v);
        let mut visited_mass = 0.0;
        for (i, c) in children.clone().enumerate() {
            let child = tree.node(c);
            if child.visits > 0 || child.in_flight > 0 {
                visited_mass += prior(i, child);
            }
        }
        let fpu = parent_q - self.fpu_reduction * f32::sqrt(visited_mass);
        let parent_n = node.visits as f32 + node.in_flight as f32 * self.virtual_loss;
        let explore = self.c_puct * parent_n.max(1.0).sqrt();

        let mut best = children.start;
        let mut best_score = f32::NEG_INFINITY;
        for (i, c) in children.enumerate() {
            let child = tree.node(c);
            let (n, q) = with_virtual_loss(child, self.virtual_loss);
            let score = q.unwrap_or(fpu) + explore * prior(i, child) / (1.0 + n);
            if score > best_score {
                best_score = score;
                best = c;
            }
        }
        best
    }
}

/// Picks an index from `policy` sharpened by `1 / temperature`; at temperature ~0, the first
/// maximum. `policy` must have a positive entry.
pub(crate) fn sample_with_temperature<R: rand::Rng + ?Sized>(
    policy: &[f32],
    temperature: f32,
    rng: &mut R,
) -> usize {
    let (argmax, &max) = policy
        .iter()
        .enumerate()
        .fold((0, &f32::NEG_INFINITY), |best, (i, p)| {
            if *p > *best.1 { (i, p) } else { best }
        });
    if temperature < 1e-3 || max <= 0.0 {
        return argmax;
    }
    // Relative to the maximum so that large exponents neither overflow nor underflow to all zeros.
    let inv_t = 1.0 / f64::from(temperature);
    let weights: Vec<f64> = policy
        .iter()
        .map(|&p| (f64::from(p.max(0.0)) / f64::from(max)).powf(inv_t))
        .collect();
    let total: f64 = weights.iter().sum();
    let mut x = rng.random::<f64>() * total;
    for (i, w) in weights.iter().enumerate() {
        if x < *w {
            return i;
        }
        x -= w;
    }
    argmax
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand::rngs::StdRng;

    #[test]
    fn zero_temperature_is_argmax() {
        let mut rng = StdRng::seed_from_u64(1);
        assert_eq!(sample_with_temperature(&[0.1, 0.6, 0.3], 0.0, &mut rng), 1);
    }

    #[test]
    fn temperature_one_samples_in_proportion() {
        let mut rng = StdRng::seed_from_u64(7);
        let mut counts = [0u32; 3];
        for _ in 0..10_000 {
            counts[sample_with_temperature(&[0.2, 0.5, 0.3], 1.0, &mut rng)] += 1;
        }
        assert!((1_800..2_200).contains(&counts[0]), "{counts:?}");
        assert!((4_700..5_300).contains(&counts[1]), "{counts:?}");
        assert!((2_700..3_300).contains(&counts[2]), "{counts:?}");
    }

    #[test]
    fn never_samples_a_zero_entry() {
        let mut rng = StdRng::seed_from_u64(3);
        for _ in 0..1_000 {
            assert_ne!(
                sample_with_temperature(&[0.0, 1.0, 0.0, 2.0], 2.0, &mut rng),
                0
            );
        }
    }
}
