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
//! Both passes run on every core: positions are split into chunks, and a level's frontier
//! into slices whose predecessors are found in parallel and then applied in order.

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
    let threads = threads.max(1);
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
            && let Some(loaded) = load_pair(dir, &pair, limit)?
        {
            for table in loaded {
                progress(Progress::Loaded(stats(&table, 0.0)));
                tb.insert(table);
            }
            continue;
        }
        let started = Instant::now();
        let tables = solve_pair(&tb, &pair, limit, threads);
        let seconds = started.elapsed().as_secs_f64();
        let pair_entries = tables.iter().map(|t| t.entries.len() as u64).sum();
        for table in tables {
            if let Some(dir) = dir {
                let (own, other) = (table.index.own(), table.index.other());
                file::write(&dir.join(file::file_name(own, other)), limit, &table)?;
            }
            progress(Progress::Solved(ClassStats {
                pair_entries,
                ..stats(&table, seconds)
            }));
            tb.insert(table);
        }
    }
    Ok(tb)
}

/// Both classes of a pair from `dir` if both files are there and valid for `limit`; a file
/// for other rules is an error (never silently replaced), a damaged one is rebuilt.
fn load_pair(
    dir: &Path,
    pair: &[(usize, usize)],
    limit: u32,
) -> Result<Option<Vec<ClassTable>>, TableError> {
    let mut out = Vec::new();
    for &(a, b) in pair {
        let path = dir.join(file::file_name(a, b));
        if !path.exists() {
            return Ok(None);
        }
        match file::read(&path, limit, a, b) {
            Ok(t) => out.push(t),
            Err(e @ TableError::Rules { .. }) => return Err(e),
            Err(_) => return Ok(None),
        }
    }
    Ok(Some(out))
}

/// Counts at counter 0, each position weighted by the number of its distinct symmetry images.
fn stats(table: &ClassTable, seconds: f64) -> ClassStats {
    let index = table.index;
    let mut s = ClassStats {
        own: index.own(),
        other: index.other(),
        entries: table.entries.len() as u64,
        seconds,
        ..ClassStats::default()
    };
    for (i, &e) in table.entries.iter().enumerate() {
        let (own, other) = index.position(i as u64);
        if index.index(own, other) != i as u64 {
            continue;
        }
        let images = crate::index::images(own, other);
        let Some(p) = value::decode(e) else { continue };
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
}

/// Per-class working state while a pair is solved.
struct Work {
    index: ClassIndex,
    entries: Vec<Entry>,
    /// Successors not yet known to be wins for the opponent (waiting paika positions only).
    pending: Vec<u8>,
}

/// One decided position to spread to its predecessors: (class in the pair, index, is a loss).
type Decided = (u8, u32, bool);

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
    std::thread::scope(|scope| {
        for _ in 0..threads.min(chunks.max(1)) {
            scope.spawn(|| {
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

fn solve_pair(
    smaller: &Tablebase,
    pair: &[(usize, usize)],
    limit: u32,
    threads: usize,
) -> Vec<ClassTable> {
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

    // 1. initial pass
    let mut frontier: Vec<Decided> = Vec::new();
    let mut level_one: Vec<Decided> = Vec::new();
    for k in 0..work.len() {
        let index = indexes[k];
        let succ = indexes[opposite(k)];
        let starts = parallel_chunks(index.len() as usize, threads, |range| {
            range
                .map(|i| start(smaller, index, succ, i as u64))
                .collect::<Vec<Start>>()
        });
        let w = &mut work[k];
        for (i, s) in starts.into_iter().flatten().enumerate() {
            match s {
                Start::Unused => w.entries[i] = UNUSED,
                Start::Decided(e) => {
                    w.entries[i] = e;
                    if e == value::loss(0) {
                        frontier.push((k as u8, i as u32, true));
                    } else if e != value::DRAW {
                        level_one.push((k as u8, i as u32, e == value::loss(1)));
                    }
                }
                Start::Waiting(n) => w.pending[i] = n,
            }
        }
    }

    // 2. levels
    for n in 1..=limit {
        let mut next = Vec::new();
        for slice in frontier.chunks(1 << 20) {
            let events = parallel_chunks(slice.len(), threads, |range| {
                let mut out: Vec<(u8, u32, bool)> = Vec::new();
                let mut found: Vec<u32> = Vec::with_capacity(64);
                for &(k, i, lost) in &slice[range] {
                    let k = k as usize;
                    let (own, other) = indexes[k].position(i as u64);
                    let pk = opposite(k);
                    found.clear();
                    for_each_paika_predecessor(own, other, |p_own, p_other| {
                        found.push(indexes[pk].index(p_own, p_other) as u32);
                    });
                    found.sort_unstable();
                    found.dedup();
                    out.extend(found.iter().map(|&j| (pk as u8, j, lost)));
                }
                out
            });
            for (k, j, from_loss) in events.into_iter().flatten() {
                let w = &mut work[k as usize];
                let j = j as usize;
                if w.entries[j] != UNKNOWN {
                    continue;
                }
                if from_loss {
                    w.entries[j] = value::win(n);
                    next.push((k, j as u32, false));
                } else {
                    w.pending[j] -= 1;
                    if w.pending[j] == 0 {
                        w.entries[j] = value::loss(n);
                        next.push((k, j as u32, true));
                    }
                }
            }
        }
        if n == 1 {
            next.append(&mut level_one);
        }
        frontier = next;
        if frontier.is_empty() {
            break;
        }
    }

    // 3. the rest are draws
    work.into_iter()
        .map(|w| {
            let mut entries = w.entries;
            for e in &mut entries {
                if *e == UNKNOWN {
                    *e = value::DRAW;
                }
            }
            ClassTable {
                index: w.index,
                entries,
            }
        })
        .collect()
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
        let result = capture_result(&pos, |o, t| smaller.stored(o, t).unwrap_or(Probe::DRAW));
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
    let mut report = VerifyReport::default();
    let classes: Vec<(usize, usize)> = tb.classes().collect();
    for (a, b) in classes {
        let Some(table) = tb.table(a, b) else {
            continue;
        };
        let index = table.index;
        let started = Instant::now();
        let bad = parallel_chunks(table.entries.len(), threads.max(1), |range| {
            let mut bad: Vec<(u64, Probe, Probe)> = Vec::new();
            let mut checked = 0u64;
            for i in range {
                let (own, other) = index.position(i as u64);
                if index.index(own, other) != i as u64 {
                    continue;
                }
                checked += 1;
                let stored = value::decode(table.entries[i]).unwrap_or(Probe::DRAW);
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
            ..stats(table, 0.0)
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
            tb.stored(o, t).unwrap_or_else(|| {
                missing = true;
                Probe::DRAW
            })
        });
        return (!missing).then_some(r);
    }
    let mut fastest_loss: Option<u32> = None;
    let mut slowest_win: Option<u32> = Some(0);
    let mut missing = false;
    for_each_paika_successor(own, other, |o, t| match tb.stored(o, t) {
        None => missing = true,
        Some(p) => {
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
