//! Building the tables: classes in order of their number of stones, each pair of classes
//! (`a` against `b` and `b` against `a`, which paika moves connect) by retrograde analysis.
//!
//! 1. *Initial pass*, over every position of the pair: a side with no legal move has lost
//!    (distance 0); a side that must capture gets the best result of its capturing turns,
//!    read from the smaller classes at counter 0 (distance 1); any other position waits, with
//!    a count of the distinct positions its paika steps lead to.
//! 2. *Levels* `n = 1 ..= limit`: every position decided at level `n - 1` visits the
//!    positions one paika step before it (unmoving a stone of the side that just moved, and
//!    keeping only predecessors where no capture was available, as capture is compulsory).
//!    A predecessor of a loss is a win in `n`; a predecessor of a win counts one successor
//!    down and is a loss in `n` once every successor is a win.
//! 3. What is still undecided cannot be forced within the limit: a draw.
//!
//! Both passes run on every core: the initial pass writes chunks of positions in place, and a
//! level scans the entries for the positions decided at the distance before (no list of them
//! is kept: memory is the two bytes a position of the pair, entry and successor count), finds
//! their predecessors in parallel, slice by slice, and then applies them in order.

use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use crate::board::{
    capture_result, for_each_paika_predecessor, for_each_paika_successor, position,
};
use crate::file::{self, ClassTable};
use crate::index::{ClassIndex, MAX_SIDE_STONES};
use crate::value::{self, Entry, Probe, UNKNOWN, UNUSED, Wdl};
use crate::{TableError, Tablebase};

/// The largest total number of stones [`build_dir`] accepts (a side then has at most 7,
/// within the index's limit).
pub const MAX_STONES: usize = MAX_SIDE_STONES;

/// What the builder reports as it goes.
#[derive(Clone, Debug)]
pub enum Progress {
    /// The classes of one build, in the order they will be solved.
    Plan {
        /// Classes as (stones of the side to move, stones of the other side).
        classes: Vec<(usize, usize)>,
        /// Their number of entries in total.
        entries: u64,
    },
    /// A class was already on disk and valid: it is loaded, not rebuilt.
    Loaded(ClassStats),
    /// A class was solved (and written, when building into a directory).
    Solved(ClassStats),
}

/// Counts over one class at counter 0, over all positions (each symmetry image counted).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ClassStats {
    /// Stones of the side to move.
    pub own: usize,
    /// Stones of the other side.
    pub other: usize,
    /// Entries in the table (positions up to symmetry, plus unused indices).
    pub entries: u64,
    /// Positions won by the side to move.
    pub wins: u64,
    /// Positions drawn.
    pub draws: u64,
    /// Positions lost by the side to move.
    pub losses: u64,
    /// The longest distance of a win.
    pub longest_win: u32,
    /// The longest distance of a loss.
    pub longest_loss: u32,
    /// Seconds spent solving the pair of classes this one belongs to (0 when loaded).
    pub seconds: f64,
    /// Entries of that pair (this class and its mirror `other`v`own`), for rates.
    pub pair_entries: u64,
    /// Where the pair's time went (zero when loaded).
    pub time: PairTime,
}

/// Where the time of solving a pair of classes went, in seconds.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PairTime {
    /// The initial pass: blocked positions, captures read from the smaller classes, successor
    /// counts.
    pub initial: f64,
    /// The retrograde levels.
    pub levels: f64,
    /// How many levels decided something.
    pub level_count: u32,
    /// Computing the counts and writing the files.
    pub saving: f64,
}

impl ClassStats {
    /// `3v2`.
    pub fn name(&self) -> String {
        format!("{}v{}", self.own, self.other)
    }
}

/// The order classes are solved in: by total stones, then by the side to move's stones.
pub fn plan(max_stones: usize) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    for n in 2..=max_stones {
        for a in 1..n {
            out.push((a, n - a));
        }
    }
    out
}

fn check_request(max_stones: usize, limit: u32) -> Result<(), TableError> {
    if max_stones > MAX_STONES {
        return Err(TableError::TooManyStones {
            max: MAX_STONES,
            asked: max_stones,
        });
    }
    if limit == 0 || limit > value::MAX_LIMIT {
        return Err(TableError::Limit(limit));
    }
    Ok(())
}

/// Most threads a build or a verification runs (more are not started; fewer run when the
/// system refuses some, see [`fanorona_data::workers`]).
pub const MAX_THREADS: usize = 1024;

/// Solve every class with up to `max_stones` stones, in memory.
pub fn build_in_memory(
    max_stones: usize,
    limit: u32,
    threads: usize,
    progress: &mut dyn FnMut(Progress),
) -> Result<Tablebase, TableError> {
    build(None, max_stones, limit, threads, progress)
}

/// Solve every class with up to `max_stones` stones into `dir`, one file per class, each
/// written atomically as soon as its pair is solved. Classes already in `dir` (valid, same
/// rules) are loaded instead of solved, so an interrupted build resumes where it stopped.
pub fn build_dir(
    dir: &Path,
    max_stones: usize,
    limit: u32,
    threads: usize,
    progress: &mut dyn FnMut(Progress),
) -> Result<Tablebase, TableError> {
    std::fs::create_dir_all(dir).map_err(|error| TableError::Dir {
        path: dir.to_path_buf(),
        error,
    })?;
    // One builder at a time per folder: a second waits for the first, then loads what it
    // wrote (or refuses it, when it was built under another no-progress limit).
    let lock_path = dir.join(LOCK_FILE);
    let lock = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&lock_path)
        .map_err(|error| TableError::Dir {
            path: lock_path.clone(),
            error,
        })?;
    match lock.lock() {
        Ok(()) => {}
        // A file system without locks: build unlocked, as before.
        Err(e) if e.kind() == std::io::ErrorKind::Unsupported => {}
        Err(error) => {
            return Err(TableError::Dir {
                path: lock_path,
                error,
            });
        }
    }
    // The lock held: what an earlier builder killed mid-write left behind can go.
    fanorona_data::remove_stale_temporaries(dir);
    build(Some(dir), max_stones, limit, threads, progress)
}

/// The file a builder of a tables folder holds locked while it builds.
pub const LOCK_FILE: &str = "build.lock";

fn build(
    dir: Option<&Path>,
    max_stones: usize,
    limit: u32,
    threads: usize,
    progress: &mut dyn FnMut(Progress),
) -> Result<Tablebase, TableError> {
    check_request(max_stones, limit)?;
    let threads = threads.clamp(1, MAX_THREADS);
    let classes = plan(max_stones);
    let entries = classes
        .iter()
        .map(|&(a, b)| ClassIndex::new(a, b).len())
        .sum();
    progress(Progress::Plan {
        classes: classes.clone(),
        entries,
    });
    let mut tb = Tablebase::new(limit)?;
    for &(a, b) in &classes {
        if a > b || tb.table(a, b).is_some() {
            continue;
        }
        let pair: Vec<(usize, usize)> = if a == b {
            vec![(a, b)]
        } else {
            vec![(a, b), (b, a)]
        };
        if let Some(dir) = dir
            && let Some(loaded) = load_pair(dir, &pair, limit, threads)?
        {
            for (table, stats) in loaded {
                progress(Progress::Loaded(stats));
                tb.insert(table);
            }
            continue;
        }
        let started = Instant::now();
        let (tables, mut time) = solve_pair(&tb, &pair, limit, threads);
        let pair_entries = tables.iter().map(|(_, e)| e.len() as u64).sum();
        let saving = Instant::now();
        let mut solved = Vec::new();
        for (index, entries) in tables {
            let counts = stats(index, &entries, threads);
            let table = match dir {
                Some(dir) => save(dir, limit, index, &entries)?,
                None => ClassTable::in_memory(index, entries),
            };
            solved.push((table, counts));
        }
        time.saving = saving.elapsed().as_secs_f64();
        let seconds = started.elapsed().as_secs_f64();
        for (table, counts) in solved {
            progress(Progress::Solved(ClassStats {
                pair_entries,
                seconds,
                time,
                ..counts
            }));
            tb.insert(table);
        }
    }
    Ok(tb)
}

/// Write a solved class's distance file, then its results file, and keep only the results in
/// memory (the distances are read back when a probe needs them).
fn save(
    dir: &Path,
    limit: u32,
    index: ClassIndex,
    entries: &[Entry],
) -> Result<ClassTable, TableError> {
    let (own, other) = (index.own(), index.other());
    let path = dir.join(file::file_name(own, other));
    file::write(&path, limit, &index, entries)?;
    let wdl = value::pack_wdl(entries);
    file::write_wdl(
        &dir.join(file::wdl_file_name(own, other)),
        limit,
        &index,
        &wdl,
    )?;
    Ok(ClassTable::on_disk(index, wdl, path, limit))
}

/// Both classes of a pair from `dir` if both distance files are there and valid for `limit`,
/// with their counts; a results file missing or damaged beside a valid distance file is
/// written again. A file for other rules is an error (never silently replaced); a damaged
/// distance file is rebuilt.
fn load_pair(
    dir: &Path,
    pair: &[(usize, usize)],
    limit: u32,
    threads: usize,
) -> Result<Option<Vec<(ClassTable, ClassStats)>>, TableError> {
    let mut out = Vec::new();
    for &(a, b) in pair {
        let path = dir.join(file::file_name(a, b));
        if !path.exists() {
            return Ok(None);
        }
        let entries = match file::read(&path, limit, a, b) {
            Ok(e) => e,
            Err(e @ TableError::Rules { .. }) => return Err(e),
            Err(_) => return Ok(None),
        };
        let index = ClassIndex::new(a, b);
        let counts = stats(index, &entries, threads);
        let wdl = value::pack_wdl(&entries);
        let wdl_path = dir.join(file::wdl_file_name(a, b));
        match file::read_wdl(&wdl_path, limit, a, b) {
            Ok(found) if found == wdl => {}
            Err(e @ TableError::Rules { .. }) => return Err(e),
            _ => file::write_wdl(&wdl_path, limit, &index, &wdl)?,
        }
        out.push((ClassTable::on_disk(index, wdl, path, limit), counts));
    }
    Ok(Some(out))
}

/// Counts at counter 0, each position weighted by the number of its distinct symmetry images,
/// counted on `threads` threads.
fn stats(index: ClassIndex, entries: &[Entry], threads: usize) -> ClassStats {
    let parts = parallel_chunks(entries.len(), threads, |range| {
        let mut s = ClassStats::default();
        for i in range {
            let (own, other) = index.position(i as u64);
            if index.index(own, other) != i as u64 {
                continue;
            }
            let images = crate::index::images(own, other);
            let Some(p) = value::decode(entries[i]) else {
                continue;
            };
            match p.wdl {
                Wdl::Win => {
                    s.wins += images;
                    s.longest_win = s.longest_win.max(p.dtz);
                }
                Wdl::Draw => s.draws += images,
                Wdl::Loss => {
                    s.losses += images;
                    s.longest_loss = s.longest_loss.max(p.dtz);
                }
            }
        }
        s
    });
    parts.into_iter().fold(
        ClassStats {
            own: index.own(),
            other: index.other(),
            entries: entries.len() as u64,
            ..ClassStats::default()
        },
        |mut s, p| {
            s.wins += p.wins;
            s.draws += p.draws;
            s.losses += p.losses;
            s.longest_win = s.longest_win.max(p.longest_win);
            s.longest_loss = s.longest_loss.max(p.longest_loss);
            s
        },
    )
}

/// Per-class working state while a pair is solved.
struct Work {
    index: ClassIndex,
    entries: Vec<Entry>,
    /// Successors not yet known to be wins for the opponent (waiting paika positions only).
    pending: Vec<u8>,
}

/// Run `f` over `0..len` split into chunks, on `threads` threads, and collect what each
/// chunk returns, in chunk order.
fn parallel_chunks<T: Send>(
    len: usize,
    threads: usize,
    f: impl Fn(std::ops::Range<usize>) -> T + Sync,
) -> Vec<T> {
    let chunk = (len / (threads * 16)).clamp(1024, 1 << 20);
    let chunks = len.div_ceil(chunk);
    let next = AtomicU64::new(0);
    let results: Mutex<Vec<(usize, T)>> = Mutex::new(Vec::with_capacity(chunks));
    fanorona_data::workers::run_workers(threads.min(chunks.max(1)), || {
        loop {
            let c = next.fetch_add(1, Ordering::Relaxed) as usize;
            if c >= chunks {
                break;
            }
            let range = c * chunk..((c + 1) * chunk).min(len);
            let out = f(range);
            if let Ok(mut r) = results.lock() {
                r.push((c, out));
            }
        }
    });
    let mut results = results.into_inner().unwrap_or_default();
    results.sort_by_key(|(c, _)| *c);
    results.into_iter().map(|(_, t)| t).collect()
}

/// What the initial pass decides about one position.
enum Start {
    Unused,
    /// Decided now: blocked (a loss in 0) or a capture position (distance 1 or a draw).
    Decided(Entry),
    /// A paika position with this many distinct successors.
    Waiting(u8),
}

/// Indices of one class scanned for a level's frontier in one step: the events of a step are
/// collected, then applied (a few tens of MB at most).
const SCAN_SLICE: usize = 1 << 22;

fn solve_pair(
    smaller: &Tablebase,
    pair: &[(usize, usize)],
    limit: u32,
    threads: usize,
) -> (Vec<(ClassIndex, Vec<Entry>)>, PairTime) {
    let started = Instant::now();
    let mut time = PairTime::default();
    let mut work: Vec<Work> = pair
        .iter()
        .map(|&(a, b)| {
            let index = ClassIndex::new(a, b);
            let len = index.len() as usize;
            Work {
                index,
                entries: vec![UNKNOWN; len],
                pending: vec![0; len],
            }
        })
        .collect();
    let opposite = |k: usize| if pair.len() == 2 { 1 - k } else { 0 };
    let indexes: Vec<ClassIndex> = work.iter().map(|w| w.index).collect();

    // 1. initial pass, in place
    let mut at_one = 0;
    for k in 0..work.len() {
        at_one += initial_pass(smaller, &mut work[k], indexes[opposite(k)], threads);
    }
    time.initial = started.elapsed().as_secs_f64();

    // 2. levels: the frontier of level n is every position decided at distance n - 1, found
    // by scanning the entries (no list of decided positions is kept)
    for n in 1..=limit {
        let mut decided = 0u64;
        for k in 0..work.len() {
            let pk = opposite(k);
            let len = indexes[k].len() as usize;
            for first in (0..len).step_by(SCAN_SLICE) {
                let from = &work[k].entries;
                let end = (first + SCAN_SLICE).min(len);
                let events = parallel_chunks(end - first, threads, |range| {
                    frontier_events(
                        from,
                        first + range.start..first + range.end,
                        n,
                        indexes[k],
                        indexes[pk],
                    )
                });
                let w = &mut work[pk];
                for (j, from_loss) in events.into_iter().flatten() {
                    decided += u64::from(w.settle(j as usize, from_loss, n));
                }
            }
        }
        if decided == 0 && !(n == 1 && at_one > 0) {
            break;
        }
        time.level_count = n;
    }
    time.levels = started.elapsed().as_secs_f64() - time.initial;

    // 3. the rest are draws
    let tables = work
        .into_iter()
        .map(|w| {
            let mut entries = w.entries;
            for e in &mut entries {
                if *e == UNKNOWN {
                    *e = value::DRAW;
                }
            }
            (w.index, entries)
        })
        .collect();
    (tables, time)
}

impl Work {
    /// A paika successor of undecided position `j` was decided at level `n - 1`: a loss
    /// (`from_loss`) makes `j` a win in `n`; a win counts down `j`'s undecided successors and
    /// makes it a loss in `n` when none is left. Whether `j` was decided now.
    #[inline]
    fn settle(&mut self, j: usize, from_loss: bool, n: u32) -> bool {
        if self.entries[j] != UNKNOWN {
            return false;
        }
        if from_loss {
            self.entries[j] = value::win(n);
            return true;
        }
        self.pending[j] -= 1;
        if self.pending[j] == 0 {
            self.entries[j] = value::loss(n);
            return true;
        }
        false
    }
}

/// The predecessors (in class `to`) of the positions of `range` decided at distance `n - 1`,
/// each once per decided position, with whether that position is a loss.
fn frontier_events(
    entries: &[Entry],
    range: std::ops::Range<usize>,
    n: u32,
    from: ClassIndex,
    to: ClassIndex,
) -> Vec<(u32, bool)> {
    let lost_at = value::loss(n - 1);
    // nothing is won at distance 0
    let won_at = if n >= 2 { value::win(n - 1) } else { lost_at };
    let mut out = Vec::new();
    let mut found: Vec<u32> = Vec::with_capacity(64);
    let mut visit = |i: usize, e: Entry| {
        let (own, other) = from.position(i as u64);
        found.clear();
        for_each_paika_predecessor(own, other, |p_own, p_other| {
            found.push(to.index(p_own, p_other) as u32);
        });
        found.sort_unstable();
        found.dedup();
        out.extend(found.iter().map(|&j| (j, e == lost_at)));
    };
    // eight entries at a time: most words hold no position of the frontier
    let start = range.start;
    let words = entries[range].chunks_exact(8);
    let rest = words.remainder();
    let mut i = start;
    for word in words {
        let w = u64::from_le_bytes([
            word[0], word[1], word[2], word[3], word[4], word[5], word[6], word[7],
        ]);
        if holds_byte(w, lost_at) || holds_byte(w, won_at) {
            for (k, &e) in word.iter().enumerate() {
                if e == lost_at || e == won_at {
                    visit(i + k, e);
                }
            }
        }
        i += 8;
    }
    for (k, &e) in rest.iter().enumerate() {
        if e == lost_at || e == won_at {
            visit(i + k, e);
        }
    }
    out
}

/// Whether one of the eight bytes of `word` is `b`.
#[inline]
fn holds_byte(word: u64, b: u8) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    let x = word ^ (ONES * u64::from(b));
    x.wrapping_sub(ONES) & !x & (ONES << 7) != 0
}

/// Step 1 for one class, written in place on every core: blocked positions, capture
/// positions (from the smaller classes) and the successor counts of the others. The number
/// of positions decided at distance 1.
fn initial_pass(smaller: &Tablebase, w: &mut Work, succ: ClassIndex, threads: usize) -> u64 {
    let index = w.index;
    let chunk = (w.entries.len() / (threads * 16)).clamp(1024, 1 << 20);
    let jobs = Mutex::new(
        w.entries
            .chunks_mut(chunk)
            .zip(w.pending.chunks_mut(chunk))
            .enumerate(),
    );
    let at_one = AtomicU64::new(0);
    fanorona_data::workers::run_workers(threads, || {
        while let Some((c, (entries, pending))) = jobs.lock().ok().and_then(|mut j| j.next()) {
            let base = (c * chunk) as u64;
            let mut ones = 0;
            for (i, (e, p)) in entries.iter_mut().zip(pending.iter_mut()).enumerate() {
                match start(smaller, index, succ, base + i as u64) {
                    Start::Unused => *e = UNUSED,
                    Start::Decided(v) => {
                        *e = v;
                        ones += u64::from(v == value::win(1) || v == value::loss(1));
                    }
                    Start::Waiting(n) => *p = n,
                }
            }
            at_one.fetch_add(ones, Ordering::Relaxed);
        }
    });
    at_one.into_inner()
}

fn start(smaller: &Tablebase, index: ClassIndex, succ: ClassIndex, i: u64) -> Start {
    let (own, other) = index.position(i);
    if index.index(own, other) != i {
        return Start::Unused;
    }
    let pos = position(own, other);
    if !pos.has_legal_action() {
        return Start::Decided(value::loss(0));
    }
    if pos.has_capture() {
        let result = capture_result(&pos, |o, t| smaller.stored_wdl(o, t).unwrap_or(Wdl::Draw));
        return Start::Decided(encode(result));
    }
    let mut found = [0u64; 64];
    let mut n = 0;
    for_each_paika_successor(own, other, |o, t| {
        found[n] = succ.index(o, t);
        n += 1;
    });
    let found = &mut found[..n];
    found.sort_unstable();
    let mut distinct = 0u8;
    for (j, f) in found.iter().enumerate() {
        if j == 0 || found[j - 1] != *f {
            distinct += 1;
        }
    }
    Start::Waiting(distinct)
}

fn encode(p: Probe) -> Entry {
    match p.wdl {
        Wdl::Win => value::win(p.dtz),
        Wdl::Draw => value::DRAW,
        Wdl::Loss => value::loss(p.dtz),
    }
}

/// What [`verify`] checked.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct VerifyReport {
    /// Classes checked.
    pub classes: usize,
    /// Positions checked (up to symmetry).
    pub positions: u64,
}

/// Check every entry of every class against its successors: a blocked position is lost in 0,
/// a capture position has its best capture's result, a paika position wins one turn after its
/// fastest losing successor, loses one turn after its slowest winning successor when all are
/// wins, and is a draw otherwise (within the limit). Needs every class a capture can reach.
pub fn verify(
    tb: &Tablebase,
    threads: usize,
    progress: &mut dyn FnMut(&ClassStats),
) -> Result<VerifyReport, TableError> {
    let limit = tb.limit();
    let threads = threads.clamp(1, MAX_THREADS);
    let mut report = VerifyReport::default();
    let classes: Vec<(usize, usize)> = tb.classes().collect();
    // Every distance is needed (a class's successors are in its mirror): read them all first,
    // so that a damaged file is named as such.
    for &(a, b) in &classes {
        if let Some(table) = tb.table(a, b) {
            table
                .entries()
                .map_err(|what| TableError::Unreadable(what.to_string()))?;
        }
    }
    for (a, b) in classes {
        let Some(table) = tb.table(a, b) else {
            continue;
        };
        let index = table.index;
        let started = Instant::now();
        let entries = table
            .entries()
            .map_err(|what| TableError::Unreadable(what.to_string()))?;
        let bad = parallel_chunks(entries.len(), threads, |range| {
            let mut bad: Vec<(u64, Probe, Probe)> = Vec::new();
            let mut checked = 0u64;
            for i in range {
                let (own, other) = index.position(i as u64);
                if index.index(own, other) != i as u64 {
                    continue;
                }
                checked += 1;
                let stored = value::decode(entries[i]).unwrap_or(Probe::DRAW);
                let expected = expected(tb, own, other, limit);
                if expected != Some(stored) {
                    bad.push((i as u64, stored, expected.unwrap_or(Probe::DRAW)));
                }
            }
            (checked, bad)
        });
        let mut count = 0;
        let mut first = None;
        for (checked, list) in bad {
            report.positions += checked;
            count += list.len() as u64;
            if first.is_none() {
                first = list.into_iter().next();
            }
        }
        if let Some((i, stored, expected)) = first {
            let (own, other) = index.position(i);
            return Err(TableError::Inconsistent {
                class: format!("{a}v{b}"),
                count,
                first: format!(
                    "{} (side to move first) stores {stored}, its successors say {expected}",
                    position(own, other)
                ),
            });
        }
        report.classes += 1;
        progress(&ClassStats {
            seconds: started.elapsed().as_secs_f64(),
            ..stats(index, entries, threads)
        });
    }
    Ok(report)
}

/// The entry a position should have given its successors; `None` when a successor's table is
/// missing.
fn expected(tb: &Tablebase, own: u64, other: u64, limit: u32) -> Option<Probe> {
    let pos = position(own, other);
    if !pos.has_legal_action() {
        return Some(Probe {
            wdl: Wdl::Loss,
            dtz: 0,
        });
    }
    if pos.has_capture() {
        let mut missing = false;
        let r = capture_result(&pos, |o, t| {
            tb.stored_wdl(o, t).unwrap_or_else(|| {
                missing = true;
                Wdl::Draw
            })
        });
        return (!missing).then_some(r);
    }
    let mut fastest_loss: Option<u32> = None;
    let mut slowest_win: Option<u32> = Some(0);
    let mut missing = false;
    for_each_paika_successor(own, other, |o, t| match tb.stored(o, t, true) {
        Err(_) => missing = true,
        Ok(p) => {
            let p = value::at_remaining(p, limit - 1);
            match p.wdl {
                Wdl::Loss => {
                    fastest_loss = Some(fastest_loss.map_or(p.dtz, |d| d.min(p.dtz)));
                    slowest_win = None;
                }
                Wdl::Draw => slowest_win = None,
                Wdl::Win => slowest_win = slowest_win.map(|d| d.max(p.dtz)),
            }
        }
    });
    if missing {
        return None;
    }
    Some(if let Some(d) = fastest_loss {
        Probe {
            wdl: Wdl::Win,
            dtz: d + 1,
        }
    } else if let Some(d) = slowest_win {
        Probe {
            wdl: Wdl::Loss,
            dtz: d + 1,
        }
    } else {
        Probe::DRAW
    })
}
