//! A point's eight neighbours, and the points two steps away, gathered into bytes.
//!
//! For one stone (a capture chain) the question "which steps capture?" is answered for all
//! eight directions at once: the board is shifted so the stone sits at bit 20 of a window,
//! the ring of neighbours and the ring two steps out are gathered into one byte each (bit `k`
//! for direction [`Ring::direction`]`(k)`), and the captures fall out of byte arithmetic:
//! approach = free neighbour and enemy two steps out, withdrawal = free neighbour and enemy
//! on the opposite neighbour. The ring order (SW, S, SE, W, E, NW, N, NE: increasing bit
//! offset) puts each direction's opposite at bit `7 - k`, so "opposite" is a bit reversal.
//!
//! A gather is one BMI2 `pext` instruction where that is fast, and a few shifts and masks
//! elsewhere, picked once per process ([`Gather`]).

use crate::gather::Gather;
use crate::geometry::{Bitboard, Direction, NEIGHBOURS, NO_POINT, NUM_POINTS, Point, ROWS, row};

/// The eight neighbours (and the points two steps away) of one point, gathered into a byte:
/// bit `k` is direction [`Ring::direction`]`(k)`, in the order of increasing bit offset
/// (SW, S, SE, W, E, NW, N, NE), so that the opposite of bit `k` is bit `7 - k`.
#[derive(Copy, Clone, Debug)]
pub(crate) struct Ring {
    right: u32,
    left: u32,
    valid1: u32,
    valid2: u32,
}

const RING_ORDER: [Direction; 8] = [
    Direction::SouthWest,
    Direction::South,
    Direction::SouthEast,
    Direction::West,
    Direction::East,
    Direction::NorthWest,
    Direction::North,
    Direction::NorthEast,
];

/// With the point at bit 20 of a window, its neighbours sit at these bits ...
const RING1_MASK: u64 =
    (1 << 10) | (1 << 11) | (1 << 12) | (1 << 19) | (1 << 21) | (1 << 28) | (1 << 29) | (1 << 30);
/// ... and the points two steps away at these.
const RING2_MASK: u64 =
    1 | (1 << 2) | (1 << 4) | (1 << 18) | (1 << 22) | (1 << 36) | (1 << 38) | (1 << 40);

const RING_VALID: [[u8; 2]; ROWS] = {
    let mut table = [[0u8; 2]; ROWS];
    let mut i = 0;
    while i < NUM_POINTS {
        let mut k = 0;
        while k < 8 {
            let d = RING_ORDER[k] as usize;
            let n = NEIGHBOURS[i][d];
            if n != NO_POINT {
                table[i][0] |= 1 << k;
                if NEIGHBOURS[n as usize][d] != NO_POINT {
                    table[i][1] |= 1 << k;
                }
            }
            k += 1;
        }
        i += 1;
    }
    table
};

const REVERSE_BITS: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut i = 0;
    while i < 256 {
        table[i] = (i as u8).reverse_bits();
        i += 1;
    }
    table
};

const RING_POSITION: [u8; 8] = {
    let mut table = [0u8; 8];
    let mut k = 0;
    while k < 8 {
        table[RING_ORDER[k] as usize] = k as u8;
        k += 1;
    }
    table
};

/// Collect the bits of `x` selected by `mask` into the low bits, in order (what `pext` does),
/// with the gather this process uses ([`Gather::active`]). `mask` is one of the two rings: a
/// constant at every call, so the portable branch folds to a few shifts and masks.
#[inline(always)]
fn gather(x: u64, mask: u64) -> u32 {
    #[cfg(target_arch = "x86_64")]
    if Gather::active() == Gather::Pext {
        // SAFETY: `Gather::Pext` is only active on a CPU with BMI2 (`Gather::available`).
        #[allow(unsafe_code)]
        return unsafe { crate::gather::pext(x, mask) };
    }
    gather_rings(x, mask)
}

/// [`gather`] without `pext`: the two rings by shifts and masks (bits `10..=12, 19, 21,
/// 28..=30` for the neighbours; `0, 2, 4, 18, 22, 36, 38, 40` two steps out), any other mask
/// bit by bit.
#[inline(always)]
fn gather_rings(x: u64, mask: u64) -> u32 {
    let bits = if mask == RING1_MASK {
        ((x >> 10) & 0b111)
            | ((x >> 16) & 0b1000)
            | ((x >> 17) & 0b1_0000)
            | ((x >> 23) & 0b1110_0000)
    } else if mask == RING2_MASK {
        (x & 1)
            | ((x >> 1) & 0b10)
            | ((x >> 2) & 0b100)
            | ((x >> 15) & 0b1000)
            | ((x >> 18) & 0b1_0000)
            | ((x >> 31) & 0b10_0000)
            | ((x >> 32) & 0b100_0000)
            | ((x >> 33) & 0b1000_0000)
    } else {
        return gather_portable(x, mask);
    };
    bits as u32
}

/// `pext` bit by bit, for any mask (the reference the other gathers are tested against).
fn gather_portable(x: u64, mut mask: u64) -> u32 {
    let mut out = 0u32;
    let mut k = 0;
    while mask != 0 {
        let low = mask & mask.wrapping_neg();
        if x & low != 0 {
            out |= 1 << k;
        }
        k += 1;
        mask &= mask - 1;
    }
    out
}

impl Ring {
    #[inline(always)]
    pub(crate) fn around(p: Point) -> Ring {
        let v = RING_VALID[row(p)];
        let i = p.0 as u32;
        Ring {
            right: i.saturating_sub(20),
            left: 20u32.saturating_sub(i),
            valid1: v[0] as u32,
            valid2: v[1] as u32,
        }
    }

    #[inline(always)]
    fn window(&self, set: Bitboard) -> u64 {
        // Puts the point at bit 20: a right shift for points from index 20 on, a left shift
        // below. Only a1 loses a bit to the left shift (i5 would land on bit 64), and i5 is
        // not within two steps of a1.
        (set.0 >> self.right) << self.left
    }

    /// Ring bits of the neighbours in `set`.
    #[inline(always)]
    pub(crate) fn neighbours(&self, set: Bitboard) -> u32 {
        gather(self.window(set), RING1_MASK) & self.valid1
    }

    /// The ring bit of `dir`.
    #[inline(always)]
    pub(crate) fn bit(dir: Direction) -> u32 {
        1 << RING_POSITION[dir as usize]
    }

    /// Each direction's bit moved to its opposite direction's place.
    #[inline(always)]
    pub(crate) fn opposite(bits: u32) -> u32 {
        REVERSE_BITS[(bits & 0xFF) as usize] as u32
    }
}

/// For a point and a capture code `c` (ring bit `k` = `c & 7`, approach for `c < 8`,
/// withdrawal for `c >= 8`): the first point of the captured line, its direction, and the
/// destination of the step. Entries for steps that do not exist are never read.
const CAPTURE_TABLE: [[(u8, u8, u8); 16]; ROWS] = {
    let mut table = [[(0u8, 0u8, 0u8); 16]; ROWS];
    let mut i = 0;
    while i < NUM_POINTS {
        let mut c = 0;
        while c < 16 {
            let d = RING_ORDER[c & 7] as usize;
            let back = (d + 4) % 8;
            let to = NEIGHBOURS[i][d];
            if to != NO_POINT {
                let (first, line) = if c < 8 {
                    (NEIGHBOURS[to as usize][d], d)
                } else {
                    (NEIGHBOURS[i][back], back)
                };
                if first != NO_POINT {
                    table[i][c] = (first, line as u8, to);
                }
            }
            c += 1;
        }
        i += 1;
    }
    table
};

impl Ring {
    /// The capture codes of a stone (approach in bits 0-7, withdrawal in bits 8-15).
    #[inline(always)]
    pub(crate) fn captures(&self, dest: u32, enemy: Bitboard) -> u32 {
        let w = self.window(enemy);
        let approach = dest & gather(w, RING2_MASK) & self.valid2;
        let withdrawal = dest & Ring::opposite(gather(w, RING1_MASK) & self.valid1);
        approach | (withdrawal << 8)
    }

    /// For capture code `c` of the stone on `p`: (first captured point, line direction,
    /// destination, direction of the step).
    #[inline(always)]
    pub(crate) fn capture(p: Point, c: u32) -> (Point, Direction, Point, Direction) {
        let (first, line, to) = CAPTURE_TABLE[row(p)][(c & 15) as usize];
        (
            Point(first),
            Direction::ALL[(line & 7) as usize],
            Point(to),
            RING_ORDER[(c & 7) as usize],
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_gather_matches_the_bit_by_bit_one() {
        // Both paths on every machine: the shifts always, `pext` where the CPU has it.
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        for _ in 0..10_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            for mask in [
                RING1_MASK,
                RING2_MASK,
                x.rotate_left(7) & 0x8421_8421_8421_8421,
            ] {
                let want = gather_portable(x, mask);
                assert_eq!(gather_rings(x, mask), want, "{x:#x} {mask:#x}");
                assert_eq!(gather(x, mask), want);
                #[cfg(target_arch = "x86_64")]
                if Gather::Pext.available() {
                    #[allow(unsafe_code)]
                    // SAFETY: the CPU has BMI2.
                    let fast = unsafe { crate::gather::pext(x, mask) };
                    assert_eq!(fast, want);
                }
            }
        }
    }

    #[test]
    fn ring_bits_follow_the_neighbour_table() {
        for p in Point::all() {
            let ring = Ring::around(p);
            for d in Direction::ALL {
                let set = p.neighbour(d).map_or(Bitboard::EMPTY, Point::bit);
                let expected = if p.neighbour(d).is_some() {
                    Ring::bit(d)
                } else {
                    0
                };
                assert_eq!(ring.neighbours(set), expected, "{p} {d:?}");
                // Opposite directions are mirrored bits.
                assert_eq!(Ring::opposite(Ring::bit(d)), Ring::bit(d.opposite()));
            }
            assert_eq!(
                ring.neighbours(Bitboard::FULL).count_ones() as usize,
                Direction::ALL
                    .iter()
                    .filter(|&&d| p.neighbour(d).is_some())
                    .count()
            );
        }
    }

    #[test]
    fn capture_codes_agree_with_the_rules() {
        // A stone on e3 (strong) with enemies around: every code describes a real capture.
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        for _ in 0..2000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let p = Point::from_index((x % 45) as usize).unwrap();
            let enemy = Bitboard(x.rotate_left(11) & Bitboard::FULL.0).without(p);
            let empty = !enemy.with(p);
            let ring = Ring::around(p);
            let mut codes = ring.captures(ring.neighbours(empty), enemy);
            let mut found = 0;
            while codes != 0 {
                let (first, line, to, dir) = Ring::capture(p, codes.trailing_zeros());
                codes &= codes - 1;
                found += 1;
                assert_eq!(p.neighbour(dir), Some(to));
                assert!(empty.contains(to) && enemy.contains(first));
                let approach = to.neighbour(dir) == Some(first) && line == dir;
                let withdrawal =
                    p.neighbour(dir.opposite()) == Some(first) && line == dir.opposite();
                assert!(approach || withdrawal);
            }
            let expected: usize = Direction::ALL
                .iter()
                .filter_map(|&d| {
                    p.neighbour(d)
                        .filter(|t| empty.contains(*t))
                        .map(|t| (d, t))
                })
                .map(|(d, t)| {
                    let a = t.neighbour(d).is_some_and(|q| enemy.contains(q));
                    let w = p.neighbour(d.opposite()).is_some_and(|q| enemy.contains(q));
                    a as usize + w as usize
                })
                .sum();
            assert_eq!(found, expected);
        }
    }
}
