//! Standard output for every command: one writer that reports a closed or full output as an
//! error instead of panicking as `println!` does.
//!
//! A reader that goes away (`fanorona perft 6 | head -1`) ends the command quietly, with the
//! exit status a program killed by `SIGPIPE` has (141), as C tools do: `main` recognises a
//! [`StdoutError`] whose cause is a broken pipe. Any other failure (`> /dev/full`: no space
//! left) is an error message and status 1. Files already written stay as they are.

use std::fmt;
use std::io::{self, Write};

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
