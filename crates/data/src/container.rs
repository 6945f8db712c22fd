//! A small self-describing binary container used for every file the project writes.
//!
//! Layout (all integers little-endian):
//!
//! | offset | size | field                                                       |
//! | ------ | ---- | ----------------------------------------------------------- |
//! | 0      | 8    | magic, chosen by the caller (`b"FNRNCKPT"`, `b"FNRNMODL"`) |
//! | 8      | 4    | format version (`u32`)                                      |
//! | 12     | 8    | payload length in bytes (`u64`)                             |
//! | 20     | 4    | CRC-32 of bytes `0..20` followed by the payload             |
//! | 24     | n    | payload                                                     |
//!
//! The checksum covers the header fields too, so a flipped bit in the version or length field
//! reads as corruption rather than as a file from another program revision.
//!
//! Files are written atomically ([`write_atomic`], through [`crate::write_atomic`]): a reader sees either the old file or the
//! complete new one, never a prefix. [`read`] never panics, whatever the file holds.
//!
//! A payload can itself be split into named sections with [`SectionWriter`] and
//! [`Sections`], which is how checkpoints and exported models store their parts.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use crate::atomic::AtomicWriteError;

/// Magic of a training checkpoint (of either model kind: a network's, or an evaluation's,
/// whose `eval` section is an evaluation file's payload).
pub const CHECKPOINT_MAGIC: [u8; 8] = *b"FNRNCKPT";
/// Format version of a training checkpoint.
pub const CHECKPOINT_VERSION: u32 = 1;

/// Size of the fixed header that precedes the payload.
pub const HEADER_LEN: usize = 24;

/// The part of the header the checksum covers before the payload (magic, version, length).
const CHECKSUMMED_HEADER_LEN: usize = 20;

/// Why a container file could not be written or read.
#[derive(Debug, thiserror::Error)]
pub enum ContainerError {
    /// The operating system refused a read, write, sync or rename.
    #[error("{path}: {error}")]
    Io {
        /// The file (or directory) involved.
        path: PathBuf,
        /// The underlying error.
        error: io::Error,
    },
    /// The target is not a regular file (a directory, a FIFO, a device).
    #[error(transparent)]
    Target(AtomicWriteError),
    /// The file exists but holds no bytes at all.
    #[error("{path}: file is empty")]
    Empty {
        /// The file read.
        path: PathBuf,
    },
    /// The file does not start with the expected magic: it is some other kind of file.
    #[error("{path}: wrong magic {found:?}, expected {expected:?}")]
    WrongMagic {
        /// The file read.
        path: PathBuf,
        /// The magic the caller asked for, as text where printable.
        expected: String,
        /// The first (up to) eight bytes of the file, as text where printable.
        found: String,
    },
    /// The file is shorter than its header says it should be.
    #[error("{path}: truncated, expected {expected} bytes but found {found}")]
    Truncated {
        /// The file read.
        path: PathBuf,
        /// Total length the header announces (or the header length, if even that is missing).
        expected: u64,
        /// Actual length of the file.
        found: u64,
    },
    /// The file is longer than header plus payload.
    #[error("{path}: {extra} unexpected trailing bytes after the payload")]
    TrailingData {
        /// The file read.
        path: PathBuf,
        /// Number of bytes past the announced end.
        extra: u64,
    },
    /// Header or payload bytes do not match the stored checksum.
    #[error("{path}: checksum mismatch (stored {stored:#010x}, computed {computed:#010x})")]
    ChecksumMismatch {
        /// The file read.
        path: PathBuf,
        /// Checksum stored in the header.
        stored: u32,
        /// Checksum of the bytes actually read.
        computed: u32,
    },
    /// The file is intact but written in a format version this program does not read.
    #[error("{path}: format version {found}, this program reads version {expected}")]
    WrongVersion {
        /// The file read.
        path: PathBuf,
        /// Version the caller expects.
        expected: u32,
        /// Version stored in the file.
        found: u32,
    },
    /// The payload passed its checksum but its inner structure (sections) is inconsistent.
    #[error("{path}: malformed payload: {detail}")]
    Malformed {
        /// The file read.
        path: PathBuf,
        /// What is wrong.
        detail: String,
    },
}

impl From<AtomicWriteError> for ContainerError {
    fn from(e: AtomicWriteError) -> Self {
        match e {
            AtomicWriteError::Io { path, error } => ContainerError::Io { path, error },
            other => ContainerError::Target(other),
        }
    }
}

impl ContainerError {
    fn io(path: &Path, error: io::Error) -> Self {
        Self::Io {
            path: path.to_path_buf(),
            error,
        }
    }
}

/// Renders a magic for error messages: printable ASCII as is, anything else escaped.
fn magic_text(bytes: &[u8]) -> String {
    bytes.escape_ascii().to_string()
}

fn checksum(header: &[u8], payload: &[u8]) -> u32 {
    let mut hasher = crc32fast::Hasher::new();
    hasher.update(header);
    hasher.update(payload);
    hasher.finalize()
}

/// Builds the 24-byte header for `payload`.
fn header(magic: &[u8; 8], version: u32, payload: &[u8]) -> [u8; HEADER_LEN] {
    let mut header = [0u8; HEADER_LEN];
    header[0..8].copy_from_slice(magic);
    header[8..12].copy_from_slice(&version.to_le_bytes());
    header[12..20].copy_from_slice(&(payload.len() as u64).to_le_bytes());
    let crc = checksum(&header[..CHECKSUMMED_HEADER_LEN], payload);
    header[20..24].copy_from_slice(&crc.to_le_bytes());
    header
}

/// Encodes a whole container (header followed by `payload`) in memory.
pub fn encode(magic: &[u8; 8], version: u32, payload: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(HEADER_LEN + payload.len());
    out.extend_from_slice(&header(magic, version, payload));
    out.extend_from_slice(payload);
    out
}

/// Checks an in-memory container and returns its payload.
///
/// `path` only names the source in errors. Checks run in this order: empty, magic, header
/// length, announced length, checksum, version. So a file from another format version that is
/// otherwise intact reports [`ContainerError::WrongVersion`], while a flipped bit anywhere
/// reports [`ContainerError::ChecksumMismatch`].
pub fn decode<'a>(
    path: &Path,
    bytes: &'a [u8],
    magic: &[u8; 8],
    expected_version: u32,
) -> Result<&'a [u8], ContainerError> {
    let path_buf = || path.to_path_buf();
    if bytes.is_empty() {
        return Err(ContainerError::Empty { path: path_buf() });
    }
    let magic_len = bytes.len().min(magic.len());
    if bytes[..magic_len] != magic[..magic_len] {
        return Err(ContainerError::WrongMagic {
            path: path_buf(),
            expected: magic_text(magic),
            found: magic_text(&bytes[..magic_len]),
        });
    }
    let found_len = bytes.len() as u64;
    let Some(header) = bytes.first_chunk::<HEADER_LEN>() else {
        return Err(ContainerError::Truncated {
            path: path_buf(),
            expected: HEADER_LEN as u64,
            found: found_len,
        });
    };
    let version = u32::from_le_bytes([header[8], header[9], header[10], header[11]]);
    let mut len_bytes = [0u8; 8];
    len_bytes.copy_from_slice(&header[12..20]);
    let payload_len = u64::from_le_bytes(len_bytes);
    let stored = u32::from_le_bytes([header[20], header[21], header[22], header[23]]);

    let available = found_len - HEADER_LEN as u64;
    if payload_len > available {
        return Err(ContainerError::Truncated {
            path: path_buf(),
            expected: (HEADER_LEN as u64).saturating_add(payload_len),
            found: found_len,
        });
    }
    if payload_len < available {
        return Err(ContainerError::TrailingData {
            path: path_buf(),
            extra: available - payload_len,
        });
    }
    let payload = &bytes[HEADER_LEN..];
    let computed = checksum(&header[..CHECKSUMMED_HEADER_LEN], payload);
    if computed != stored {
        return Err(ContainerError::ChecksumMismatch {
            path: path_buf(),
            stored,
            computed,
        });
    }
    if version != expected_version {
        return Err(ContainerError::WrongVersion {
            path: path_buf(),
            expected: expected_version,
            found: version,
        });
    }
    Ok(payload)
}

/// Reads the container at `path` and returns its payload after checking magic, length,
/// checksum and version. Never panics, whatever the file holds.
pub fn read(
    path: &Path,
    magic: &[u8; 8],
    expected_version: u32,
) -> Result<Vec<u8>, ContainerError> {
    read_up_to(path, magic, expected_version, MAX_FILE_BYTES)
}

/// [`read`] for a kind of file whose own bound is not [`MAX_FILE_BYTES`] (the solver's
/// certificates: a proof's strategy can hold hundreds of millions of positions).
pub fn read_up_to(
    path: &Path,
    magic: &[u8; 8],
    expected_version: u32,
    max_bytes: u64,
) -> Result<Vec<u8>, ContainerError> {
    let mut bytes =
        crate::atomic::read_bounded(path, max_bytes).map_err(|e| ContainerError::io(path, e))?;
    decode(path, &bytes, magic, expected_version)?;
    // The payload is everything after the header; reuse the allocation.
    bytes.drain(..HEADER_LEN);
    Ok(bytes)
}

/// Whether the file at `path` is a regular file that starts with `magic` (a quick look to tell
/// kinds of files apart; anything unreadable is `false`, and a FIFO or a device is never
/// opened, so the look cannot block).
pub fn has_magic(path: &Path, magic: &[u8; 8]) -> bool {
    let mut found = [0u8; 8];
    crate::atomic::open_regular(path)
        .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut found))
        .is_ok()
        && &found == magic
}

/// Largest container file read: 4 GiB (the largest network's checkpoint, weights and
/// optimiser state, is under 3 GiB).
pub const MAX_FILE_BYTES: u64 = 4 << 30;

/// Writes `payload` as a container at `path`, atomically (see [`crate::write_atomic`]):
/// readers see either the previous file or the complete new one.
pub fn write_atomic(
    path: &Path,
    magic: &[u8; 8],
    version: u32,
    payload: &[u8],
) -> Result<(), ContainerError> {
    let header = header(magic, version, payload);
    crate::atomic::write_atomic_with(path, |file| {
        file.write_all(&header)?;
        file.write_all(payload)
    })
    .map_err(ContainerError::from)
}

/// Builds a payload made of named sections.
///
/// Each section is stored as: name length (`u8`), name bytes (UTF-8), data length (`u64`
/// little-endian), data. Order is preserved; names should be unique.
#[derive(Debug, Default, Clone)]
pub struct SectionWriter {
    bytes: Vec<u8>,
}

impl SectionWriter {
    /// An empty payload.
    pub fn new() -> Self {
        Self::default()
    }

    /// Appends a section.
    ///
    /// # Panics
    ///
    /// Panics if `name` is longer than 255 bytes (names are short constants in this crate).
    #[must_use]
    pub fn section(mut self, name: &str, data: &[u8]) -> Self {
        let name_len = u8::try_from(name.len()).expect("section names are at most 255 bytes");
        self.bytes.push(name_len);
        self.bytes.extend_from_slice(name.as_bytes());
        self.bytes
            .extend_from_slice(&(data.len() as u64).to_le_bytes());
        self.bytes.extend_from_slice(data);
        self
    }

    /// The finished payload.
    pub fn finish(self) -> Vec<u8> {
        self.bytes
    }
}

/// The sections of a payload written by [`SectionWriter`], borrowed from the payload.
#[derive(Debug, Clone)]
pub struct Sections<'a> {
    path: PathBuf,
    entries: Vec<(&'a str, &'a [u8])>,
}

impl<'a> Sections<'a> {
    /// Splits `payload` into sections; `path` only names the source in errors.
    pub fn parse(path: &Path, payload: &'a [u8]) -> Result<Self, ContainerError> {
        let malformed = |detail: String| ContainerError::Malformed {
            path: path.to_path_buf(),
            detail,
        };
        let mut entries = Vec::new();
        let mut rest = payload;
        while let Some((&name_len, after)) = rest.split_first() {
            let name_len = usize::from(name_len);
            let (name, after) = after
                .split_at_checked(name_len)
                .ok_or_else(|| malformed("section name runs past the end".into()))?;
            let name = std::str::from_utf8(name)
                .map_err(|_| malformed("section name is not UTF-8".into()))?;
            let (len, after) = after
                .split_first_chunk::<8>()
                .ok_or_else(|| malformed(format!("section {name:?} has no length")))?;
            let len = usize::try_from(u64::from_le_bytes(*len))
                .map_err(|_| malformed(format!("section {name:?} is too large")))?;
            let (data, after) = after.split_at_checked(len).ok_or_else(|| {
                malformed(format!("section {name:?} runs past the end of the payload"))
            })?;
            entries.push((name, data));
            rest = after;
        }
        Ok(Self {
            path: path.to_path_buf(),
            entries,
        })
    }

    /// The data of the first section called `name`, if any.
    pub fn get(&self, name: &str) -> Option<&'a [u8]> {
        self.entries
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, data)| *data)
    }

    /// The data of the section called `name`, or [`ContainerError::Malformed`] naming it.
    pub fn require(&self, name: &str) -> Result<&'a [u8], ContainerError> {
        self.get(name).ok_or_else(|| ContainerError::Malformed {
            path: self.path.clone(),
            detail: format!("missing section {name:?}"),
        })
    }

    /// Section names in file order.
    pub fn names(&self) -> impl Iterator<Item = &'a str> + '_ {
        self.entries.iter().map(|(n, _)| *n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fanorona_testkit::TempDir;
    use std::fs;

    const MAGIC: [u8; 8] = *b"FNRNTEST";

    fn written(dir: &TempDir, payload: &[u8]) -> PathBuf {
        let path = dir.path().join("file.bin");
        write_atomic(&path, &MAGIC, 3, payload).unwrap();
        path
    }

    #[test]
    fn round_trip_and_no_temp_files_left() {
        let dir = TempDir::new("container");
        let path = written(&dir, b"hello payload");
        assert_eq!(read(&path, &MAGIC, 3).unwrap(), b"hello payload");
        let names: Vec<_> = fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(names.len(), 1, "temporary file left behind");
        // Overwriting replaces the file.
        write_atomic(&path, &MAGIC, 3, b"").unwrap();
        assert_eq!(read(&path, &MAGIC, 3).unwrap(), b"");
    }

    #[test]
    fn a_reader_given_its_own_bound_keeps_to_it() {
        let dir = TempDir::new("container");
        let path = written(&dir, &[7u8; 100]);
        let size = fs::metadata(&path).unwrap().len();
        assert_eq!(read_up_to(&path, &MAGIC, 3, size).unwrap(), [7u8; 100]);
        match read_up_to(&path, &MAGIC, 3, size - 1) {
            Err(e @ ContainerError::Io { .. }) => {
                assert!(e.to_string().contains("larger than the"), "{e}");
            }
            other => panic!("unexpected {other:?}"),
        }
    }

    #[test]
    fn rejects_empty_file() {
        let dir = TempDir::new("container");
        let path = dir.path().join("empty");
        fs::write(&path, b"").unwrap();
        assert!(matches!(
            read(&path, &MAGIC, 3),
            Err(ContainerError::Empty { .. })
        ));
    }

    #[test]
    fn rejects_missing_file_with_path() {
        let dir = TempDir::new("container");
        let path = dir.path().join("absent");
        match read(&path, &MAGIC, 3) {
            Err(e @ ContainerError::Io { .. }) => assert!(e.to_string().contains("absent")),
            other => panic!("unexpected {other:?}"),
        }
    }

    #[test]
    fn rejects_wrong_magic_and_garbage() {
        let dir = TempDir::new("container");
        let path = written(&dir, b"data");
        assert!(matches!(
            read(&path, b"FNRNOTHR", 3),
            Err(ContainerError::WrongMagic { .. })
        ));
        let garbage = dir.path().join("garbage");
        for len in [1usize, 5, 8, 23, 24, 100, 4096] {
            let bytes: Vec<u8> = (0..len).map(|i| (i * 7919 % 251) as u8).collect();
            fs::write(&garbage, &bytes).unwrap();
            assert!(matches!(
                read(&garbage, &MAGIC, 3),
                Err(ContainerError::WrongMagic { .. })
            ));
        }
    }

    #[test]
    fn rejects_wrong_version() {
        let dir = TempDir::new("container");
        let path = written(&dir, b"data");
        match read(&path, &MAGIC, 4) {
            Err(ContainerError::WrongVersion {
                expected: 4,
                found: 3,
                ..
            }) => {}
            other => panic!("unexpected {other:?}"),
        }
    }

    #[test]
    fn rejects_truncated_and_extended_files() {
        let dir = TempDir::new("container");
        let path = written(&dir, b"some longer payload");
        let full = fs::read(&path).unwrap();
        for keep in [7, 8, 12, 23, 24, full.len() - 1] {
            fs::write(&path, &full[..keep]).unwrap();
            let err = read(&path, &MAGIC, 3).unwrap_err();
            assert!(
                matches!(err, ContainerError::Truncated { .. }),
                "{keep} bytes: {err:?}"
            );
        }
        let mut longer = full.clone();
        longer.push(0);
        fs::write(&path, &longer).unwrap();
        assert!(matches!(
            read(&path, &MAGIC, 3),
            Err(ContainerError::TrailingData { extra: 1, .. })
        ));
    }

    #[test]
    fn rejects_any_flipped_bit_outside_the_magic() {
        let dir = TempDir::new("container");
        let path = written(&dir, b"payload bytes to protect");
        let full = fs::read(&path).unwrap();
        for i in 8..full.len() {
            let mut bad = full.clone();
            bad[i] ^= 0x10;
            fs::write(&path, &bad).unwrap();
            let err = read(&path, &MAGIC, 3).unwrap_err();
            // A flip in the length field makes the file look truncated or extended first.
            let expected = match i {
                12..20 => matches!(
                    err,
                    ContainerError::Truncated { .. } | ContainerError::TrailingData { .. }
                ),
                _ => matches!(err, ContainerError::ChecksumMismatch { .. }),
            };
            assert!(expected, "byte {i}: {err:?}");
        }
    }

    #[test]
    fn sections_round_trip_and_reject_garbage() {
        let path = Path::new("mem");
        let payload = SectionWriter::new()
            .section("a", b"first")
            .section("bb", b"")
            .section("c", &[0u8; 300])
            .finish();
        let sections = Sections::parse(path, &payload).unwrap();
        assert_eq!(sections.names().collect::<Vec<_>>(), ["a", "bb", "c"]);
        assert_eq!(sections.get("a"), Some(&b"first"[..]));
        assert_eq!(sections.get("bb"), Some(&b""[..]));
        assert_eq!(sections.require("c").unwrap().len(), 300);
        assert!(matches!(
            sections.require("zz"),
            Err(ContainerError::Malformed { .. })
        ));
        for cut in 1..payload.len() {
            // Every proper prefix either parses to fewer sections or is rejected; never panics.
            if let Ok(s) = Sections::parse(path, &payload[..cut]) {
                assert!(s.names().count() < 3);
            }
        }
        let junk: Vec<u8> = (0..1000).map(|i| (i * 31 % 256) as u8).collect();
        let _ = Sections::parse(path, &junk);
    }
}
