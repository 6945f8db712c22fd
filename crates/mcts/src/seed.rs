//! Derived seeds: one base seed, many independent, reproducible random streams.

/// The seed of stream `index` derived from a base `seed` (the SplitMix64 finaliser of the two).
///
/// Every random stream of the project comes from here: game `i` of a self-play generation, the
/// opening of a match's game pair, a player's stream in game `i`. Different indices give
/// unrelated seeds, and the same pair always gives the same seed, so runs replay exactly.
///
/// ```
/// use fanorona_mcts::derive_seed;
/// assert_eq!(derive_seed(7, 3), derive_seed(7, 3));
/// assert_ne!(derive_seed(7, 3), derive_seed(7, 4));
/// assert_ne!(derive_seed(7, 3), derive_seed(8, 3));
/// ```
pub fn derive_seed(seed: u64, index: u64) -> u64 {
    let mut z = seed ^ index.wrapping_add(1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}
