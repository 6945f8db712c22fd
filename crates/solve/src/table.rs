//! The transposition table of the proof-number search: a fixed number of entries chosen from
//! the memory budget, in buckets of four; a full bucket gives up its least valuable entry
//! (an unsolved one before a solved one, then the one with the least work below it). A bucket
//! whose four entries are all solved refuses an unsolved one, which then goes to the *spill*:
//! a small direct-mapped area (a sixteenth of the memory) where the newest unsolved entry of
//! each slot stays. Without it an unsolved position whose bucket the solved ones had filled
//! could never keep its numbers: its parent found it back at its first numbers on every visit
//! and searched it again from there, and a search seeded with millions of solved positions
//! (about 8% of the buckets full of them at a third of the table) spent hundreds of millions of
//! nodes solving nothing (docs/solve.md).

/// Proof and disproof numbers at or above this are infinite (a saturating sum stops here).
pub(crate) const INFINITE: u32 = u32::MAX / 4;

/// Entries per bucket: four entries of 16 bytes, one cache line.
const WAYS: usize = 4;

/// One stored node: its key (the low byte dropped), its proof and disproof numbers for the
/// attacker, and how much was searched below it, as a level (about 4 levels a doubling).
#[derive(Clone, Copy, Default)]
struct Entry {
    key: u64,
    pn: u32,
    dn: u32,
    level: u8,
}

/// An entry as stored: two words, all zero when empty, so that a table of any size is
/// allocated as zeroed memory the system hands out on first touch (a table of structs was
/// written out entry by entry before the search could begin). The first word is the key
/// with its low byte replaced by the work's level (at least 1, so that no entry reads as
/// empty): 56 bits of key are compared, and a false match stays below one in 10^7 over a
/// billion lookups (the certificate's checker would catch one anyway).
type Slot = [u64; 2];

/// The key bits an entry keeps.
const KEY_BITS: u64 = !0xFF;

/// The work level of `work` nodes, 1 to 255: a quarter of a doubling a step.
fn work_level(work: u64) -> u8 {
    if work < 2 {
        return 1;
    }
    let log = 63 - u64::from(work.leading_zeros());
    let fraction = if log >= 2 {
        (work >> (log - 2)) & 3
    } else {
        (work << (2 - log)) & 3
    };
    (1 + log * 4 + fraction).min(255) as u8
}

/// Whether a stored word holds `key`.
fn holds(word: u64, key: u64) -> bool {
    word != 0 && (word ^ key) & KEY_BITS == 0
}

impl Entry {
    fn load(slot: &Slot) -> Entry {
        Entry {
            key: slot[0] & KEY_BITS,
            pn: slot[1] as u32,
            dn: (slot[1] >> 32) as u32,
            level: slot[0] as u8,
        }
    }

    fn store(self) -> Slot {
        [
            self.key & KEY_BITS | u64::from(self.level.max(1)),
            u64::from(self.pn) | (u64::from(self.dn) << 32),
        ]
    }

    fn solved(&self) -> bool {
        self.pn == 0 || self.dn == 0
    }

    /// How much the entry is worth keeping: solved first, then by work.
    fn worth(&self) -> (bool, u8) {
        (self.solved(), self.level)
    }
}

/// Bytes one entry takes.
pub(crate) const ENTRY_BYTES: usize = std::mem::size_of::<Slot>();

/// Bytes of a cache line (a bucket starts on one).
const LINE: usize = 64;

/// Zeroed slots, the first `base` of them skipped so that the rest start on a cache line, and
/// (on Linux) the memory marked for huge pages: the search reads buckets at random all over
/// gigabytes, and with 4 KiB pages most reads also missed the address translation's cache.
fn zeroed_lines(slots: usize) -> (Vec<Slot>, usize) {
    let per_line = LINE / ENTRY_BYTES;
    let v = vec![[0u64; 2]; slots + per_line];
    let misalign = v.as_ptr() as usize % LINE;
    let base = if misalign == 0 {
        0
    } else {
        (LINE - misalign) / ENTRY_BYTES
    };
    advise_huge_pages(&v);
    (v, base)
}

/// Asks the system for transparent huge pages under `v` (untouched memory still: the pages are
/// made as the search first writes them). A hint only; where it is refused nothing changes.
#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
fn advise_huge_pages(v: &[Slot]) {
    const HUGE: usize = 2 << 20;
    let start = v.as_ptr() as usize;
    let end = start + std::mem::size_of_val(v);
    let first = start.div_ceil(HUGE) * HUGE;
    let last = end / HUGE * HUGE;
    if last > first {
        // SAFETY: the range lies inside `v`'s allocation, which outlives the call, and
        // MADV_HUGEPAGE changes how pages are backed, never their contents.
        unsafe {
            libc::madvise(
                first as *mut libc::c_void,
                last - first,
                libc::MADV_HUGEPAGE,
            );
        }
    }
}

#[cfg(not(target_os = "linux"))]
fn advise_huge_pages(_: &[Slot]) {}

/// Reads the first word of each of `slots[at]` without waiting on one before the next (a
/// prefetch without `unsafe`: the lines arrive in the cache together).
fn read_each(slots: &[Slot], at: impl Iterator<Item = usize>) {
    let mut any = 0u64;
    for i in at {
        any ^= slots[i][0];
    }
    std::hint::black_box(any);
}

/// The table.
pub(crate) struct Table {
    slots: Vec<Slot>,
    /// Where the first bucket starts in `slots` (on a cache line).
    base: usize,
    buckets: usize,
    used: usize,
    /// Unsolved entries the buckets refused, one per slot, the newest kept.
    spill: Vec<Slot>,
}

impl Table {
    /// A table of about `bytes` bytes (at least one bucket and one spill slot).
    pub(crate) fn with_bytes(bytes: usize) -> Table {
        let spill = (bytes / 16 / ENTRY_BYTES).max(1);
        let buckets = ((bytes - spill * ENTRY_BYTES.min(bytes)) / (ENTRY_BYTES * WAYS)).max(1);
        let (slots, base) = zeroed_lines(buckets * WAYS);
        Table {
            slots,
            base,
            buckets,
            used: 0,
            spill: vec![[0u64; 2]; spill],
        }
    }

    /// The spill slot of `key` (from its low bits: the bucket takes the high ones).
    fn spill_slot(&self, key: u64) -> usize {
        (((key & 0xFFFF_FFFF) * self.spill.len() as u64) >> 32) as usize
    }

    /// The first slot of `key`'s bucket.
    fn bucket(&self, key: u64) -> usize {
        // The high bits pick the bucket (the low ones are already mixed into the key).
        self.base + ((u128::from(key) * self.buckets as u128) >> 64) as usize * WAYS
    }

    /// Reads the first entry of each key's bucket, all at once: the loads do not wait on each
    /// other, so the buckets (a cache line each) arrive together before [`Table::get`] needs
    /// them (a prefetch without `unsafe`).
    pub(crate) fn touch(&self, keys: impl Iterator<Item = u64>) {
        read_each(&self.slots, keys.map(|key| self.bucket(key)));
    }

    /// The proof and disproof numbers stored for `key`.
    pub(crate) fn get(&self, key: u64) -> Option<(u32, u32)> {
        self.entry(key).map(|e| (e.pn, e.dn))
    }

    /// The work level stored with `key` (1 to 255, about 4 levels a doubling of the nodes
    /// searched below it; 255 for a seeded entry).
    pub(crate) fn level(&self, key: u64) -> Option<u8> {
        self.entry(key).map(|e| e.level)
    }

    fn entry(&self, key: u64) -> Option<Entry> {
        let b = self.bucket(key);
        self.slots[b..b + WAYS]
            .iter()
            .find(|e| holds(e[0], key))
            // The spill only where the bucket misses.
            .or_else(|| {
                let spilled = &self.spill[self.spill_slot(key)];
                holds(spilled[0], key).then_some(spilled)
            })
            .map(Entry::load)
    }

    /// Stores the numbers of `key` with the work done below it.
    pub(crate) fn put(&mut self, key: u64, pn: u32, dn: u32, work: u64) {
        let level = work_level(work);
        let b = self.bucket(key);
        let bucket = &mut self.slots[b..b + WAYS];
        let slot = match bucket.iter().position(|e| holds(e[0], key)) {
            Some(i) => i,
            None => match bucket.iter().position(|e| e[0] == 0) {
                Some(i) => {
                    self.used += 1;
                    i
                }
                None => {
                    let (i, victim) = bucket
                        .iter()
                        .map(Entry::load)
                        .enumerate()
                        .min_by_key(|(_, e)| e.worth())
                        .expect("a bucket has entries");
                    let new = Entry { key, pn, dn, level };
                    // A solved entry never makes way for an unsolved one: that goes to the
                    // spill.
                    if victim.solved() && !new.solved() {
                        let spilled = self.spill_slot(key);
                        self.spill[spilled] = new.store();
                        return;
                    }
                    i
                }
            },
        };
        // Kept in its bucket now: an older spilled copy would only be stale.
        let spilled = self.spill_slot(key);
        if holds(self.spill[spilled][0], key) {
            self.spill[spilled] = [0; 2];
        }
        let bucket = &mut self.slots[b..b + WAYS];
        let old = Entry::load(&bucket[slot]);
        let level = if holds(bucket[slot][0], key) {
            old.level.max(level)
        } else {
            level
        };
        bucket[slot] = Entry { key, pn, dn, level }.store();
    }

    /// Drops the entry of `key`, if any.
    pub(crate) fn forget(&mut self, key: u64) {
        let b = self.bucket(key);
        if let Some(e) = self.slots[b..b + WAYS]
            .iter_mut()
            .find(|e| holds(e[0], key))
        {
            *e = [0; 2];
            self.used -= 1;
        }
        let slot = self.spill_slot(key);
        if holds(self.spill[slot][0], key) {
            self.spill[slot] = [0; 2];
        }
    }

    /// Entries in use.
    pub(crate) fn used(&self) -> usize {
        self.used
    }

    /// Entries it can hold.
    pub(crate) fn capacity(&self) -> usize {
        self.buckets * WAYS
    }

    /// Every solved entry: its key and whether it is proven (else disproven).
    pub(crate) fn solved(&self) -> impl Iterator<Item = (u64, bool)> + '_ {
        self.slots[self.base..self.base + self.buckets * WAYS]
            .iter()
            .map(Entry::load)
            .filter(|e| e.level != 0 && e.solved())
            .map(|e| (e.key, e.pn == 0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A key as the search makes them (spread over all the bits).
    fn k(i: u64) -> u64 {
        i.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1
    }

    #[test]
    fn a_solved_entry_outlives_unsolved_ones_in_a_full_bucket() {
        let mut t = Table::with_bytes(ENTRY_BYTES * WAYS); // one bucket
        t.put(k(1), 0, INFINITE, 1); // proven, little work
        for i in 2..=4 {
            t.put(k(i), 5, 5, 100);
        }
        assert_eq!(t.used(), 4);
        // A fifth unsolved key replaces the unsolved entry with the least work, not the proof.
        t.put(k(9), 3, 3, 200);
        assert_eq!(t.get(k(1)), Some((0, INFINITE)));
        assert_eq!(t.get(k(9)), Some((3, 3)));
        assert_eq!(
            [2, 3, 4].iter().filter(|&&i| t.get(k(i)).is_some()).count(),
            2
        );
        // An unsolved key cannot push out solved ones.
        let mut t = Table::with_bytes(ENTRY_BYTES * WAYS);
        for i in 1..=4 {
            t.put(k(i), INFINITE, 0, 1);
        }
        t.put(k(7), 1, 1, 1_000);
        assert_eq!(t.solved().count(), 4);
        assert_eq!((1..=4).filter(|&i| t.get(k(i)).is_some()).count(), 4);
        // ... it keeps its numbers in the spill instead, until another key takes its slot
        // there.
        assert_eq!(t.get(k(7)), Some((1, 1)));
        t.put(k(7), 2, 3, 1_500);
        assert_eq!(t.get(k(7)), Some((2, 3)));
        // A key for the same spill slot: the same low 32 bits.
        let other = k(7) ^ (1 << 40);
        t.put(other, 4, 4, 10);
        assert_eq!(t.get(other), Some((4, 4)));
        assert_eq!(t.get(k(7)), None);
        // Solved, it takes a bucket's place (the solved entry with the least work) and leaves
        // no stale copy behind.
        t.put(other, 0, INFINITE, 20);
        assert_eq!(t.get(other), Some((0, INFINITE)));
        assert_eq!(t.spill.iter().filter(|e| e[0] != 0).count(), 0);
        t.forget(other);
        assert_eq!(t.get(other), None);
    }

    #[test]
    fn buckets_start_on_a_cache_line_and_levels_keep_the_order_of_work() {
        for bytes in [1 << 12, (1 << 16) + 48, 3 << 20] {
            let t = Table::with_bytes(bytes);
            for key in (0..1000).map(k) {
                let addr = t.slots[t.bucket(key)..].as_ptr() as usize;
                assert_eq!(addr % LINE, 0, "{bytes} bytes, key {key:x}");
            }
            assert!(t.base + t.capacity() <= t.slots.len());
        }
        let works = [
            0,
            1,
            2,
            3,
            5,
            8,
            100,
            101,
            1_000,
            1 << 20,
            1 << 40,
            u64::MAX / 2,
        ];
        for pair in works.windows(2) {
            let (a, b) = (work_level(pair[0]), work_level(pair[1]));
            assert!(a <= b && a >= 1, "{pair:?}: {a} {b}");
        }
        // A quarter of a doubling a step: 100 and 150 apart, 100 and 101 alike.
        assert!(work_level(100) < work_level(150));
        assert_eq!(work_level(100), work_level(101));
        assert_eq!(work_level(u64::MAX / 2), 252);
    }

    #[test]
    fn updating_a_key_keeps_one_entry() {
        let mut t = Table::with_bytes(1 << 16);
        t.put(k(42), 3, 4, 10);
        t.put(k(42), 0, INFINITE, 5);
        assert_eq!(t.used(), 1);
        assert_eq!(t.get(k(42)), Some((0, INFINITE)));
        assert_eq!(
            t.solved().collect::<Vec<_>>(),
            vec![(k(42) & KEY_BITS, true)]
        );
    }
}

/// What is known about one placement (stones and side to move) at every counter at once.
///
/// A result only gets better for whoever can force it when more turns are left before the
/// no-progress draw, so a proof or a disproof at one counter holds on one side of it: a win
/// proven at counter `c` holds at every counter below `c`, a draw-or-better at every counter
/// above; a win disproven at `c` stays disproven above, a draw-or-better disproven (the other
/// side wins) below. `proven` and `disproven` are the edges found so far, already oriented by
/// the caller: a counter is covered when it lies on the covered side of the edge.
#[derive(Clone, Copy, Default)]
struct Edge {
    key: u64,
    proven: Option<u8>,
    disproven: Option<u8>,
}

impl Edge {
    /// Stored as two words, zero when empty (see [`Slot`]): an edge `c` as `c + 1`, none as 0.
    fn load(w: &[u64; 2]) -> Edge {
        let edge = |b: u64| (b & 0xFFFF).checked_sub(1).map(|c| c as u8);
        Edge {
            key: w[0],
            proven: edge(w[1]),
            disproven: edge(w[1] >> 16),
        }
    }

    fn store(self) -> [u64; 2] {
        let edge = |c: Option<u8>| c.map_or(0, |c| u64::from(c) + 1);
        [self.key, edge(self.proven) | (edge(self.disproven) << 16)]
    }
}

/// Which side of an edge a result holds on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Holds {
    /// At the edge's counter and every counter below it.
    AtOrBelow,
    /// At the edge's counter and every counter above it.
    AtOrAbove,
}

impl Holds {
    fn covers(self, edge: u8, counter: u8) -> bool {
        match self {
            Holds::AtOrBelow => counter <= edge,
            Holds::AtOrAbove => counter >= edge,
        }
    }

    /// The wider of two edges.
    fn widest(self, a: Option<u8>, b: u8) -> u8 {
        match (self, a) {
            (_, None) => b,
            (Holds::AtOrBelow, Some(a)) => a.max(b),
            (Holds::AtOrAbove, Some(a)) => a.min(b),
        }
    }
}

/// Placement-wide results (direct-mapped; a lost entry only costs a search).
pub(crate) struct Edges {
    entries: Vec<[u64; 2]>,
    proven: Holds,
    disproven: Holds,
}

impl Edges {
    /// About `bytes` bytes of edges, proofs holding on the `proven` side and disproofs on the
    /// `disproven` side.
    pub(crate) fn with_bytes(bytes: usize, proven: Holds, disproven: Holds) -> Edges {
        let n = (bytes / 16).max(1);
        let entries = vec![[0u64; 2]; n];
        advise_huge_pages(&entries);
        Edges {
            entries,
            proven,
            disproven,
        }
    }

    fn slot(&self, key: u64) -> usize {
        ((u128::from(key) * self.entries.len() as u128) >> 64) as usize
    }

    /// Reads the entry of each key at once (see [`Table::touch`]).
    pub(crate) fn touch(&self, keys: impl Iterator<Item = u64>) {
        read_each(&self.entries, keys.map(|key| self.slot(key)));
    }

    /// `Some(true)` when a proof at another counter covers `counter`, `Some(false)` for a
    /// disproof, `None` when nothing known does.
    pub(crate) fn get(&self, key: u64, counter: u8) -> Option<bool> {
        let e = Edge::load(&self.entries[self.slot(key)]);
        if e.key != key {
            return None;
        }
        if e.proven.is_some_and(|p| self.proven.covers(p, counter)) {
            return Some(true);
        }
        if e.disproven
            .is_some_and(|d| self.disproven.covers(d, counter))
        {
            return Some(false);
        }
        None
    }

    /// Records a proof (or a disproof) of the placement `key` at `counter`.
    pub(crate) fn put(&mut self, key: u64, counter: u8, proven: bool) {
        let slot = self.slot(key);
        let mut e = Edge::load(&self.entries[slot]);
        if e.key != key {
            e = Edge {
                key,
                proven: None,
                disproven: None,
            };
        }
        if proven {
            e.proven = Some(self.proven.widest(e.proven, counter));
        } else {
            e.disproven = Some(self.disproven.widest(e.disproven, counter));
        }
        self.entries[slot] = e.store();
    }
}

#[cfg(test)]
mod edge_tests {
    use super::*;

    #[test]
    fn a_proof_covers_its_side_of_the_counter_and_the_widest_edge_is_kept() {
        // A win: proofs hold below, disproofs above.
        let mut e = Edges::with_bytes(1 << 12, Holds::AtOrBelow, Holds::AtOrAbove);
        e.put(7, 20, true);
        assert_eq!(e.get(7, 20), Some(true));
        assert_eq!(e.get(7, 3), Some(true));
        assert_eq!(e.get(7, 21), None);
        e.put(7, 10, true); // narrower: the edge stays at 20
        assert_eq!(e.get(7, 15), Some(true));
        e.put(7, 40, false);
        assert_eq!(e.get(7, 45), Some(false));
        assert_eq!(e.get(7, 30), None);
        assert_eq!(e.get(8, 3), None, "another placement");
        // Counter 0 is an edge like any other (stored as 1, none as 0).
        let mut d = Edges::with_bytes(1 << 12, Holds::AtOrAbove, Holds::AtOrBelow);
        d.put(9, 0, false);
        assert_eq!(d.get(9, 0), Some(false));
        assert_eq!(d.get(9, 1), None);
        d.put(9, 0, true);
        assert_eq!(d.get(9, 49), Some(true));
    }
}
