//! Loading the evaluations specs name (`eval=`): files once per process, the shipped one once.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use fanorona_eval::{EvalNet, EvalWeights};
use fanorona_players::Evaluation;

use crate::kinds::EvalSource;
use crate::registry::ResourceError;

/// The evaluation `source` names, loaded (a file once per process: later calls share it).
pub fn load_evaluation(source: &EvalSource) -> Result<Evaluation, ResourceError> {
    Ok(match source {
        EvalSource::Handwritten => Evaluation::Handwritten,
        EvalSource::Shipped => Evaluation::Learned(shipped_evaluation()?),
        EvalSource::File(path) => Evaluation::Learned(cached(path)?),
    })
}

/// The learned evaluation this program ships (`eval=learned`), built into the binary.
pub fn shipped_evaluation() -> Result<Arc<EvalNet>, ResourceError> {
    static SHIPPED: OnceLock<Result<Arc<EvalNet>, String>> = OnceLock::new();
    SHIPPED
        .get_or_init(|| {
            let bytes = fanorona_eval::SHIPPED.ok_or_else(|| {
                "this build ships no learned evaluation (eval=learned); give a file instead"
                    .to_string()
            })?;
            let (weights, _) = EvalWeights::decode_file(Path::new("the shipped evaluation"), bytes)
                .map_err(|e| e.to_string())?;
            EvalNet::new(weights)
                .map(Arc::new)
                .map_err(|e| e.to_string())
        })
        .clone()
        .map_err(ResourceError::from)
}

fn cached(path: &Path) -> Result<Arc<EvalNet>, ResourceError> {
    type Cache = Mutex<HashMap<PathBuf, Arc<EvalNet>>>;
    static EVALS: OnceLock<Cache> = OnceLock::new();
    let key = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
    let cache = EVALS.get_or_init(|| Mutex::new(HashMap::new()));
    if let Some(net) = cache.lock().ok().and_then(|m| m.get(&key).cloned()) {
        return Ok(net);
    }
    let (weights, _) = EvalWeights::load_any(path)?;
    let net = Arc::new(EvalNet::new(weights)?);
    if let Ok(mut m) = cache.lock() {
        m.insert(key, Arc::clone(&net));
    }
    Ok(net)
}
