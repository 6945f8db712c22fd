//! The network player: MCTS guided by the network (`net:path=model.fnm,sims=200`), registered
//! as the `net` kind of the player [`Registry`] ([`player_registry`]).
//!
//! Spec keys: `path` (an exported model or a training checkpoint, required), `sims` (simulations per step, default
//! 200), `ms` (think time per turn instead), `c` (PUCT exploration constant, default 1.5),
//! `batch` (leaves per network call, default 8), `reuse` (`off`: a fresh tree every turn;
//! default `on`, the subtree of the opponent's reply kept), `seed`, `tb` (endgame tables on/off),
//! `backend` (`native` or `burn`; default: the process's, see
//! [`crate::inference::set_default_backend`]), and `mix`, `mix_scale`, `mix_depth` (the alpha-beta
//! judge's value mixed into every leaf's, see [`fanorona_players::mix::LeafMix`]; off by default).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

use fanorona_players::{
    BuildError, MctsConfig, MctsPlayer, Player, PlayerKind, PlayerSpec, Registry, SpecError,
};

use crate::checkpoint::load_model_file;
use crate::error::NetError;
use crate::evaluator::NetEvaluator;
use crate::inference::{Backend, InferenceModel};

/// The network player.
pub type NetPlayer = MctsPlayer<NetEvaluator>;

/// Default simulations per step.
pub const DEFAULT_SIMULATIONS: u32 = 200;
/// Default exploration constant (priors from the network make it smaller than plain UCT's).
pub const DEFAULT_C_PUCT: f32 = 1.5;
/// Default leaves per network call.
pub const DEFAULT_BATCH: u32 = 8;

/// Why a network player could not be made.
#[derive(Debug, thiserror::Error)]
pub enum NetPlayerError {
    /// A bad key or value in the spec.
    #[error(transparent)]
    Spec(#[from] SpecError),
    /// The model file could not be loaded.
    #[error(transparent)]
    Model(#[from] NetError),
}

/// A network player with `model` and MCTS settings `config` (named `name`).
pub fn net_player(model: InferenceModel, config: MctsConfig, name: &str) -> NetPlayer {
    MctsPlayer::with_evaluator(config, NetEvaluator::new(model)).with_name(name)
}

/// The keys a `net:` spec takes.
const NET_KEYS: &[&str] = &[
    "path",
    "sims",
    "ms",
    "c",
    "batch",
    "reuse",
    "seed",
    "tb",
    "backend",
    "mix",
    "mix_scale",
    "mix_depth",
];

/// The `backend=` of a spec, if it has one.
fn backend_of(spec: &PlayerSpec) -> Result<Option<Backend>, SpecError> {
    spec.get("backend")
        .map(|value| {
            value.parse::<Backend>().map_err(|_| SpecError::BadValue {
                kind: spec.kind().to_string(),
                key: "backend".to_string(),
                value: value.to_string(),
                expected: "native or burn",
            })
        })
        .transpose()
}

/// The MCTS settings of a `net:` spec (everything but the model).
pub fn net_config(spec: &PlayerSpec, stream: u64) -> Result<MctsConfig, SpecError> {
    spec.check_keys(NET_KEYS)?;
    backend_of(spec)?;
    spec.uses_tables()?;
    let default = MctsConfig {
        simulations: DEFAULT_SIMULATIONS,
        c_puct: DEFAULT_C_PUCT,
        batch_size: DEFAULT_BATCH,
        ..MctsConfig::default()
    };
    spec.search_settings(
        stream,
        default,
        ("a whole number from 1 to 1000000", 1_000_000),
    )
}

/// The player a `net:path=...` spec describes. Models are loaded once per process and
/// shared (see [`load_model_cached`]).
pub fn net_player_from_spec(spec: &PlayerSpec, stream: u64) -> Result<NetPlayer, NetPlayerError> {
    let config = net_config(spec, stream)?;
    let path = model_path(spec)?;
    let mut model = load_model_cached(Path::new(path))?;
    if let Some(backend) = backend_of(spec)? {
        model = model.with_backend(backend)?;
    }
    Ok(net_player(model, config, &spec.to_string()))
}

fn model_path(spec: &PlayerSpec) -> Result<&str, SpecError> {
    spec.get("path").ok_or_else(|| SpecError::MissingKey {
        kind: spec.kind().to_string(),
        key: "path",
        what: "a model file (exported or a checkpoint), net:path=<file>",
    })
}

/// The `net` player kind, for a [`Registry`].
#[derive(Clone, Copy, Debug, Default)]
pub struct NetKind;

impl PlayerKind for NetKind {
    fn name(&self) -> &'static str {
        "net"
    }
    fn keys(&self) -> &'static [&'static str] {
        NET_KEYS
    }
    fn summary(&self) -> &'static str {
        "MCTS guided by an exported network: path (required), sims per step or ms per turn, c, batch, reuse on/off, tb on/off, backend native/burn, mix (0-1: the alpha-beta judge's share of each leaf value), mix_scale, mix_depth"
    }
    fn check(&self, spec: &PlayerSpec) -> Result<(), SpecError> {
        model_path(spec)?;
        net_config(spec, 0).map(|_| ())
    }
    fn build(
        &self,
        spec: &PlayerSpec,
        stream: u64,
        tables: &fanorona_players::tables::Tables,
    ) -> Result<Box<dyn Player>, BuildError> {
        match net_player_from_spec(spec, stream) {
            Ok(player) => Ok(Box::new(player.with_tables(spec.tables(tables)?))),
            Err(NetPlayerError::Spec(e)) => Err(BuildError::Spec(e)),
            Err(e) => Err(BuildError::Resource {
                spec: spec.to_string(),
                source: Box::new(e),
            }),
        }
    }
}

/// Every player kind the programs know: the classical ones and `net`.
pub fn player_registry() -> Registry {
    let mut registry = Registry::classical();
    registry.register(NetKind);
    registry
}

/// Load a model file (exported, or a training checkpoint), or reuse the copy already loaded
/// from the same path.
pub fn load_model_cached(path: &Path) -> Result<InferenceModel, NetError> {
    static MODELS: OnceLock<Mutex<HashMap<PathBuf, InferenceModel>>> = OnceLock::new();
    let key = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
    let cache = MODELS.get_or_init(|| Mutex::new(HashMap::new()));
    if let Some(model) = cache.lock().ok().and_then(|m| m.get(&key).cloned()) {
        return Ok(model);
    }
    let model = load_model_file(path)?;
    if let Ok(mut m) = cache.lock() {
        m.insert(key, model.clone());
    }
    Ok(model)
}
