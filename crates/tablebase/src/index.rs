//! The index of a material class: a position (stones of the side to move, stones of the other
//! side) maps to one number, the same for all four board symmetries of the position.
//!
//! The side to move's placement is reduced to its symmetry orbit (a table built once per
//! stone count); the other side's placement is ranked among the points left free, after the
//! symmetry that brings the first placement to its orbit's representative. Where that
//! placement is itself symmetric, the other side's placement takes the smallest rank among the
//! symmetries that fix it, so every orbit of positions has exactly one index. Indices that no
//! position maps to (a non-smallest rank under such a symmetry) are *unused*.

use std::sync::OnceLock;

use fanorona_engine::{NUM_POINTS, Point, Symmetry};

/// The largest number of stones of one side a class may have.
pub const MAX_SIDE_STONES: usize = 8;

const N: usize = NUM_POINTS;

/// `BINOMIAL[n][k]` = n choose k, for n <= 45 and k <= MAX_SIDE_STONES.
static BINOMIAL: [[u64; MAX_SIDE_STONES + 1]; N + 1] = {
    let mut t = [[0u64; MAX_SIDE_STONES + 1]; N + 1];
    let mut n = 0;
    while n <= N {
        t[n][0] = 1;
        let mut k = 1;
        while k <= MAX_SIDE_STONES {
            t[n][k] = if n == 0 {
                0
            } else {
                t[n - 1][k - 1] + t[n - 1][k]
            };
            k += 1;
        }
        n += 1;
    }
    t
};

/// n choose k.
#[inline]
pub(crate) fn binomial(n: usize, k: usize) -> u64 {
    BINOMIAL[n][k]
}

/// Colex rank of a set of bit positions among all sets of the same size.
#[inline]
pub(crate) fn rank(mut bits: u64) -> u64 {
    let mut r = 0;
    let mut i = 1;
    while bits != 0 {
        let p = bits.trailing_zeros() as usize;
        r += BINOMIAL[p][i];
        bits &= bits - 1;
        i += 1;
    }
    r
}

/// The set of `k` bit positions with colex rank `r` (inverse of [`rank`]).
pub(crate) fn unrank(mut r: u64, k: usize) -> u64 {
    let mut bits = 0u64;
    let mut p = N;
    for i in (1..=k).rev() {
        // the largest p with C(p, i) <= r
        p -= 1;
        while BINOMIAL[p][i] > r {
            p -= 1;
        }
        r -= BINOMIAL[p][i];
        bits |= 1 << p;
    }
    bits
}

/// The positions of `set`'s points among the points not in `taken` (`set` and `taken` are
/// disjoint): point p becomes p minus the number of taken points below it.
#[inline]
pub(crate) fn compress(set: u64, taken: u64) -> u64 {
    let mut out = 0;
    let mut s = set;
    while s != 0 {
        let p = s.trailing_zeros();
        let below = (taken & ((1u64 << p) - 1)).count_ones();
        out |= 1 << (p - below);
        s &= s - 1;
    }
    out
}

/// Inverse of [`compress`]: bit i becomes the i-th point not in `taken`.
pub(crate) fn expand(set: u64, taken: u64) -> u64 {
    let mut out = 0;
    let mut free = !taken & ((1u64 << N) - 1);
    let mut i = 0;
    let mut s = set;
    while s != 0 {
        let want = s.trailing_zeros();
        while i < want {
            free &= free - 1;
            i += 1;
        }
        out |= free & free.wrapping_neg();
        s &= s - 1;
    }
    out
}

/// Where each symmetry sends each point, as bit positions.
struct PointMaps([[u8; N]; 4]);

fn point_maps() -> &'static PointMaps {
    static MAPS: OnceLock<PointMaps> = OnceLock::new();
    MAPS.get_or_init(|| {
        let mut m = [[0u8; N]; 4];
        for s in Symmetry::ALL {
            for p in Point::all() {
                m[s.index()][p.index()] = s.point(p).index() as u8;
            }
        }
        PointMaps(m)
    })
}

/// The image of a set of bit positions under symmetry number `s` (index into
/// [`Symmetry::ALL`]).
#[inline]
pub(crate) fn map_bits(s: usize, mut bits: u64) -> u64 {
    if s == 0 {
        return bits;
    }
    let map = &point_maps().0[s];
    let mut out = 0;
    while bits != 0 {
        let p = bits.trailing_zeros() as usize;
        out |= 1u64 << map[p];
        bits &= bits - 1;
    }
    out
}

/// The orbits of the placements of `k` stones under the four symmetries.
pub(crate) struct Orbits {
    /// Per colex rank of a placement: its orbit number (high bits) and the set of symmetries
    /// that send it to the orbit's representative (low 4 bits).
    of_rank: Vec<u32>,
    /// The representative (smallest rank) of each orbit.
    reps: Vec<u64>,
}

impl Orbits {
    fn build(k: usize) -> Orbits {
        let total = binomial(N, k) as usize;
        let mut of_rank = vec![u32::MAX; total];
        let mut reps = Vec::new();
        for r in 0..total {
            if of_rank[r] != u32::MAX {
                continue;
            }
            let rep = unrank(r as u64, k);
            let orbit = reps.len() as u32;
            reps.push(rep);
            // r is the smallest rank of its orbit (every smaller rank was already assigned)
            for s in 0..4 {
                let image = map_bits(s, rep);
                let ir = rank(image) as usize;
                // symmetries are involutions: s sends the image back to rep
                let mask = if of_rank[ir] == u32::MAX {
                    0
                } else {
                    of_rank[ir] & 0xF
                };
                of_rank[ir] = (orbit << 4) | mask | (1 << s);
            }
        }
        Orbits { of_rank, reps }
    }

    /// Number of orbits.
    pub(crate) fn len(&self) -> usize {
        self.reps.len()
    }
}

/// The orbit table for placements of `k` stones, built on first use.
pub(crate) fn orbits(k: usize) -> &'static Orbits {
    static TABLES: [OnceLock<Orbits>; MAX_SIDE_STONES + 1] =
        [const { OnceLock::new() }; MAX_SIDE_STONES + 1];
    TABLES[k].get_or_init(|| Orbits::build(k))
}

/// The indexing of one material class: `own` stones for the side to move, `other` for the
/// side that just moved.
#[derive(Clone, Copy)]
pub(crate) struct ClassIndex {
    own: usize,
    other: usize,
    /// Ranks of the other side's placement per orbit of the own placement.
    per_orbit: u64,
    orbits: &'static Orbits,
}

impl ClassIndex {
    pub(crate) fn new(own: usize, other: usize) -> ClassIndex {
        assert!(own >= 1 && other >= 1 && own <= MAX_SIDE_STONES && other <= MAX_SIDE_STONES);
        ClassIndex {
            own,
            other,
            per_orbit: binomial(N - own, other),
            orbits: orbits(own),
        }
    }

    /// Number of indices (used and unused).
    pub(crate) fn len(&self) -> u64 {
        self.orbits.len() as u64 * self.per_orbit
    }

    /// The index of a position: `own` the bits of the side to move, `other` the others'.
    /// The stone counts must be the class's.
    #[inline]
    pub(crate) fn index(&self, own: u64, other: u64) -> u64 {
        debug_assert_eq!(own.count_ones() as usize, self.own);
        debug_assert_eq!(other.count_ones() as usize, self.other);
        let entry = self.orbits.of_rank[rank(own) as usize];
        let orbit = (entry >> 4) as u64;
        let rep = self.orbits.reps[orbit as usize];
        let mut syms = entry & 0xF;
        let mut best = u64::MAX;
        while syms != 0 {
            let s = syms.trailing_zeros() as usize;
            let r = rank(compress(map_bits(s, other), rep));
            best = best.min(r);
            syms &= syms - 1;
        }
        orbit * self.per_orbit + best
    }

    /// The representative position of an index: (own bits, other bits).
    #[inline]
    pub(crate) fn position(&self, index: u64) -> (u64, u64) {
        let orbit = index / self.per_orbit;
        let r = index % self.per_orbit;
        let own = self.orbits.reps[orbit as usize];
        (own, expand(unrank(r, self.other), own))
    }

    /// Stones of the side to move.
    pub(crate) fn own(&self) -> usize {
        self.own
    }

    /// Stones of the other side.
    pub(crate) fn other(&self) -> usize {
        self.other
    }
}

/// How many distinct positions the four symmetries make of (`own`, `other`): 1, 2 or 4.
pub(crate) fn images(own: u64, other: u64) -> u64 {
    let mut seen = [(0u64, 0u64); 4];
    let mut n = 0;
    for s in 0..4 {
        let image = (map_bits(s, own), map_bits(s, other));
        if !seen[..n].contains(&image) {
            seen[n] = image;
            n += 1;
        }
    }
    n as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rank_and_unrank_are_inverse() {
        for k in 1..=3 {
            for r in 0..binomial(N, k) {
                let b = unrank(r, k);
                assert_eq!(b.count_ones() as usize, k);
                assert_eq!(rank(b), r);
            }
        }
    }

    #[test]
    fn compress_and_expand_are_inverse() {
        let taken = 0b1011_0010_0110u64;
        for set in [0b100_0000_0001u64 << 12, 1, 0b1101 << 40 >> 3] {
            let set = set & !taken;
            assert_eq!(expand(compress(set, taken), taken), set);
        }
    }

    #[test]
    fn every_position_of_a_small_class_has_one_index_for_its_orbit() {
        let class = ClassIndex::new(2, 1);
        let mut used = vec![false; class.len() as usize];
        for r in 0..binomial(N, 2) {
            let own = unrank(r, 2);
            for p in 0..N {
                let other = 1u64 << p;
                if own & other != 0 {
                    continue;
                }
                let i = class.index(own, other);
                for s in 0..4 {
                    assert_eq!(class.index(map_bits(s, own), map_bits(s, other)), i);
                }
                used[i as usize] = true;
                let (o, t) = class.position(i);
                assert_eq!(class.index(o, t), i);
            }
        }
        // about a quarter of the full count, a few more for symmetric placements
        let full = binomial(N, 2) * 43;
        let orbits = used.iter().filter(|&&u| u).count() as u64;
        assert!(
            orbits * 4 >= full && orbits * 3 < full,
            "{orbits} orbits of {full}"
        );
    }
}
