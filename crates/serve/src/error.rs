//! Error types of the crate.

use std::net::SocketAddr;

use thiserror::Error;

/// Why the server (or the engine behind it) could not start or keep running.
#[derive(Debug, Error)]
pub enum ServeError {
    /// The listening socket could not be opened.
    #[error("cannot listen on {addr}: {error}")]
    Bind {
        /// The address asked for.
        addr: SocketAddr,
        /// The operating system's reason.
        error: std::io::Error,
    },
    /// Any other I/O failure of the runtime or the server.
    #[error("server I/O error: {0}")]
    Io(#[from] std::io::Error),
}
