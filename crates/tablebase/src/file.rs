//! The table file: one material class per file, in the project's checksummed container.
//!
//! Payload (little-endian): `u32` no-progress limit, `u8` stones of the side to move, `u8`
//! stones of the other side, `u16` index scheme (1), `u64` number of entries, then one byte
//! per entry (see `value.rs`: result and distance at counter 0).

use std::path::{Path, PathBuf};

use fanorona_data::container;

use crate::TableError;
use crate::index::ClassIndex;
use crate::value::{self, Entry};

/// Magic of a table file.
pub const MAGIC: &[u8; 8] = b"FNRNTBLE";
/// Format version.
pub const VERSION: u32 = 1;
const INDEX_SCHEME: u16 = 1;
const HEADER: usize = 16;

/// The file name of a class: `3v2.fntb` holds positions where the side to move has 3 stones
/// and the other side 2.
pub fn file_name(own: usize, other: usize) -> String {
    format!("{own}v{other}.fntb")
}

/// Parse a file name made by [`file_name`].
pub fn parse_file_name(name: &str) -> Option<(usize, usize)> {
    let stem = name.strip_suffix(".fntb")?;
    let (a, b) = stem.split_once('v')?;
    Some((a.parse().ok()?, b.parse().ok()?))
}

/// The entries of one class, ready to probe.
pub(crate) struct ClassTable {
    pub(crate) index: ClassIndex,
    pub(crate) entries: Vec<Entry>,
}

pub(crate) fn write(path: &Path, limit: u32, table: &ClassTable) -> Result<(), TableError> {
    let mut payload = Vec::with_capacity(HEADER + table.entries.len());
    payload.extend_from_slice(&limit.to_le_bytes());
    payload.push(table.index.own() as u8);
    payload.push(table.index.other() as u8);
    payload.extend_from_slice(&INDEX_SCHEME.to_le_bytes());
    payload.extend_from_slice(&(table.entries.len() as u64).to_le_bytes());
    payload.extend(
        table
            .entries
            .iter()
            .map(|&e| if e == value::UNUSED { value::DRAW } else { e }),
    );
    container::write_atomic(path, MAGIC, VERSION, &payload).map_err(TableError::File)
}

/// Read and check a class file: container, rules, class, size and every entry.
pub(crate) fn read(
    path: &Path,
    limit: u32,
    own: usize,
    other: usize,
) -> Result<ClassTable, TableError> {
    let bad = |what: String| TableError::Corrupt {
        path: PathBuf::from(path),
        what,
    };
    let mut payload = container::read(path, MAGIC, VERSION).map_err(TableError::File)?;
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
    let entries_len = payload.len() - HEADER;
    if count != index.len() || entries_len as u64 != count {
        return Err(bad(format!(
            "{} entries (header says {count}), class {own}v{other} has {}",
            entries_len,
            index.len()
        )));
    }
    payload.drain(..HEADER);
    let entries = payload;
    let highest = value::loss(limit);
    if let Some(i) = entries
        .iter()
        .position(|&e| e > highest || (e % 2 == 1 && e > value::win(limit)))
    {
        return Err(bad(format!(
            "entry {i} holds {}, not a result within the limit {limit}",
            entries[i]
        )));
    }
    Ok(ClassTable { index, entries })
}
