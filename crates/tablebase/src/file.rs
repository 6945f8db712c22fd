//! The table files: two per material class, in the project's checksummed container.
//!
//! - `AvB.fnwdl`, the results: win, draw or loss at counter 0 for every index, five to a byte
//!   (base 3). Small enough to keep every class in memory; a search needs nothing else for a
//!   draw, or for any position at counter 0.
//! - `AvB.fntb`, the distances: one byte per index (result and distance, see `value.rs`), read
//!   when a probe first needs a distance (a win or a loss at a counter above 0, the best turn).
//!
//! Both payloads start alike (little-endian): `u32` no-progress limit, `u8` stones of the side
//! to move, `u8` stones of the other side, `u16` index scheme (1), `u64` number of entries;
//! then the packed results or the entry bytes. A folder of distance files alone (tables built
//! before the results files existed) is read whole, as it used to be.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};

use fanorona_data::container;

use crate::TableError;
use crate::index::ClassIndex;
use crate::value::{self, Entry};

/// Magic of a distance file (`.fntb`).
pub const MAGIC: &[u8; 8] = b"FNRNTBLE";
/// Magic of a results file (`.fnwdl`).
pub const WDL_MAGIC: &[u8; 8] = b"FNRNTWDL";
/// Format version (both kinds).
pub const VERSION: u32 = 1;
const INDEX_SCHEME: u16 = 1;
const HEADER: usize = 16;

/// The distance file of a class: `3v2.fntb` holds positions where the side to move has 3
/// stones and the other side 2.
pub fn file_name(own: usize, other: usize) -> String {
    format!("{own}v{other}.fntb")
}

/// The results file of a class: `3v2.fnwdl`.
pub fn wdl_file_name(own: usize, other: usize) -> String {
    format!("{own}v{other}.fnwdl")
}

/// Parse a file name made by [`file_name`].
pub fn parse_file_name(name: &str) -> Option<(usize, usize)> {
    parse_class(name.strip_suffix(".fntb")?)
}

/// Parse a file name made by [`wdl_file_name`].
pub fn parse_wdl_file_name(name: &str) -> Option<(usize, usize)> {
    parse_class(name.strip_suffix(".fnwdl")?)
}

fn parse_class(stem: &str) -> Option<(usize, usize)> {
    let (a, b) = stem.split_once('v')?;
    Some((a.parse().ok()?, b.parse().ok()?))
}

/// Where a class's distances are: in memory, or in a file read on first need.
enum Distances {
    Memory(Vec<Entry>),
    File {
        path: PathBuf,
        limit: u32,
        loaded: OnceLock<Result<Vec<Entry>, String>>,
        /// A background read was started.
        reading: AtomicBool,
    },
}

/// One class, ready to probe: its results always, its distances when needed.
pub(crate) struct ClassTable {
    pub(crate) index: ClassIndex,
    /// Win/draw/loss at counter 0, packed (see [`value::pack_wdl`]).
    pub(crate) wdl: Vec<u8>,
    distances: Distances,
    /// A failure to read the distances was reported.
    failure_reported: AtomicBool,
}

impl ClassTable {
    /// A class whose entries are all in memory.
    pub(crate) fn in_memory(index: ClassIndex, entries: Vec<Entry>) -> ClassTable {
        ClassTable {
            index,
            wdl: value::pack_wdl(&entries),
            distances: Distances::Memory(entries),
            failure_reported: AtomicBool::new(false),
        }
    }

    /// A class whose results are in memory and whose distances are read from `path` (a
    /// distance file for `limit`) when first needed.
    pub(crate) fn on_disk(index: ClassIndex, wdl: Vec<u8>, path: PathBuf, limit: u32) -> Self {
        ClassTable {
            index,
            wdl,
            distances: Distances::File {
                path,
                limit,
                loaded: OnceLock::new(),
                reading: AtomicBool::new(false),
            },
            failure_reported: AtomicBool::new(false),
        }
    }

    /// The one-byte entries (result and distance), read and checked on first call. The error
    /// says which file could not be used and why.
    pub(crate) fn entries(&self) -> Result<&[Entry], &str> {
        match &self.distances {
            Distances::Memory(e) => Ok(e),
            Distances::File {
                path,
                limit,
                loaded,
                ..
            } => loaded
                .get_or_init(|| {
                    let entries = read(path, *limit, self.index.own(), self.index.other())
                        .map_err(|e| e.to_string())?;
                    if value::pack_wdl(&entries) != self.wdl {
                        return Err(format!(
                            "{}: its results differ from those of {} beside it",
                            path.display(),
                            wdl_file_name(self.index.own(), self.index.other())
                        ));
                    }
                    Ok(entries)
                })
                .as_deref()
                .map_err(String::as_str),
        }
    }
}

impl ClassTable {
    /// The entries if they were read (or failed to be), without waiting: `None` while they
    /// are still on disk or being read.
    pub(crate) fn entries_ready(&self) -> Option<Result<&[Entry], &str>> {
        match &self.distances {
            Distances::Memory(e) => Some(Ok(e)),
            Distances::File { loaded, .. } => {
                Some(loaded.get()?.as_deref().map_err(String::as_str))
            }
        }
    }

    /// Whether this call is the first to see that the distances could not be read (so that
    /// it is reported once).
    pub(crate) fn first_failure(&self) -> bool {
        !self.failure_reported.swap(true, Ordering::AcqRel)
    }

    /// Whether this call is the first to ask for a background read of the distances.
    pub(crate) fn claim_reading(&self) -> bool {
        match &self.distances {
            Distances::Memory(_) => false,
            Distances::File { reading, .. } => !reading.swap(true, Ordering::AcqRel),
        }
    }
}

fn header(limit: u32, index: &ClassIndex, entries: u64, body: usize) -> Vec<u8> {
    let mut payload = Vec::with_capacity(HEADER + body);
    payload.extend_from_slice(&limit.to_le_bytes());
    payload.push(index.own() as u8);
    payload.push(index.other() as u8);
    payload.extend_from_slice(&INDEX_SCHEME.to_le_bytes());
    payload.extend_from_slice(&entries.to_le_bytes());
    payload
}

/// Write a class's distance file.
pub(crate) fn write(
    path: &Path,
    limit: u32,
    index: &ClassIndex,
    entries: &[Entry],
) -> Result<(), TableError> {
    let mut payload = header(limit, index, entries.len() as u64, entries.len());
    payload.extend(
        entries
            .iter()
            .map(|&e| if e == value::UNUSED { value::DRAW } else { e }),
    );
    container::write_atomic(path, MAGIC, VERSION, &payload).map_err(TableError::File)
}

/// Write a class's results file.
pub(crate) fn write_wdl(
    path: &Path,
    limit: u32,
    index: &ClassIndex,
    wdl: &[u8],
) -> Result<(), TableError> {
    let mut payload = header(limit, index, index.len(), wdl.len());
    payload.extend_from_slice(wdl);
    container::write_atomic(path, WDL_MAGIC, VERSION, &payload).map_err(TableError::File)
}

/// Read a file of either kind and check its header against the rules and the class; the
/// body that follows, of `body(entries)` bytes.
fn read_checked(
    path: &Path,
    magic: &[u8; 8],
    limit: u32,
    (own, other): (usize, usize),
    body: impl Fn(u64) -> u64,
) -> Result<Vec<u8>, TableError> {
    let bad = |what: String| TableError::Corrupt {
        path: PathBuf::from(path),
        what,
    };
    let mut payload = container::read(path, magic, VERSION).map_err(TableError::File)?;
    if payload.len() < HEADER {
        return Err(bad(format!(
            "payload of {} bytes has no header",
            payload.len()
        )));
    }
    let file_limit = u32::from_le_bytes([payload[0], payload[1], payload[2], payload[3]]);
    if file_limit != limit {
        return Err(TableError::Rules {
            path: PathBuf::from(path),
            file: file_limit,
            wanted: limit,
        });
    }
    let (a, b) = (payload[4] as usize, payload[5] as usize);
    if (a, b) != (own, other) {
        return Err(bad(format!(
            "holds class {a}v{b}, but its name says {own}v{other}"
        )));
    }
    let scheme = u16::from_le_bytes([payload[6], payload[7]]);
    if scheme != INDEX_SCHEME {
        return Err(bad(format!("unknown index scheme {scheme}")));
    }
    let index = ClassIndex::new(own, other);
    let mut count = [0u8; 8];
    count.copy_from_slice(&payload[8..16]);
    let count = u64::from_le_bytes(count);
    let body_len = (payload.len() - HEADER) as u64;
    if count != index.len() || body_len != body(count) {
        return Err(bad(format!(
            "{body_len} bytes for {count} entries; class {own}v{other} has {} entries, in {} bytes",
            index.len(),
            body(index.len())
        )));
    }
    payload.drain(..HEADER);
    Ok(payload)
}

/// Read and check a class's distance file: container, rules, class, size and every entry.
pub(crate) fn read(
    path: &Path,
    limit: u32,
    own: usize,
    other: usize,
) -> Result<Vec<Entry>, TableError> {
    let entries = read_checked(path, MAGIC, limit, (own, other), |n| n)?;
    let highest = value::loss(limit);
    if let Some(i) = entries
        .iter()
        .position(|&e| e > highest || (e % 2 == 1 && e > value::win(limit)))
    {
        return Err(TableError::Corrupt {
            path: PathBuf::from(path),
            what: format!(
                "entry {i} holds {}, not a result within the limit {limit}",
                entries[i]
            ),
        });
    }
    Ok(entries)
}

/// Read and check a class's results file: container, rules, class, size and every byte.
pub(crate) fn read_wdl(
    path: &Path,
    limit: u32,
    own: usize,
    other: usize,
) -> Result<Vec<u8>, TableError> {
    let wdl = read_checked(path, WDL_MAGIC, limit, (own, other), value::packed_len)?;
    if let Some(i) = wdl.iter().position(|&b| b > value::WDL_BYTE_MAX) {
        return Err(TableError::Corrupt {
            path: PathBuf::from(path),
            what: format!("byte {i} holds {}, not five results", wdl[i]),
        });
    }
    Ok(wdl)
}

/// Open one class of a tables folder: `kinds` says which of its files are there (a distance
/// file, a results file). With a results file, the distance file's head is checked now and its
/// body when first needed.
pub(crate) fn open_class(
    dir: &Path,
    limit: u32,
    own: usize,
    other: usize,
    (dtz, wdl): (bool, bool),
) -> Result<ClassTable, TableError> {
    let index = ClassIndex::new(own, other);
    let dtz_path = dir.join(file_name(own, other));
    if !wdl {
        return Ok(ClassTable::in_memory(
            index,
            read(&dtz_path, limit, own, other)?,
        ));
    }
    let wdl_path = dir.join(wdl_file_name(own, other));
    if !dtz {
        return Err(TableError::Corrupt {
            path: wdl_path,
            what: format!("its distance file {} is missing", file_name(own, other)),
        });
    }
    let wdl = read_wdl(&wdl_path, limit, own, other)?;
    peek(&dtz_path, limit, &index)?;
    Ok(ClassTable::on_disk(index, wdl, dtz_path, limit))
}

/// Check the head of a distance file (its kind, rules, class and length) without reading the
/// rest: the body is checked, checksum included, when it is read.
fn peek(path: &Path, limit: u32, index: &ClassIndex) -> Result<(), TableError> {
    use std::io::Read;
    let io = |error| {
        TableError::File(container::ContainerError::Io {
            path: PathBuf::from(path),
            error,
        })
    };
    let bad = |what: String| TableError::Corrupt {
        path: PathBuf::from(path),
        what,
    };
    let mut head = [0u8; container::HEADER_LEN + HEADER];
    let mut file = fanorona_data::open_regular(path).map_err(io)?;
    let size = file.metadata().map_err(io)?.len();
    file.read_exact(&mut head)
        .map_err(|_| bad(format!("{size} bytes: too short for a table")))?;
    if &head[..8] != MAGIC {
        return Err(bad("not a distance file (wrong magic)".to_string()));
    }
    let word = |at: usize| u32::from_le_bytes([head[at], head[at + 1], head[at + 2], head[at + 3]]);
    let file_limit = word(container::HEADER_LEN);
    if file_limit != limit {
        return Err(TableError::Rules {
            path: PathBuf::from(path),
            file: file_limit,
            wanted: limit,
        });
    }
    let (a, b) = (
        head[container::HEADER_LEN + 4] as usize,
        head[container::HEADER_LEN + 5] as usize,
    );
    let (own, other) = (index.own(), index.other());
    if (a, b) != (own, other) {
        return Err(bad(format!(
            "holds class {a}v{b}, but its name says {own}v{other}"
        )));
    }
    let want = (container::HEADER_LEN + HEADER) as u64 + index.len();
    if word(8) != VERSION || size != want {
        return Err(bad(format!(
            "{size} bytes of version {}: truncated or from another program (class {own}v{other} takes {want} bytes, version {VERSION})",
            word(8)
        )));
    }
    Ok(())
}
