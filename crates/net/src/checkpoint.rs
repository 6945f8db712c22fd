//! Training checkpoints and exported models, both stored in [`crate::container`] files.
//!
//! A checkpoint (`FNRNCKPT`, version [`CHECKPOINT_VERSION`]) holds the sections
//!
//! | section     | contents                                                         |
//! | ----------- | ---------------------------------------------------------------- |
//! | `config`    | [`TrainerConfig`] as JSON (network shape, optimizer, loss)       |
//! | `counters`  | optimizer steps, bincode                                         |
//! | `weights`   | model parameters and batchnorm statistics, burnpack (f32)        |
//! | `optimizer` | optimizer state (momentum / moments, keyed by parameter id), burnpack |
//! | `extra`     | opaque bytes owned by the training loop (its counters, RNG state) |
//!
//! and restores training exactly: the step after a load computes what the step after the save
//! would have.
//!
//! An exported model (`FNRNMODL`, version [`MODEL_VERSION`]) holds `config` ([`NetConfig`] as
//! JSON), `meta` ([`ExportMeta`], bincode) and `weights` (inference weights, burnpack); the play
//! engine loads it with [`load_exported`] without any training configuration.

use std::collections::BTreeMap;
use std::path::Path;

use burn::module::Module;
use burn::store::ModuleRecord;
use burn::tensor::{Bytes, Device};
use serde::{Deserialize, Serialize};

use crate::error::NetError;
use crate::inference::{Backend, InferenceModel};
use crate::model::{FanoronaNet, NetConfig, POLICY_SIZE};
use crate::trainer::{Trainer, TrainerConfig};
use fanorona_data::container::{self, SectionWriter, Sections};

pub use fanorona_data::container::{CHECKPOINT_MAGIC, CHECKPOINT_VERSION};
/// Magic of exported model files.
pub const MODEL_MAGIC: [u8; 8] = *b"FNRNMODL";
/// Format version of exported model files.
pub const MODEL_VERSION: u32 = 1;

/// Metadata stored with an exported model.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct ExportMeta {
    /// Optimizer steps the weights have seen.
    pub training_steps: u64,
    /// Self-play games generated up to this model (filled in by the training loop).
    pub games: u64,
    /// Free-form name, e.g. the run and checkpoint it came from.
    pub label: String,
    /// Any further key/value facts (program revision, date, ratings).
    pub extra: BTreeMap<String, String>,
}

#[derive(Debug, Serialize, Deserialize)]
struct Counters {
    steps: u64,
}

/// Size limit when decoding small bincode sections, so a corrupt length cannot ask for a huge
/// allocation.
const METADATA_LIMIT: usize = 1 << 20;

fn encode_meta<T: Serialize>(path: &Path, value: &T) -> Result<Vec<u8>, NetError> {
    bincode::serde::encode_to_vec(value, bincode::config::standard()).map_err(|e| {
        NetError::Metadata {
            path: path.to_path_buf(),
            detail: e.to_string(),
        }
    })
}

fn decode_meta<T: serde::de::DeserializeOwned>(path: &Path, bytes: &[u8]) -> Result<T, NetError> {
    let config = bincode::config::standard().with_limit::<METADATA_LIMIT>();
    let (value, used) =
        bincode::serde::decode_from_slice(bytes, config).map_err(|e| NetError::Metadata {
            path: path.to_path_buf(),
            detail: e.to_string(),
        })?;
    if used != bytes.len() {
        return Err(NetError::Metadata {
            path: path.to_path_buf(),
            detail: format!("{} trailing bytes", bytes.len() - used),
        });
    }
    Ok(value)
}

/// A config as the JSON a checkpoint or model file stores.
fn config_json(config: &impl serde::Serialize) -> Vec<u8> {
    // Plain structs of numbers and enums: serialising cannot fail.
    serde_json::to_vec_pretty(config).expect("configs serialise to JSON")
}

fn decode_config<C: serde::de::DeserializeOwned>(path: &Path, bytes: &[u8]) -> Result<C, NetError> {
    serde_json::from_slice(bytes).map_err(|e| NetError::Config {
        path: path.to_path_buf(),
        detail: e.to_string(),
    })
}

fn weights_to_bytes(path: &Path, model: FanoronaNet) -> Result<Bytes, NetError> {
    model
        .into_record()
        .into_bytes()
        .map_err(|e| record_error(path, "weights", e))
}

fn weights_from_bytes(
    path: &Path,
    config: &NetConfig,
    bytes: &[u8],
    device: &Device,
) -> Result<FanoronaNet, NetError> {
    // The shape is checked before anything is built from it: a stored `channels = 0` or
    // `blocks = 10000000` is a damaged file, not a network to allocate.
    config.validate_stored().map_err(|e| NetError::Config {
        path: path.to_path_buf(),
        detail: format!("network shape: {e}"),
    })?;
    let record = ModuleRecord::from_bytes(Bytes::from_bytes_vec(bytes.to_vec()))
        .map_err(|e| record_error(path, "weights", e))?;
    let model = config
        .init(device)
        .try_load_record(record)
        .map_err(|e| record_error(path, "weights", e))?;
    // Every shape is checked now rather than at the first evaluation (the native path's
    // checks cover every layer of the network).
    let weights = model
        .valid()
        .fused()
        .native_weights()
        .map_err(|e| record_error(path, "weights", e))?;
    weights
        .check()
        .map_err(|e| record_error(path, "weights", e))?;
    let (planes, actions) = (weights.stem.inputs, weights.policy_fc.outputs);
    if planes != config.input_planes || actions != POLICY_SIZE {
        return Err(record_error(
            path,
            "weights",
            format!(
                "the network takes {planes} input planes and gives {actions} policy logits; \
                 this program encodes {} planes and {POLICY_SIZE} actions",
                config.input_planes
            ),
        ));
    }
    Ok(model)
}

fn record_error(path: &Path, what: &'static str, e: impl std::fmt::Display) -> NetError {
    NetError::Record {
        path: path.to_path_buf(),
        what,
        detail: e.to_string(),
    }
}

impl Trainer {
    /// Writes a checkpoint to `path` (atomically); `extra` is stored verbatim for the training
    /// loop and handed back by [`Trainer::load_checkpoint`].
    pub fn save_checkpoint(&self, path: &Path, extra: &[u8]) -> Result<(), NetError> {
        // `valid()` folds batchnorm's pending running-statistics update into the stored value;
        // recording the training module directly would save statistics one step stale.
        let weights = weights_to_bytes(path, self.model().valid())?;
        let optimizer = self
            .optimizer
            .into_bytes()
            .map_err(|e| record_error(path, "optimizer state", e))?;
        let counters = encode_meta(path, &Counters { steps: self.steps })?;
        let payload = SectionWriter::new()
            .section("config", &config_json(&self.config))
            .section("counters", &counters)
            .section("weights", &weights)
            .section("optimizer", &optimizer)
            .section("extra", extra)
            .finish();
        container::write_atomic(path, &CHECKPOINT_MAGIC, CHECKPOINT_VERSION, &payload)?;
        Ok(())
    }

    /// Restores a trainer from a checkpoint onto `device` (autodiff is enabled on it) and
    /// returns it with the checkpoint's `extra` bytes.
    pub fn load_checkpoint(path: &Path, device: &Device) -> Result<(Trainer, Vec<u8>), NetError> {
        let payload = container::read(path, &CHECKPOINT_MAGIC, CHECKPOINT_VERSION)?;
        let sections = Sections::parse(path, &payload)?;
        not_an_evaluation(path, &sections)?;
        let config: TrainerConfig = decode_config(path, sections.require("config")?)?;
        let counters: Counters = decode_meta(path, sections.require("counters")?)?;
        let device = device.clone().autodiff();
        // Loading the record restores parameter ids, which key the optimizer state.
        let model = weights_from_bytes(path, &config.net, sections.require("weights")?, &device)?;
        let mut trainer = Trainer::from_model(config, model, &device);
        let optimizer_bytes = Bytes::from_bytes_vec(sections.require("optimizer")?.to_vec());
        trainer.optimizer = trainer
            .optimizer
            .clone()
            .from_bytes(optimizer_bytes)
            .map_err(|e| record_error(path, "optimizer state", e))?;
        trainer.steps = counters.steps;
        Ok((trainer, sections.require("extra")?.to_vec()))
    }

    /// A trainer that starts from the weights of an exported model file (`fanorona export`)
    /// instead of random ones, with a fresh optimizer and its step count at 0. The file's
    /// network must have the shape `config.net` asks for.
    pub fn from_exported(
        config: TrainerConfig,
        path: &Path,
        device: &Device,
    ) -> Result<Trainer, NetError> {
        let payload = container::read(path, &MODEL_MAGIC, MODEL_VERSION)?;
        let sections = Sections::parse(path, &payload)?;
        let stored: NetConfig = decode_config(path, sections.require("config")?)?;
        if stored != config.net {
            return Err(NetError::OtherShape {
                path: path.to_path_buf(),
                detail: format!(
                    "the model's network is {stored:?}, the run's [model] asks for {:?}: set \
                     [model] to the model's shape",
                    config.net
                ),
            });
        }
        let device = device.clone().autodiff();
        let model = weights_from_bytes(path, &stored, sections.require("weights")?, &device)?;
        Ok(Trainer::from_model(config, model, &device))
    }

    /// Exports the current weights as a model file for play; `meta.training_steps` is set to
    /// this trainer's step count.
    pub fn export(&self, out_path: &Path, meta: &ExportMeta) -> Result<(), NetError> {
        let meta = ExportMeta {
            training_steps: self.steps,
            ..meta.clone()
        };
        let model = self.inference_model_on(&self.device.clone().without_autodiff(), Backend::Burn);
        export_model(&model, out_path, &meta)
    }
}

/// Exports the weights of the checkpoint at `checkpoint_path` to a model file at `out_path`.
///
/// `meta.training_steps` is replaced by the checkpoint's step count; the other fields are
/// written as given. Returns the metadata written.
pub fn export(
    checkpoint_path: &Path,
    out_path: &Path,
    meta: &ExportMeta,
) -> Result<ExportMeta, NetError> {
    let (trainer, _) = Trainer::load_checkpoint(checkpoint_path, &Device::flex())?;
    let meta = ExportMeta {
        training_steps: trainer.steps(),
        ..meta.clone()
    };
    export_model(&trainer.inference_model(Backend::Burn), out_path, &meta)?;
    Ok(meta)
}

/// Writes `model` and `meta` to a model file at `out_path` (atomically).
pub fn export_model(
    model: &InferenceModel,
    out_path: &Path,
    meta: &ExportMeta,
) -> Result<(), NetError> {
    let weights = weights_to_bytes(out_path, model.model().clone())?;
    let payload = SectionWriter::new()
        .section("config", &config_json(model.config()))
        .section("meta", &encode_meta(out_path, meta)?)
        .section("weights", &weights)
        .finish();
    container::write_atomic(out_path, &MODEL_MAGIC, MODEL_VERSION, &payload)?;
    Ok(())
}

/// Loads an exported model onto the CPU (flex) device, evaluated by `backend`.
pub fn load_exported(
    path: &Path,
    backend: Backend,
) -> Result<(InferenceModel, ExportMeta), NetError> {
    load_exported_on(path, &Device::flex(), backend)
}

/// Loads an exported model onto `device` (evaluated by `backend` when that is the CPU).
pub fn load_exported_on(
    path: &Path,
    device: &Device,
    backend: Backend,
) -> Result<(InferenceModel, ExportMeta), NetError> {
    let payload = container::read(path, &MODEL_MAGIC, MODEL_VERSION)?;
    let sections = Sections::parse(path, &payload)?;
    let config: NetConfig = decode_config(path, sections.require("config")?)?;
    let meta: ExportMeta = decode_meta(path, sections.require("meta")?)?;
    let device = device.clone().without_autodiff();
    let model = weights_from_bytes(path, &config, sections.require("weights")?, &device)?;
    Ok((
        InferenceModel::try_new(config, model, &device, backend)?,
        meta,
    ))
}

/// Loads the network of a checkpoint onto the CPU for play: the config and the weights only
/// (the optimizer state is not decoded), evaluated by `backend`.
pub fn load_checkpoint_model(path: &Path, backend: Backend) -> Result<InferenceModel, NetError> {
    let payload = container::read(path, &CHECKPOINT_MAGIC, CHECKPOINT_VERSION)?;
    let sections = Sections::parse(path, &payload)?;
    not_an_evaluation(path, &sections)?;
    let config: TrainerConfig = decode_config(path, sections.require("config")?)?;
    let device = Device::flex().without_autodiff();
    let model = weights_from_bytes(path, &config.net, sections.require("weights")?, &device)?;
    InferenceModel::try_new(config.net, model, &device, backend)
}

/// Refuses a checkpoint of an evaluation run (it has an `eval` section instead of a network)
/// with what to do instead: a network loader would only say that the `config` is missing.
fn not_an_evaluation(path: &Path, sections: &Sections<'_>) -> Result<(), NetError> {
    if sections.get("eval").is_some() {
        return Err(NetError::EvaluationCheckpoint(path.to_path_buf()));
    }
    Ok(())
}

/// The `extra` bytes of a checkpoint (the training loop's state), without decoding the rest.
pub fn checkpoint_extra(path: &Path) -> Result<Vec<u8>, NetError> {
    let payload = container::read(path, &CHECKPOINT_MAGIC, CHECKPOINT_VERSION)?;
    let sections = Sections::parse(path, &payload)?;
    Ok(sections.require("extra")?.to_vec())
}

/// The identity of the network in a model file of either kind: the fingerprint of its folded
/// weights ([`fanorona_infer::Weights::fingerprint`]). An exported model and the checkpoint it
/// came from share it, a checkpoint re-saved with a new run state keeps it, and different
/// weights change it.
pub fn weights_fingerprint(path: &Path) -> Result<u64, NetError> {
    Ok(load_model_file(path, Backend::Burn)?
        .native_weights()?
        .fingerprint())
}

fn file_is_checkpoint(path: &Path) -> bool {
    container::has_magic(path, &CHECKPOINT_MAGIC)
}

/// Loads a model for play from either kind of file, told apart by its magic: an exported model
/// (`*.fnm`) or a training checkpoint (`*.ckpt`), evaluated by `backend`.
pub fn load_model_file(path: &Path, backend: Backend) -> Result<InferenceModel, NetError> {
    if file_is_checkpoint(path) {
        load_checkpoint_model(path, backend)
    } else {
        Ok(load_exported(path, backend)?.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trainer::tests::{peaked_batch, tiny_net};
    use crate::trainer::{OptimizerConfig, TrainBatch};
    use fanorona_data::container::ContainerError;
    use fanorona_testkit::TempDir;

    fn trained(optimizer: OptimizerConfig, steps: usize) -> (Trainer, TrainBatch) {
        let cfg = tiny_net();
        let config = TrainerConfig::new(cfg.clone()).with_optimizer(optimizer);
        let mut trainer = Trainer::new(config, &Device::flex());
        let batch = peaked_batch(&cfg, 8, 21);
        for _ in 0..steps {
            trainer.train_step(&batch, 0.02).unwrap();
        }
        (trainer, batch)
    }

    fn outputs(trainer: &Trainer, batch: &TrainBatch) -> (Vec<f32>, Vec<f32>) {
        trainer
            .inference_model(Backend::Native)
            .forward(&batch.planes, batch.batch_size)
    }

    fn resumes_exactly(optimizer: OptimizerConfig) {
        let dir = TempDir::new("net");
        let path = dir.path().join("a.ckpt");
        let (mut trainer, batch) = trained(optimizer, 5);
        trainer.save_checkpoint(&path, b"loop state").unwrap();

        let (mut loaded, extra) = Trainer::load_checkpoint(&path, &Device::flex()).unwrap();
        assert_eq!(extra, b"loop state");
        assert_eq!(checkpoint_extra(&path).unwrap(), b"loop state");
        // The fingerprint follows the weights, not the rest of the file.
        let print = weights_fingerprint(&path).unwrap();
        trainer.save_checkpoint(&path, b"other state").unwrap();
        assert_eq!(weights_fingerprint(&path).unwrap(), print);
        // ... and an exported model of the same network shares it.
        let model_path = dir.path().join("a.fnm");
        trainer.export(&model_path, &ExportMeta::default()).unwrap();
        assert_eq!(weights_fingerprint(&model_path).unwrap(), print);
        // For play, a checkpoint loads like an exported model: the same network.
        let played = load_model_file(&path, Backend::Native).unwrap();
        assert_eq!(
            played.forward(&batch.planes, batch.batch_size),
            outputs(&trainer, &batch)
        );
        assert_eq!(loaded.steps(), 5);
        assert_eq!(loaded.config().net, trainer.config().net);
        assert_eq!(outputs(&loaded, &batch), outputs(&trainer, &batch));

        let other = peaked_batch(&tiny_net(), 8, 99);
        for data in [&batch, &other, &batch] {
            let expected = trainer.train_step(data, 0.02).unwrap();
            let got = loaded.train_step(data, 0.02).unwrap();
            assert_eq!(got, expected);
        }
        assert_eq!(loaded.steps(), 8);
        assert_eq!(outputs(&loaded, &batch), outputs(&trainer, &batch));
        // Trained further, it is another network.
        loaded.save_checkpoint(&path, b"later").unwrap();
        assert_ne!(weights_fingerprint(&path).unwrap(), print);
    }

    #[test]
    fn sgd_checkpoint_resumes_exactly() {
        resumes_exactly(OptimizerConfig::Sgd {
            momentum: 0.9,
            nesterov: true,
        });
    }

    #[test]
    fn adamw_checkpoint_resumes_exactly() {
        resumes_exactly(OptimizerConfig::AdamW {
            beta1: 0.9,
            beta2: 0.999,
            epsilon: 1e-8,
        });
    }

    #[test]
    fn export_round_trip() {
        let dir = TempDir::new("net");
        let ckpt = dir.path().join("b.ckpt");
        let model_path = dir.path().join("b.model");
        let (trainer, batch) = trained(
            OptimizerConfig::Sgd {
                momentum: 0.9,
                nesterov: false,
            },
            3,
        );
        trainer.save_checkpoint(&ckpt, &[]).unwrap();
        let meta = ExportMeta {
            training_steps: 0,
            games: 1234,
            label: "run-1/step-3".into(),
            extra: BTreeMap::from([("rev".to_string(), "abc123".to_string())]),
        };
        let written = export(&ckpt, &model_path, &meta).unwrap();
        assert_eq!(written.training_steps, 3);

        let (model, loaded_meta) = load_exported(&model_path, Backend::Native).unwrap();
        assert_eq!(loaded_meta, written);
        assert_eq!(model.config(), &trainer.config().net);
        let got = model.forward(&batch.planes, batch.batch_size);
        assert_eq!(got, outputs(&trainer, &batch));

        // Exporting straight from the trainer gives the same model. (Not the same bytes:
        // burn does not carry batchnorm running-statistics ids through a load.)
        let direct = dir.path().join("direct.model");
        trainer.export(&direct, &meta).unwrap();
        let (direct_model, direct_meta) = load_exported(&direct, Backend::Native).unwrap();
        assert_eq!(direct_meta, written);
        assert_eq!(
            direct_model.forward(&batch.planes, batch.batch_size),
            outputs(&trainer, &batch)
        );
    }

    #[test]
    fn a_trainer_started_from_an_exported_model_has_its_weights_and_trains_on() {
        let dir = TempDir::new("net");
        let model_path = dir.path().join("start.fnm");
        let sgd = OptimizerConfig::Sgd {
            momentum: 0.9,
            nesterov: false,
        };
        let (trainer, batch) = trained(sgd.clone(), 4);
        trainer.export(&model_path, &ExportMeta::default()).unwrap();

        let config = TrainerConfig::new(tiny_net()).with_optimizer(sgd.clone());
        let mut started = Trainer::from_exported(config, &model_path, &Device::flex()).unwrap();
        assert_eq!(started.steps(), 0, "the step count starts afresh");
        assert_eq!(outputs(&started, &batch), outputs(&trainer, &batch));
        // Every parameter is a leaf the optimizer moves: one step changes the network as a
        // step of a fresh trainer from the same weights would.
        let before = outputs(&started, &batch);
        started.train_step(&batch, 0.02).unwrap();
        assert_ne!(outputs(&started, &batch), before);
        let fresh = TrainerConfig::new(tiny_net()).with_optimizer(sgd);
        let mut again = Trainer::from_exported(fresh, &model_path, &Device::flex()).unwrap();
        again.train_step(&batch, 0.02).unwrap();
        assert_eq!(outputs(&again, &batch), outputs(&started, &batch));

        // Another shape is refused with both shapes named.
        let mut wider = tiny_net();
        wider.channels += 4;
        let err = Trainer::from_exported(TrainerConfig::new(wider), &model_path, &Device::flex())
            .unwrap_err();
        assert!(matches!(err, NetError::OtherShape { .. }), "{err}");
        let text = err.to_string();
        assert!(
            text.contains("start.fnm") && text.contains("[model]"),
            "{text}"
        );
        // A checkpoint is not a model file.
        let ckpt = dir.path().join("a.ckpt");
        trainer.save_checkpoint(&ckpt, &[]).unwrap();
        assert!(
            Trainer::from_exported(TrainerConfig::new(tiny_net()), &ckpt, &Device::flex()).is_err()
        );
    }

    #[test]
    fn damaged_files_are_rejected_with_the_right_error() {
        let dir = TempDir::new("net");
        let path = dir.path().join("c.ckpt");
        let (trainer, _) = trained(
            OptimizerConfig::Sgd {
                momentum: 0.9,
                nesterov: false,
            },
            1,
        );
        trainer.save_checkpoint(&path, b"x").unwrap();
        let good = std::fs::read(&path).unwrap();
        let load = |bytes: &[u8]| {
            std::fs::write(&path, bytes).unwrap();
            Trainer::load_checkpoint(&path, &Device::flex()).map(|_| ())
        };
        let container_error = |bytes: &[u8]| match load(bytes) {
            Err(NetError::Container(e)) => e,
            other => panic!("expected a container error, got {other:?}"),
        };

        let mut flipped = good.clone();
        let middle = flipped.len() / 2;
        flipped[middle] ^= 0x01;
        assert!(matches!(
            container_error(&flipped),
            ContainerError::ChecksumMismatch { .. }
        ));
        assert!(matches!(
            container_error(&good[..good.len() - 10]),
            ContainerError::Truncated { .. }
        ));
        assert!(matches!(container_error(&[]), ContainerError::Empty { .. }));

        let model_path = dir.path().join("c.model");
        trainer.export(&model_path, &ExportMeta::default()).unwrap();
        let model_bytes = std::fs::read(&model_path).unwrap();
        let err = container_error(&model_bytes);
        assert!(matches!(err, ContainerError::WrongMagic { .. }), "{err:?}");
        assert!(err.to_string().contains("c.ckpt"), "{err}");
        // And the other way round.
        std::fs::write(&path, &good).unwrap();
        assert!(matches!(
            load_exported(&path, Backend::Native),
            Err(NetError::Container(ContainerError::WrongMagic { .. }))
        ));

        let payload =
            fanorona_data::container::decode(&path, &good, &CHECKPOINT_MAGIC, CHECKPOINT_VERSION)
                .unwrap()
                .to_vec();
        let future =
            fanorona_data::container::encode(&CHECKPOINT_MAGIC, CHECKPOINT_VERSION + 1, &payload);
        assert!(matches!(
            container_error(&future),
            ContainerError::WrongVersion { .. }
        ));

        // Intact container, nonsense inside: an error, not a panic.
        let junk =
            fanorona_data::container::encode(&CHECKPOINT_MAGIC, CHECKPOINT_VERSION, b"\x03abc");
        assert!(load(&junk).is_err());
        let sections = SectionWriter::new()
            .section("config", b"{not json")
            .finish();
        let junk =
            fanorona_data::container::encode(&CHECKPOINT_MAGIC, CHECKPOINT_VERSION, &sections);
        assert!(matches!(load(&junk), Err(NetError::Config { .. })));

        let good_payload = Sections::parse(&path, &payload).unwrap();
        let mut writer = SectionWriter::new();
        for name in good_payload.names() {
            let data = good_payload.get(name).unwrap();
            writer = match name {
                "weights" => writer.section(name, &data[..data.len() / 2]),
                _ => writer.section(name, data),
            };
        }
        let junk = fanorona_data::container::encode(
            &CHECKPOINT_MAGIC,
            CHECKPOINT_VERSION,
            &writer.finish(),
        );
        assert!(matches!(
            load(&junk),
            Err(NetError::Record {
                what: "weights",
                ..
            })
        ));

        // A checkpoint of a differently shaped net does not load into this one's weights.
        let wide = TrainerConfig::new(tiny_net().with_channels(16));
        let wide_trainer = Trainer::new(wide, &Device::flex());
        let wide_path = dir.path().join("wide.ckpt");
        wide_trainer.save_checkpoint(&wide_path, &[]).unwrap();
        let wide_payload =
            fanorona_data::container::read(&wide_path, &CHECKPOINT_MAGIC, 1).unwrap();
        let wide_sections = Sections::parse(&wide_path, &wide_payload).unwrap();
        let mut writer = SectionWriter::new();
        for name in good_payload.names() {
            writer = match name {
                "weights" => writer.section(name, wide_sections.get("weights").unwrap()),
                _ => writer.section(name, good_payload.get(name).unwrap()),
            };
        }
        let mixed = fanorona_data::container::encode(
            &CHECKPOINT_MAGIC,
            CHECKPOINT_VERSION,
            &writer.finish(),
        );
        assert!(matches!(
            load(&mixed),
            Err(NetError::Record {
                what: "weights",
                ..
            })
        ));
    }

    /// A folder, a one-block 8-channel shape, and the metadata and weights sections of a
    /// random network of that shape.
    fn small_model_parts() -> (TempDir, NetConfig, Vec<u8>, Vec<u8>) {
        let dir = TempDir::new("net");
        let small = NetConfig::new().with_blocks(1).with_channels(8);
        let model = InferenceModel::random(&small, &Device::flex());
        let weights = weights_to_bytes(&dir.join("w"), model.model().clone()).unwrap();
        let meta = encode_meta(&dir.join("m"), &ExportMeta::default()).unwrap();
        (dir, small, meta.to_vec(), weights.to_vec())
    }

    /// Writes a model file of `config`, `meta` and `weights` as given, whether they fit or not.
    fn write_model(path: &Path, config: &NetConfig, meta: &[u8], weights: &[u8]) {
        let payload = SectionWriter::new()
            .section("config", &config_json(config))
            .section("meta", meta)
            .section("weights", weights)
            .finish();
        container::write_atomic(path, &MODEL_MAGIC, MODEL_VERSION, &payload).unwrap();
    }

    /// A model file whose config says one shape and whose weights have another is refused
    /// when it is loaded, naming the weights, not at its first evaluation.
    #[test]
    fn a_model_whose_shapes_do_not_fit_is_refused_at_load() {
        let (dir, small, meta, weights) = small_model_parts();
        for (name, config) in [
            ("channels", small.clone().with_channels(12)),
            ("blocks", small.clone().with_blocks(2)),
            ("pooling", small.clone().with_global_pool_every(1)),
        ] {
            let path = dir.join(format!("{name}.fnm"));
            write_model(&path, &config, &meta, &weights);
            match load_exported(&path, Backend::Native) {
                Err(NetError::Record { what, .. }) => assert_eq!(what, "weights", "{name}"),
                other => panic!("{name}: expected a weights error, got {other:?}"),
            }
        }
    }

    /// A stored shape out of range (a width of 0, ten million blocks) is refused at load with
    /// the file and the field named, before anything is allocated for it (issue 28 item 8).
    #[test]
    fn a_model_with_a_shape_out_of_range_is_refused_by_name() {
        let (dir, small, meta, weights) = small_model_parts();
        let mut zero_policy = small.clone();
        zero_policy.policy_channels = 0;
        let mut zero_value = small.clone();
        zero_value.value_channels = 0;
        for (field, config) in [
            ("channels", small.clone().with_channels(0)),
            ("blocks", small.clone().with_blocks(10_000_000)),
            ("policy_channels", zero_policy),
            ("value_channels", zero_value),
        ] {
            let path = dir.join(format!("{field}.fnm"));
            write_model(&path, &config, &meta, &weights);
            let e = load_exported(&path, Backend::Native).err().unwrap();
            assert!(matches!(e, NetError::Config { .. }), "{field}: {e:?}");
            let text = e.to_string();
            assert!(text.contains(&format!("`{field}`")), "{text}");
            assert!(text.contains(&format!("{field}.fnm")), "{text}");
        }
    }

    /// Fuzz target: a model file whose payload is mutated under a valid checksum is refused
    /// or loaded, never a panic (sections, config JSON, metadata, weights records).
    #[test]
    fn fuzz_mutated_model_payloads_with_valid_checksums_never_panic() {
        let dir = TempDir::new("net-fuzz");
        let small = NetConfig::new().with_blocks(1).with_channels(4);
        let model = InferenceModel::random(&small, &Device::flex());
        let seed_path = dir.join("seed.fnm");
        export_model(&model, &seed_path, &ExportMeta::default()).unwrap();
        let payload = container::read(&seed_path, &MODEL_MAGIC, MODEL_VERSION).unwrap();
        let path = dir.join("case.fnm");
        fanorona_testkit::fuzz::run(
            "model file",
            &[payload],
            &[b"config", b"weights", b"{", b"\"blocks\":", b"99999999"],
            200,
            |bytes| {
                container::write_atomic(&path, &MODEL_MAGIC, MODEL_VERSION, bytes).unwrap();
                let _ = load_model_file(&path, Backend::Native);
            },
        );
    }
}
