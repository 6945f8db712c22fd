//! Zobrist keys, generated at compile time from a fixed seed with SplitMix64.
//!
//! A position's hash is the XOR of a key for every stone, one for Black to move, and while a
//! chain is under way keys for the chain stone, every visited point and the last direction.
//! At the start of a turn the hash therefore depends only on the placement and the side to
//! move, which is exactly what the repetition rule compares.

use crate::geometry::{Bitboard, Direction, NUM_POINTS, Point};
use crate::moves::Color;

const fn splitmix64(state: u64) -> (u64, u64) {
    let state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    (state, z ^ (z >> 31))
}

struct Keys {
    stones: [[u64; NUM_POINTS]; 2],
    black_to_move: u64,
    chain_stone: [u64; NUM_POINTS],
    visited: [u64; NUM_POINTS],
    last_dir: [u64; 8],
}

const KEYS: Keys = {
    let mut state = 0x4641_4E4F_524F_4E41_u64; // "FANORONA"
    let mut keys = Keys {
        stones: [[0; NUM_POINTS]; 2],
        black_to_move: 0,
        chain_stone: [0; NUM_POINTS],
        visited: [0; NUM_POINTS],
        last_dir: [0; 8],
    };
    let mut i = 0;
    while i < NUM_POINTS {
        let (s, a) = splitmix64(state);
        let (s, b) = splitmix64(s);
        let (s, c) = splitmix64(s);
        let (s, d) = splitmix64(s);
        state = s;
        keys.stones[0][i] = a;
        keys.stones[1][i] = b;
        keys.chain_stone[i] = c;
        keys.visited[i] = d;
        i += 1;
    }
    let mut d = 0;
    while d < 8 {
        let (s, k) = splitmix64(state);
        state = s;
        keys.last_dir[d] = k;
        d += 1;
    }
    let (_, k) = splitmix64(state);
    keys.black_to_move = k;
    keys
};

/// Key of a stone of colour `c` on `p`.
#[inline]
pub(crate) fn stone(c: Color, p: Point) -> u64 {
    KEYS.stones[c.index()][p.index()]
}

/// XOR of the keys of all stones of colour `c` in `set`.
#[inline]
pub(crate) fn stones(c: Color, set: Bitboard) -> u64 {
    set.iter().fold(0, |h, p| h ^ stone(c, p))
}

/// Key toggled when Black is to move.
#[inline]
pub(crate) fn black_to_move() -> u64 {
    KEYS.black_to_move
}

/// Key of the chain stone standing on `p`.
#[inline]
pub(crate) fn chain_stone(p: Point) -> u64 {
    KEYS.chain_stone[p.index()]
}

/// XOR of the keys of the points visited by the chain stone.
#[inline]
pub(crate) fn visited(set: Bitboard) -> u64 {
    set.iter().fold(0, |h, p| h ^ KEYS.visited[p.index()])
}

/// Key of the chain's last direction.
#[inline]
pub(crate) fn last_dir(d: Direction) -> u64 {
    KEYS.last_dir[d.index()]
}
