//! The evaluation's weights as trained (floats), their shape, the bounds that keep the integer
//! path exact, the plain float forward pass, and the file they are kept in.
//!
//! **File** (`*.fne`): the project's container ([`fanorona_data::container`]) with magic
//! `FNRNEVAL`, version 1, and three sections: `config` (JSON: the input set, [`Inputs::file_name`],
//! and the hidden sizes), `meta` (JSON: what it was trained from) and `weights` (little-endian `f32`s in the
//! order of [`EvalWeights`]'s fields). Written atomically; a file that is damaged, of another
//! shape or whose weights leave the bounds of the integer path is refused with the reason.

use std::path::Path;

use fanorona_data::container::{self, ContainerError, SectionWriter, Sections};
use fanorona_engine::Position;
use serde::{Deserialize, Serialize};

use crate::features::Inputs;

/// Magic of an evaluation file.
pub const EVAL_MAGIC: [u8; 8] = *b"FNRNEVAL";
/// Format version of an evaluation file.
pub const EVAL_VERSION: u32 = 1;

/// Largest `|weight|` of the first layer of the stones set (the lines set's is smaller:
/// [`Inputs::l1_weight_max`]): with at most 44 stones on and the bias bound below, its integer
/// sum stays inside an `i16` at the activation scale (511 per unit).
pub const L1_WEIGHT_MAX: f32 = Inputs::Stones.l1_weight_max();
/// Largest `|bias|` of the first layer.
pub const L1_BIAS_MAX: f32 = 16.0;
/// Largest `|weight|` of the second and third layers.
pub const L2_WEIGHT_MAX: f32 = 8.0;
/// Largest `|bias|` of the second and third layers.
pub const L2_BIAS_MAX: f32 = 1000.0;

/// Centi-stones per unit of the network's output: it is trained in stones.
pub const CENTISTONES_PER_UNIT: f32 = 100.0;

/// Why an evaluation could not be read, written or used.
#[derive(Debug, thiserror::Error)]
pub enum EvalError {
    /// The container: missing, damaged, not an evaluation file.
    #[error(transparent)]
    Container(#[from] ContainerError),
    /// A section that does not decode.
    #[error("{path}: {detail}")]
    Malformed {
        /// The file.
        path: String,
        /// What is wrong.
        detail: String,
    },
    /// Weights of another shape than the config says, or a shape this program cannot run.
    #[error("{path}: {detail}")]
    Shape {
        /// The file (or `weights` for weights not from a file).
        path: String,
        /// What is wrong.
        detail: String,
    },
}

/// The input set and the sizes of the hidden layers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Shape {
    /// What the first layer reads.
    #[serde(default)]
    pub inputs: Inputs,
    /// Units of the first hidden layer (the sum of the stones' columns).
    pub hidden1: usize,
    /// Units of the second hidden layer.
    pub hidden2: usize,
}

impl Shape {
    /// First-layer sizes the integer path runs.
    pub const HIDDEN1: [usize; 4] = [32, 64, 128, 256];
    /// Second-layer sizes the integer path runs.
    pub const HIDDEN2: [usize; 3] = [8, 16, 32];

    /// Whether the integer path runs this shape.
    pub fn is_supported(&self) -> bool {
        Self::HIDDEN1.contains(&self.hidden1) && Self::HIDDEN2.contains(&self.hidden2)
    }

    /// How many floats the weights of this shape are.
    pub fn len(&self) -> usize {
        let (h1, h2) = (self.hidden1, self.hidden2);
        self.inputs.len() * h1 + h1 + h2 * h1 + h2 + h2 + 1
    }

    /// Never: every shape has weights.
    pub fn is_empty(&self) -> bool {
        false
    }
}

impl Default for Shape {
    fn default() -> Self {
        Shape {
            inputs: Inputs::Stones,
            hidden1: 64,
            hidden2: 16,
        }
    }
}

impl std::fmt::Display for Shape {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}x{}x{}x1",
            self.inputs.len(),
            self.hidden1,
            self.hidden2
        )
    }
}

/// The config section of a file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Config {
    features: String,
    hidden1: usize,
    hidden2: usize,
}

/// What an evaluation was trained from, kept in its file.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct EvalMeta {
    /// Optimiser steps.
    pub training_steps: u64,
    /// Self-play games it learned from.
    pub games: u64,
    /// A free label (the run's name).
    pub label: String,
}

/// The evaluation's weights as trained.
///
/// The network: `x` the 0/1 inputs of the shape's [`Inputs`], `c(v) = min(max(v, 0), 1)`,
/// `h1 = c(l1ᵀ x + b1)`, `h2 = c(l2 h1 + b2)`, `out = l3 · h2 + b3` in stones.
#[derive(Clone, Debug, PartialEq)]
pub struct EvalWeights {
    /// The hidden sizes.
    pub shape: Shape,
    /// First layer, feature-major: the `hidden1` weights of feature `f` at `f * hidden1`.
    pub l1: Vec<f32>,
    /// First layer's biases (`hidden1`).
    pub b1: Vec<f32>,
    /// Second layer, output-major: the `hidden1` weights of unit `j` at `j * hidden1`.
    pub l2: Vec<f32>,
    /// Second layer's biases (`hidden2`).
    pub b2: Vec<f32>,
    /// Output weights (`hidden2`).
    pub l3: Vec<f32>,
    /// Output bias.
    pub b3: f32,
}

impl EvalWeights {
    /// All zero weights of `shape` (an evaluation that says 0 everywhere).
    pub fn zeros(shape: Shape) -> EvalWeights {
        let (h1, h2) = (shape.hidden1, shape.hidden2);
        EvalWeights {
            shape,
            l1: vec![0.0; shape.inputs.len() * h1],
            b1: vec![0.0; h1],
            l2: vec![0.0; h2 * h1],
            b2: vec![0.0; h2],
            l3: vec![0.0; h2],
            b3: 0.0,
        }
    }

    /// The weights as one list, in file order.
    pub fn to_vec(&self) -> Vec<f32> {
        let mut v = Vec::with_capacity(self.shape.len());
        for part in [&self.l1, &self.b1, &self.l2, &self.b2, &self.l3] {
            v.extend_from_slice(part);
        }
        v.push(self.b3);
        v
    }

    /// Weights of `shape` from one list in file order.
    pub fn from_vec(shape: Shape, values: &[f32]) -> Result<EvalWeights, EvalError> {
        if values.len() != shape.len() {
            return Err(EvalError::Shape {
                path: "weights".into(),
                detail: format!(
                    "{} weights for the shape {shape}, which has {}",
                    values.len(),
                    shape.len()
                ),
            });
        }
        let (h1, h2) = (shape.hidden1, shape.hidden2);
        let mut rest = values;
        let mut take = |n: usize| {
            let (a, b) = rest.split_at(n);
            rest = b;
            a.to_vec()
        };
        Ok(EvalWeights {
            shape,
            l1: take(shape.inputs.len() * h1),
            b1: take(h1),
            l2: take(h2 * h1),
            b2: take(h2),
            l3: take(h2),
            b3: take(1)[0],
        })
    }

    /// Checks the sizes, that every weight is finite and inside the bounds the integer path
    /// needs, and that the shape is one it runs.
    pub fn check(&self) -> Result<(), String> {
        let s = self.shape;
        if !s.is_supported() {
            return Err(format!(
                "hidden sizes {}x{} are not run here (first layer one of {:?}, second one of {:?})",
                s.hidden1,
                s.hidden2,
                Shape::HIDDEN1,
                Shape::HIDDEN2
            ));
        }
        let sizes = [
            ("l1", self.l1.len(), s.inputs.len() * s.hidden1),
            ("b1", self.b1.len(), s.hidden1),
            ("l2", self.l2.len(), s.hidden2 * s.hidden1),
            ("b2", self.b2.len(), s.hidden2),
            ("l3", self.l3.len(), s.hidden2),
        ];
        for (name, have, want) in sizes {
            if have != want {
                return Err(format!(
                    "{name} has {have} weights, the shape {s} needs {want}"
                ));
            }
        }
        let bounded = [
            ("l1", &self.l1[..], s.inputs.l1_weight_max()),
            ("b1", &self.b1[..], L1_BIAS_MAX),
            ("l2", &self.l2[..], L2_WEIGHT_MAX),
            ("b2", &self.b2[..], L2_BIAS_MAX),
            ("l3", &self.l3[..], L2_WEIGHT_MAX),
            ("b3", std::slice::from_ref(&self.b3), L2_BIAS_MAX),
        ];
        for (name, values, max) in bounded {
            if let Some((i, v)) = values
                .iter()
                .enumerate()
                .find(|(_, v)| !v.is_finite() || v.abs() > max)
            {
                return Err(format!(
                    "{name}[{i}] = {v} is not a finite number within +-{max}"
                ));
            }
        }
        Ok(())
    }

    /// The plain float forward pass (the reference the integer path is tested against), in
    /// centi-stones for the side to move.
    pub fn evaluate_f32(&self, pos: &Position) -> f32 {
        let inputs = self.shape.inputs;
        let mut x = vec![0.0; inputs.len()];
        inputs.dense(pos, &mut x);
        self.forward_f32(&x) * CENTISTONES_PER_UNIT
    }

    /// The float network on dense inputs, in stones.
    pub fn forward_f32(&self, x: &[f32]) -> f32 {
        let (h1, h2) = (self.shape.hidden1, self.shape.hidden2);
        let clip = |v: f32| v.clamp(0.0, 1.0);
        let mut a1 = self.b1.clone();
        for (f, &xf) in x.iter().enumerate().take(self.shape.inputs.len()) {
            if xf != 0.0 {
                for (a, w) in a1.iter_mut().zip(&self.l1[f * h1..(f + 1) * h1]) {
                    *a += xf * w;
                }
            }
        }
        let a1: Vec<f32> = a1.into_iter().map(clip).collect();
        let mut out = self.b3;
        for j in 0..h2 {
            let row = &self.l2[j * h1..(j + 1) * h1];
            let s: f32 = self.b2[j] + row.iter().zip(&a1).map(|(w, a)| w * a).sum::<f32>();
            out += self.l3[j] * clip(s);
        }
        out
    }

    /// A stable fingerprint of the weights (64-bit FNV-1a of their bytes and the shape).
    pub fn fingerprint(&self) -> u64 {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        let mut eat = |bytes: &[u8]| {
            for &b in bytes {
                h = (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
            }
        };
        // The stones set adds nothing: its fingerprints are those of the files before the
        // lines set existed.
        if self.shape.inputs != Inputs::Stones {
            eat(self.shape.inputs.file_name().as_bytes());
        }
        eat(&(self.shape.hidden1 as u64).to_le_bytes());
        eat(&(self.shape.hidden2 as u64).to_le_bytes());
        for v in self.to_vec() {
            eat(&v.to_le_bytes());
        }
        h
    }

    /// Writes the weights and `meta` to `path`, atomically.
    pub fn save(&self, path: &Path, meta: &EvalMeta) -> Result<(), EvalError> {
        container::write_atomic(path, &EVAL_MAGIC, EVAL_VERSION, &self.payload(meta))?;
        Ok(())
    }

    /// Reads an evaluation file, checking everything (see the module's docs).
    pub fn load(path: &Path) -> Result<(EvalWeights, EvalMeta), EvalError> {
        let payload = container::read(path, &EVAL_MAGIC, EVAL_VERSION)?;
        Self::decode(path, &payload)
    }

    /// Reads the evaluation in `path`: an evaluation file, or a training checkpoint of an
    /// evaluation run (whose `eval` section is an evaluation file's payload).
    pub fn load_any(path: &Path) -> Result<(EvalWeights, EvalMeta), EvalError> {
        if !container::has_magic(path, &container::CHECKPOINT_MAGIC) {
            return Self::load(path);
        }
        let payload = container::read(
            path,
            &container::CHECKPOINT_MAGIC,
            container::CHECKPOINT_VERSION,
        )?;
        let sections = Sections::parse(path, &payload)?;
        let Some(eval) = sections.get("eval") else {
            return Err(EvalError::Malformed {
                path: path.display().to_string(),
                detail: "a checkpoint of a network run, not of an evaluation run".into(),
            });
        };
        Self::decode(path, eval)
    }

    /// The payload of an evaluation file of these weights and `meta` (what a checkpoint of an
    /// evaluation run keeps in its `eval` section).
    pub fn payload(&self, meta: &EvalMeta) -> Vec<u8> {
        let config = Config {
            features: self.shape.inputs.file_name().into(),
            hidden1: self.shape.hidden1,
            hidden2: self.shape.hidden2,
        };
        let bytes: Vec<u8> = self.to_vec().iter().flat_map(|v| v.to_le_bytes()).collect();
        // Serialising these plain structs cannot fail.
        let config = serde_json::to_vec(&config).unwrap_or_default();
        let meta = serde_json::to_vec(meta).unwrap_or_default();
        SectionWriter::new()
            .section("config", &config)
            .section("meta", &meta)
            .section("weights", &bytes)
            .finish()
    }

    /// Decodes a whole evaluation file's bytes (header and payload), read from `path`.
    pub fn decode_file(path: &Path, bytes: &[u8]) -> Result<(EvalWeights, EvalMeta), EvalError> {
        let payload = container::decode(path, bytes, &EVAL_MAGIC, EVAL_VERSION)?;
        Self::decode(path, payload)
    }

    /// Decodes the payload of an evaluation file read from `path`.
    pub fn decode(path: &Path, payload: &[u8]) -> Result<(EvalWeights, EvalMeta), EvalError> {
        let shown = path.display().to_string();
        let malformed = |detail: String| EvalError::Malformed {
            path: shown.clone(),
            detail,
        };
        let sections = Sections::parse(path, payload)?;
        let config: Config = serde_json::from_slice(sections.require("config")?)
            .map_err(|e| malformed(format!("bad config section: {e}")))?;
        let Some(inputs) = Inputs::from_file_name(&config.features) else {
            let known: Vec<&str> = Inputs::ALL.iter().map(|i| i.file_name()).collect();
            return Err(malformed(format!(
                "feature set {:?}, this program knows {}",
                config.features,
                known.join(", ")
            )));
        };
        let meta: EvalMeta = serde_json::from_slice(sections.require("meta")?)
            .map_err(|e| malformed(format!("bad meta section: {e}")))?;
        let shape = Shape {
            inputs,
            hidden1: config.hidden1,
            hidden2: config.hidden2,
        };
        let bytes = sections.require("weights")?;
        if !shape.is_supported() || bytes.len() != 4 * shape.len() {
            return Err(EvalError::Shape {
                path: shown,
                detail: if shape.is_supported() {
                    format!(
                        "{} bytes of weights, the shape {shape} needs {}",
                        bytes.len(),
                        4 * shape.len()
                    )
                } else {
                    format!(
                        "hidden sizes {}x{} are not run here",
                        shape.hidden1, shape.hidden2
                    )
                },
            });
        }
        let values: Vec<f32> = bytes
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        let weights = EvalWeights::from_vec(shape, &values)?;
        weights.check().map_err(|detail| EvalError::Shape {
            path: shown,
            detail,
        })?;
        Ok((weights, meta))
    }
}
