//! The transposition table: a direct-mapped array of 16-byte entries keyed by the Zobrist hash.

/// Whether a stored score is exact or a bound.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[repr(u8)]
pub(super) enum Bound {
    /// Empty slot.
    #[default]
    None = 0,
    /// The exact negamax value.
    Exact = 1,
    /// A lower bound (the search failed high).
    Lower = 2,
    /// An upper bound (the search failed low).
    Upper = 3,
}

/// One slot: the full hash to verify the match, the best turn's index in
/// [`Position::for_each_turn`](fanorona_engine::Position::for_each_turn) order (stable for a
/// given position), the score (mate scores relative to this node), depth and bound.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Entry {
    pub key: u64,
    pub best: u32,
    pub score: i16,
    pub depth: u8,
    pub bound: Bound,
}

/// A fixed-size table of `2^k` entries; a new entry replaces an old one unless the old one is
/// for the same position and was searched deeper.
#[derive(Debug)]
pub(super) struct Table {
    entries: Vec<Entry>,
    mask: u64,
}

impl Table {
    /// A table of at most `mebibytes` MiB (at least 1024 entries).
    pub fn new(mebibytes: usize) -> Table {
        let bytes = mebibytes.max(1).saturating_mul(1 << 20);
        let wanted = (bytes / std::mem::size_of::<Entry>()).max(1024);
        // Largest power of two not above `wanted`.
        let len = 1usize << (usize::BITS - 1 - wanted.leading_zeros());
        Table {
            entries: vec![Entry::default(); len],
            mask: len as u64 - 1,
        }
    }

    /// Empties every slot.
    pub fn clear(&mut self) {
        self.entries.fill(Entry::default());
    }

    #[inline]
    fn slot(&self, key: u64) -> usize {
        (key & self.mask) as usize
    }

    /// The entry for `key`, if stored.
    #[inline]
    pub fn probe(&self, key: u64) -> Option<Entry> {
        let e = self.entries[self.slot(key)];
        (e.bound != Bound::None && e.key == key).then_some(e)
    }

    /// Stores a result.
    #[inline]
    pub fn store(&mut self, key: u64, best: u32, score: i32, depth: u32, bound: Bound) {
        let slot = self.slot(key);
        let old = &mut self.entries[slot];
        if old.bound != Bound::None && old.key == key && u32::from(old.depth) > depth {
            return;
        }
        *old = Entry {
            key,
            best,
            score: score.clamp(i16::MIN.into(), i16::MAX.into()) as i16,
            depth: depth.min(255) as u8,
            bound,
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_are_sixteen_bytes_and_sizes_are_powers_of_two() {
        assert_eq!(std::mem::size_of::<Entry>(), 16);
        let t = Table::new(1);
        assert_eq!(t.entries.len(), 1 << 16);
        assert!(t.entries.len().is_power_of_two());
    }

    #[test]
    fn deeper_results_survive_shallower_ones_for_the_same_position() {
        let mut t = Table::new(1);
        t.store(42, 3, 17, 5, Bound::Exact);
        t.store(42, 1, -4, 2, Bound::Lower);
        let e = t.probe(42).unwrap();
        assert_eq!((e.best, e.score, e.depth), (3, 17, 5));
        assert!(t.probe(43).is_none());
        // Another position in the same slot replaces it.
        let other = 42 + (1 << 16);
        t.store(other, 0, 1, 1, Bound::Upper);
        assert!(t.probe(42).is_none());
        assert_eq!(t.probe(other).unwrap().bound, Bound::Upper);
    }
}
