//! The files the project writes: one atomic write for every file ([`write_atomic`]) and the
//! checksummed container that every binary format is built on ([`container`]: checkpoints,
//! exported models, replay shards).
//!
//! It also holds the one way the project starts worker threads ([`workers`]): a thread the
//! system refuses slows a job down instead of ending it with a panic.
//!
//! What it owns is deliberately small and free of heavy dependencies, so the network, the
//! training pipeline and the command line share one implementation of "never leave half a
//! file behind".
//!
//! ```
//! use fanorona_data::{container, write_atomic};
//!
//! let dir = std::env::temp_dir().join(format!("fanorona-data-doc-{}", std::process::id()));
//! std::fs::create_dir_all(&dir).unwrap();
//! write_atomic(&dir.join("notes.txt"), b"hello").unwrap();
//! assert_eq!(std::fs::read(dir.join("notes.txt")).unwrap(), b"hello");
//!
//! let path = dir.join("data.bin");
//! container::write_atomic(&path, b"FNRNTEST", 1, b"payload").unwrap();
//! assert_eq!(container::read(&path, b"FNRNTEST", 1).unwrap(), b"payload");
//! assert!(container::read(&path, b"FNRNTEST", 2).is_err()); // another version
//! ```

mod atomic;
pub mod container;
pub mod workers;

pub use atomic::{
    AtomicWriteError, check_regular_file, open_regular, read_bounded, remove_stale_temporaries,
    write_atomic, write_atomic_with,
};
pub use container::ContainerError;
