//! The network player: MCTS guided by the network (`net:path=model.fnm,sims=200`).
//!
//! The `net` kind's keys are declared with every other kind's, in `fanorona_specs::kinds`;
//! this module gives the registry what builds the players ([`NetworkPlayers`], through
//! [`player_registry`]): it loads a model file once per process and backend and shares it.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use fanorona_players::tables::Tables;
use fanorona_players::{Evaluation, MctsConfig, MctsPlayer, Player};
use fanorona_specs::{NetSettings, Networks, Registry, ResourceError};

use crate::checkpoint::load_model_file;
use crate::error::NetError;
use crate::evaluator::NetEvaluator;
use crate::inference::{Backend, InferenceModel};

/// The network player.
pub type NetPlayer = MctsPlayer<NetEvaluator>;

/// A network player with `model` and MCTS settings `config` (named `name`).
pub fn net_player(model: InferenceModel, config: MctsConfig, name: &str) -> NetPlayer {
    MctsPlayer::with_evaluator(config, NetEvaluator::new(model)).with_name(name)
}

/// What builds `net` players for the [`Registry`]: their models evaluated by `backend` on the
/// CPU unless their spec says `backend=`.
#[derive(Clone, Copy, Debug, Default)]
pub struct NetworkPlayers {
    /// The program's backend.
    pub backend: Backend,
}

impl NetworkPlayers {
    /// The model `net` names, loaded once.
    pub fn model(&self, net: &NetSettings) -> Result<InferenceModel, NetError> {
        load_model_cached(&net.model, net.backend.unwrap_or(self.backend))
    }
}

impl Networks for NetworkPlayers {
    fn load(&self, net: &NetSettings) -> Result<u64, ResourceError> {
        Ok(self.model(net)?.native_weights()?.fingerprint())
    }

    fn default_backend(&self) -> Backend {
        self.backend
    }

    fn build(
        &self,
        net: &NetSettings,
        search: MctsConfig,
        judge: Evaluation,
        name: String,
        tables: Tables,
    ) -> Result<Box<dyn Player>, ResourceError> {
        let model = self.model(net)?;
        Ok(Box::new(
            net_player(model, search, &name)
                .with_tables(tables)
                .with_judge_evaluation(judge),
        ))
    }
}

/// Every player kind the programs know, `net` included, its models evaluated by `backend`.
pub fn player_registry(backend: Backend) -> Registry {
    Registry::classical().with_networks(Arc::new(NetworkPlayers { backend }))
}

/// Load a model file (exported, or a training checkpoint) for `backend`, or reuse the copy
/// already loaded from the same path for it.
pub fn load_model_cached(path: &Path, backend: Backend) -> Result<InferenceModel, NetError> {
    type Cache = Mutex<HashMap<(PathBuf, Backend), InferenceModel>>;
    static MODELS: OnceLock<Cache> = OnceLock::new();
    let key = (
        path.canonicalize().unwrap_or_else(|_| path.to_path_buf()),
        backend,
    );
    let cache = MODELS.get_or_init(|| Mutex::new(HashMap::new()));
    if let Some(model) = cache.lock().ok().and_then(|m| m.get(&key).cloned()) {
        return Ok(model);
    }
    let model = load_model_file(path, backend)?;
    if let Ok(mut m) = cache.lock() {
        m.insert(key, model.clone());
    }
    Ok(model)
}
