//! What commands write: standard output, through one writer that reports a closed or full
//! output as an error instead of panicking as `println!` does, and the output files named on
//! the command line, through one check of what they may replace ([`check_output_file`]).
//!
//! A reader that goes away (`fanorona perft 6 | head -1`) ends the command quietly, with the
//! exit status a program killed by `SIGPIPE` has (141), as C tools do: `main` recognises a
//! [`StdoutError`] whose cause is a broken pipe. Any other failure (`> /dev/full`: no space
//! left) is an error message and status 1. Files already written stay as they are.

use std::fmt;
use std::io::{self, Write};
use std::path::Path;

/// Writing to standard output failed.
#[derive(Debug)]
pub struct StdoutError(pub io::Error);

impl fmt::Display for StdoutError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "writing to standard output: {}", self.0)
    }
}

impl std::error::Error for StdoutError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.0)
    }
}

impl StdoutError {
    /// Whether the reader went away (a closed pipe): the command ends quietly.
    pub fn is_broken_pipe(&self) -> bool {
        self.0.kind() == io::ErrorKind::BrokenPipe
    }
}

/// Writes `text` to standard output and flushes it.
pub fn write(text: fmt::Arguments<'_>) -> Result<(), StdoutError> {
    let mut out = io::stdout().lock();
    out.write_fmt(text)
        .and_then(|()| out.flush())
        .map_err(StdoutError)
}

/// `println!` that returns a [`StdoutError`] instead of panicking.
macro_rules! say {
    ($($arg:tt)*) => {
        $crate::output::write(format_args!("{}\n", format_args!($($arg)*)))
    };
}

/// `print!` that returns a [`StdoutError`] instead of panicking.
macro_rules! say_raw {
    ($($arg:tt)*) => {
        $crate::output::write(format_args!($($arg)*))
    };
}

pub(crate) use {say, say_raw};

/// What a command writes to a file named on its command line (`--out`, `--plot`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileKind {
    /// A match's games (`pit --out`).
    Games,
    /// A model for play: a network (`.fnm`) or an evaluation (`.fne`) (`export --out`).
    Model,
    /// An SVG chart (`rate --plot`).
    Chart,
}

impl FileKind {
    fn describe(self) -> &'static str {
        match self {
            FileKind::Games => "a games file",
            FileKind::Model => "an exported model or evaluation",
            FileKind::Chart => "an SVG chart",
        }
    }
}

/// What the start of an existing file says it is.
fn kind_of_file(head: &[u8]) -> Option<Result<FileKind, &'static str>> {
    use fanorona_data::container::CHECKPOINT_MAGIC;
    let magic = head.get(..8);
    let is = |m: &[u8; 8]| magic == Some(&m[..]);
    Some(
        if is(&fanorona_net::MODEL_MAGIC) || is(&fanorona_eval::EVAL_MAGIC) {
            Ok(FileKind::Model)
        } else if head.starts_with(fanorona_arena::games_file::FORMAT_PREFIX.as_bytes()) {
            Ok(FileKind::Games)
        } else if head.starts_with(b"<svg ") {
            Ok(FileKind::Chart)
        } else if is(&CHECKPOINT_MAGIC) {
            Err("a training checkpoint")
        } else if is(&fanorona_train::replay::SHARD_MAGIC) {
            Err("a replay shard")
        } else if is(fanorona_tablebase::MAGIC) || is(fanorona_tablebase::WDL_MAGIC) {
            Err("an endgame table")
        } else if head.is_empty() {
            return None;
        } else {
            Err("something else (a config, a log, a run's file?)")
        },
    )
}

/// The one place that decides what an output file named by `flag` may replace: nothing (a new
/// name in an existing folder), an empty file, or a file of the same kind (what the command
/// wrote there before). A run's checkpoint, config or log, a table, a folder, a FIFO or a
/// device is never replaced: the command stops before any work, naming what is there.
pub fn check_output_file(flag: &str, path: &Path, kind: FileKind) -> anyhow::Result<()> {
    let named = || format!("{flag} {}", path.display());
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    anyhow::ensure!(
        dir.is_dir(),
        "{}: the folder {} does not exist",
        named(),
        dir.display()
    );
    let meta = match std::fs::metadata(path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(e) => anyhow::bail!("{}: {e}", named()),
    };
    anyhow::ensure!(
        !meta.is_dir(),
        "{}: that is a folder; give a file name",
        named()
    );
    anyhow::ensure!(
        meta.is_file(),
        "{}: that is not a regular file (a FIFO, a device, a socket); give a file name",
        named()
    );
    let mut head = Vec::with_capacity(64);
    {
        use std::io::Read;
        let file =
            fanorona_data::open_regular(path).map_err(|e| anyhow::anyhow!("{}: {e}", named()))?;
        file.take(64)
            .read_to_end(&mut head)
            .map_err(|e| anyhow::anyhow!("{}: {e}", named()))?;
    }
    match kind_of_file(&head) {
        None => Ok(()),
        Some(Ok(found)) if found == kind => Ok(()),
        Some(Ok(found)) => anyhow::bail!(
            "{}: it holds {}, not {}; refusing to replace it (give another file name)",
            named(),
            found.describe(),
            kind.describe()
        ),
        Some(Err(what)) => anyhow::bail!(
            "{}: it holds {what}, not {}; refusing to replace it (give another file name)",
            named(),
            kind.describe()
        ),
    }
}
