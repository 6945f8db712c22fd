//! One atomic write for every file the project writes.
//!
//! The bytes go to a temporary file in the target's directory, which is synced, renamed over
//! the target, and then the directory is synced so the rename survives a crash: a reader sees
//! the old file or the complete new one, never a prefix. Killed mid-write, a writer leaves at
//! most a `.<name>.<pid>.<n>.tmp` file, which readers ignore.
//!
//! Only regular files are replaced. A symbolic link is followed and the file it points to is
//! written (atomically, in that file's directory); a target that is a directory, a FIFO, a
//! device or a socket is refused with an error naming it, so `--out /dev/null` never replaces
//! the system's `/dev/null`.

use std::fs::{self, File};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Why a file could not be written.
#[derive(Debug, thiserror::Error)]
pub enum AtomicWriteError {
    /// The operating system refused a write, sync or rename.
    #[error("{path}: {error}")]
    Io {
        /// The file (or directory) involved.
        path: PathBuf,
        /// The underlying error.
        error: io::Error,
    },
    /// The target exists and is not a regular file.
    #[error("{path}: not a regular file ({kind}); refusing to replace it")]
    NotARegularFile {
        /// The target.
        path: PathBuf,
        /// What it is: `directory`, `fifo`, `device`, `socket`.
        kind: &'static str,
    },
}

impl AtomicWriteError {
    fn io(path: &Path) -> impl FnOnce(io::Error) -> AtomicWriteError + '_ {
        move |error| AtomicWriteError::Io {
            path: path.to_path_buf(),
            error,
        }
    }

    /// The path the error is about.
    pub fn path(&self) -> &Path {
        match self {
            AtomicWriteError::Io { path, .. } | AtomicWriteError::NotARegularFile { path, .. } => {
                path
            }
        }
    }
}

/// Distinguishes temporary files of concurrent writers within one process.
static TEMP_COUNTER: AtomicU64 = AtomicU64::new(0);

/// Writes `bytes` to `path` atomically (see the [module docs](self)).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), AtomicWriteError> {
    write_atomic_with(path, |file| file.write_all(bytes))
}

/// Writes what `fill` writes to `path` atomically (see the [module docs](self)). `fill` gets
/// the temporary file; it need not sync it.
pub fn write_atomic_with(
    path: &Path,
    fill: impl FnOnce(&mut File) -> io::Result<()>,
) -> Result<(), AtomicWriteError> {
    let target = resolve_target(path)?;
    let dir = match target.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = target
        .file_name()
        .ok_or_else(|| {
            AtomicWriteError::io(&target)(io::Error::new(
                io::ErrorKind::InvalidInput,
                "the path has no file name",
            ))
        })?
        .to_string_lossy()
        .into_owned();
    let temp = dir.join(format!(
        ".{name}.{}.{}.tmp",
        std::process::id(),
        TEMP_COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    // Errors name the file being written, not its temporary (which is removed).
    let written = (|| {
        let mut file = File::create(&temp).map_err(AtomicWriteError::io(&target))?;
        fill(&mut file)
            .and_then(|()| file.sync_all())
            .map_err(AtomicWriteError::io(&target))?;
        drop(file);
        fs::rename(&temp, &target).map_err(AtomicWriteError::io(&target))
    })();
    if written.is_err() {
        // Best effort: the temporary file may not even exist.
        let _ = fs::remove_file(&temp);
        return written;
    }
    // What earlier writers of this file left when they were killed mid-write goes now, so
    // that repeated kills (an export stopped sixty times) do not pile temporaries up.
    remove_stale(&dir, Some(&name));
    sync_dir(&dir)
}

/// Removes the temporary files that [`write_atomic`] left in `dir` when its process died
/// mid-write (`.<name>.<pid>.<n>.tmp` of a process that no longer runs on this machine) and
/// returns how many. Only where the system lists its processes (`/proc`); elsewhere, and for
/// a live process's files, nothing is touched.
pub fn remove_stale_temporaries(dir: &Path) -> usize {
    remove_stale(dir, None)
}

/// [`remove_stale_temporaries`] for the temporaries of the file `only` (every file's when
/// `None`).
fn remove_stale(dir: &Path, only: Option<&str>) -> usize {
    let proc_root = Path::new("/proc");
    if !proc_root.join("self").exists() {
        return 0;
    }
    let Ok(listing) = fs::read_dir(dir) else {
        return 0;
    };
    let mut removed = 0;
    for entry in listing.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(stem) = name.strip_prefix('.').and_then(|n| n.strip_suffix(".tmp")) else {
            continue;
        };
        let mut parts = stem.rsplitn(3, '.');
        let (Some(counter), Some(pid), Some(target)) = (parts.next(), parts.next(), parts.next())
        else {
            continue;
        };
        if only.is_some_and(|only| only != target) {
            continue;
        }
        let ours = counter.parse::<u64>().is_ok() && pid.parse::<u32>().is_ok();
        if ours && !proc_root.join(pid).exists() && fs::remove_file(entry.path()).is_ok() {
            removed += 1;
        }
    }
    removed
}

/// The regular file to replace for `path`: `path` itself when it is new or a regular file, the
/// file a symbolic link points to, or an error for anything else.
fn resolve_target(path: &Path) -> Result<PathBuf, AtomicWriteError> {
    let meta = match fs::symlink_metadata(path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(path.to_path_buf()),
        Err(e) => return Err(AtomicWriteError::io(path)(e)),
    };
    if meta.file_type().is_symlink() {
        // Follow the link (and any chain of links) to what it names.
        let followed = match fs::canonicalize(path) {
            Ok(real) => real,
            // A dangling link: write the file it names.
            Err(_) => {
                let link = fs::read_link(path).map_err(AtomicWriteError::io(path))?;
                match path.parent() {
                    Some(dir) if link.is_relative() => dir.join(link),
                    _ => link,
                }
            }
        };
        return match fs::metadata(&followed) {
            Ok(meta) if !meta.is_file() => Err(not_regular(path, &meta)),
            _ => Ok(followed),
        };
    }
    if meta.is_file() {
        Ok(path.to_path_buf())
    } else {
        Err(not_regular(path, &meta))
    }
}

/// Checks that `path` (links followed) is a regular file before it is opened for reading, so
/// that a FIFO or a device in its place is refused instead of blocking the reader or feeding it
/// without end.
pub fn check_regular_file(path: &Path) -> io::Result<()> {
    let meta = fs::metadata(path)?;
    if meta.is_file() {
        Ok(())
    } else {
        Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("not a regular file ({})", kind_of(&meta)),
        ))
    }
}

/// Opens the regular file at `path` (links followed) for reading: the one way every reader of
/// the project's files opens them. Anything else is refused with an error that says what it is
/// (a FIFO, a device, a folder, a socket), and opening never blocks: on Unix the file is opened
/// with `O_NONBLOCK` and its type checked on the open file, so a FIFO put in place of a file
/// (even between a check and the open) cannot stall the reader.
pub fn open_regular(path: &Path) -> io::Result<File> {
    let mut options = fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    let file = options.open(path)?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("not a regular file ({})", kind_of(&meta)),
        ));
    }
    // O_NONBLOCK means nothing to a regular file's reads: it stays as it is.
    Ok(file)
}

/// Reads the whole regular file at `path` ([`open_regular`]: a FIFO, a device or a folder is
/// refused, never blocked on), refusing a file of more than `max_bytes` (checked on the open
/// file and while reading, so a file that grows meanwhile is refused too).
pub fn read_bounded(path: &Path, max_bytes: u64) -> io::Result<Vec<u8>> {
    use std::io::Read;
    let file = open_regular(path)?;
    let too_large = || {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!("larger than the {max_bytes} bytes such a file may hold"),
        )
    };
    let meta = file.metadata()?;
    if meta.len() > max_bytes {
        return Err(too_large());
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.take(max_bytes.saturating_add(1))
        .read_to_end(&mut bytes)?;
    if bytes.len() as u64 > max_bytes {
        return Err(too_large());
    }
    Ok(bytes)
}

fn not_regular(path: &Path, meta: &fs::Metadata) -> AtomicWriteError {
    AtomicWriteError::NotARegularFile {
        path: path.to_path_buf(),
        kind: kind_of(meta),
    }
}

#[cfg(unix)]
fn kind_of(meta: &fs::Metadata) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    let t = meta.file_type();
    if t.is_dir() {
        "directory"
    } else if t.is_fifo() {
        "fifo"
    } else if t.is_char_device() || t.is_block_device() {
        "device"
    } else if t.is_socket() {
        "socket"
    } else {
        "special file"
    }
}

#[cfg(not(unix))]
fn kind_of(meta: &fs::Metadata) -> &'static str {
    if meta.is_dir() {
        "directory"
    } else {
        "special file"
    }
}

#[cfg(unix)]
fn sync_dir(dir: &Path) -> Result<(), AtomicWriteError> {
    File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(AtomicWriteError::io(dir))
}

#[cfg(not(unix))]
fn sync_dir(_dir: &Path) -> Result<(), AtomicWriteError> {
    // Directories cannot be opened for syncing on every platform; the rename is still atomic.
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn temporaries_of_dead_writers_are_removed_and_live_ones_kept() {
        let dir = temp_dir("stale");
        let dead = dir.join(".a.games.4000000000.3.tmp");
        let live = dir.join(format!(".a.games.{}.0.tmp", std::process::id()));
        let other = dir.join(".notes.tmp");
        for path in [&dead, &live, &other] {
            fs::write(path, b"x").unwrap();
        }
        assert_eq!(remove_stale_temporaries(&dir), 1);
        assert!(!dead.exists() && live.exists() && other.exists());
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_write_removes_what_killed_writers_of_the_same_file_left() {
        // A killed export left `.target.fnm.PID.0.tmp` files that nothing removed.
        let dir = temp_dir("stale-same");
        let dead = |name: &str, pid: u32| dir.join(format!(".{name}.{pid}.0.tmp"));
        let (mine, other) = (dead("m.fnm", 4_000_000_001), dead("n.fnm", 4_000_000_002));
        for path in [&mine, &other] {
            fs::write(path, b"x").unwrap();
        }
        write_atomic(&dir.join("m.fnm"), b"model").unwrap();
        assert!(
            !mine.exists(),
            "the dead writer's temporary of m.fnm is gone"
        );
        assert!(other.exists(), "another file's is left to its own writer");
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn bounded_reads_refuse_devices_folders_and_oversized_files() {
        let dir = temp_dir("bounded");
        let path = dir.join("ten");
        fs::write(&path, b"0123456789").unwrap();
        assert_eq!(read_bounded(&path, 10).unwrap(), b"0123456789");
        let e = read_bounded(&path, 9).unwrap_err().to_string();
        assert!(e.contains("larger than the 9 bytes"), "{e}");
        let e = read_bounded(&dir, 100).unwrap_err().to_string();
        assert!(e.contains("not a regular file (directory)"), "{e}");
        #[cfg(unix)]
        {
            // A link to an endless device is refused, not read until memory runs out.
            let link = dir.join("zero");
            std::os::unix::fs::symlink("/dev/zero", &link).unwrap();
            let e = read_bounded(&link, 1 << 30).unwrap_err().to_string();
            assert!(e.contains("not a regular file"), "{e}");
        }
        fs::remove_dir_all(&dir).unwrap();
    }

    fn temp_dir(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("fanorona-atomic-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn leftovers(dir: &Path) -> Vec<String> {
        fs::read_dir(dir)
            .unwrap()
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".tmp"))
            .collect()
    }

    #[test]
    fn new_and_existing_files_are_replaced_whole() {
        let dir = temp_dir("replace");
        let path = dir.join("a.txt");
        write_atomic(&path, b"first").unwrap();
        write_atomic(&path, b"second, longer").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"second, longer");
        assert!(leftovers(&dir).is_empty());
    }

    #[test]
    fn a_failed_fill_leaves_the_old_file_and_no_temporary() {
        let dir = temp_dir("fail");
        let path = dir.join("a.txt");
        write_atomic(&path, b"old").unwrap();
        let err = write_atomic_with(&path, |f| {
            f.write_all(b"half")?;
            Err(io::Error::other("disk full"))
        })
        .unwrap_err();
        assert!(err.to_string().contains("disk full"), "{err}");
        // The error is about the file being written, not the temporary that is gone.
        assert_eq!(err.path(), path, "{err}");
        assert_eq!(fs::read(&path).unwrap(), b"old");
        assert!(leftovers(&dir).is_empty());
    }

    #[cfg(unix)]
    #[test]
    fn links_are_written_through_and_special_files_refused() {
        let dir = temp_dir("links");
        let real = dir.join("real.txt");
        write_atomic(&real, b"old").unwrap();
        let link = dir.join("link.txt");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        write_atomic(&link, b"new").unwrap();
        assert!(
            fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink(),
            "link kept"
        );
        assert_eq!(fs::read(&real).unwrap(), b"new");

        let err = write_atomic(&dir, b"x").unwrap_err();
        assert!(matches!(
            err,
            AtomicWriteError::NotARegularFile {
                kind: "directory",
                ..
            }
        ));
        let err = write_atomic(Path::new("/dev/null"), b"x").unwrap_err();
        assert!(err.to_string().contains("/dev/null"), "{err}");
        assert!(matches!(
            err,
            AtomicWriteError::NotARegularFile { kind: "device", .. }
        ));
        let fifo = dir.join("pipe");
        fanorona_testkit::make_fifo(&fifo);
        let err = check_regular_file(&fifo).unwrap_err();
        assert!(err.to_string().contains("fifo"), "{err}");
        assert!(check_regular_file(&real).is_ok());
        let to_dev = dir.join("to-dev");
        std::os::unix::fs::symlink("/dev/null", &to_dev).unwrap();
        assert!(
            write_atomic(&to_dev, b"x").is_err(),
            "a link to a device is refused too"
        );
    }
}
