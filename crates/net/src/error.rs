//! The crate's error type.

use std::path::PathBuf;

use crate::loss::LossReport;
use fanorona_data::container::ContainerError;

/// Everything that can go wrong in this crate. Errors about files name the file.
#[derive(Debug, thiserror::Error)]
pub enum NetError {
    /// The container layer rejected a file (I/O, magic, version, truncation, checksum).
    #[error(transparent)]
    Container(#[from] ContainerError),
    /// A checkpoint of an evaluation run where a network was expected.
    #[error(
        "{}: a checkpoint of an evaluation run, not of a network: play it with alphabeta:eval={}",
        .0.display(),
        .0.display()
    )]
    EvaluationCheckpoint(PathBuf),
    /// A stored configuration could not be parsed.
    #[error("{path}: bad stored configuration: {detail}")]
    Config {
        /// The file read.
        path: PathBuf,
        /// Parser message.
        detail: String,
    },
    /// A model file whose network is not the shape a run asks for.
    #[error("{path}: {detail}")]
    OtherShape {
        /// The model file.
        path: PathBuf,
        /// Both shapes and what to do.
        detail: String,
    },
    /// Stored weights or optimizer state could not be decoded or do not fit the network.
    #[error("{path}: bad stored {what}: {detail}")]
    Record {
        /// The file read or written.
        path: PathBuf,
        /// Which part: "weights" or "optimizer state".
        what: &'static str,
        /// Message from burn's record layer.
        detail: String,
    },
    /// Stored metadata (counters, export metadata) could not be encoded or decoded.
    #[error("{path}: bad stored metadata: {detail}")]
    Metadata {
        /// The file read or written.
        path: PathBuf,
        /// Encoder or decoder message.
        detail: String,
    },
    /// A batch's host buffers do not have the lengths its batch size implies.
    #[error("bad batch: {field} has {found} values, expected {expected}")]
    BatchShape {
        /// Which buffer.
        field: &'static str,
        /// Expected number of values.
        expected: usize,
        /// Actual number of values.
        found: usize,
    },
    /// A training batch with no positions.
    #[error("empty training batch")]
    EmptyBatch,
    /// The loss was NaN or infinite; the optimizer step was skipped.
    #[error("non-finite loss {0:?}; optimizer step skipped")]
    NonFiniteLoss(LossReport),
    /// A network's layers do not fit together (found when it is loaded).
    #[error("network shape: {0}")]
    Shape(String),
    /// The device failed to run the network or to return its results.
    #[error("device error: {0}")]
    Device(String),
}
