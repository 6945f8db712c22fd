//! The network as the search's evaluator.
//!
//! [`NetEvaluator`] implements `fanorona_mcts::Evaluator` for Fanorona: it encodes a batch of
//! positions ([`crate::encoding`]), runs one forward pass, and turns the policy logits of the
//! *legal* actions of each position into priors with a softmax (illegal actions never get
//! probability), next to the win/draw/loss head.

use std::sync::atomic::{AtomicU64, Ordering};

use fanorona_mcts::{EvalError, EvalRequest, Evaluation, Evaluator};
use fanorona_players::FanoronaState;

use crate::encoding::{self, ACTION_COUNT, Context, INPUT_LEN};
use crate::inference::InferenceModel;

/// Encode the positions of `batch` into a fresh plane buffer (`batch.len() * INPUT_LEN`).
pub fn encode_batch(batch: &[EvalRequest<'_, FanoronaState>]) -> Vec<f32> {
    let mut planes = vec![0.0; batch.len() * INPUT_LEN];
    for (req, chunk) in batch.iter().zip(planes.chunks_exact_mut(INPUT_LEN)) {
        let game = req.state.game();
        encoding::encode(game.position(), Context::of(game), chunk);
    }
    planes
}

/// Turn network outputs for `batch` (logits `batch * ACTION_COUNT`, WDL probabilities
/// `batch * 3`) into evaluations: priors are a softmax over the legal actions' logits only,
/// in the order of each request's legal actions.
pub fn decode_batch(
    batch: &[EvalRequest<'_, FanoronaState>],
    logits: &[f32],
    wdl: &[f32],
    out: &mut Vec<Evaluation>,
) {
    out.clear();
    for (i, req) in batch.iter().enumerate() {
        let side = req.state.position().side_to_move();
        let row = &logits[i * ACTION_COUNT..(i + 1) * ACTION_COUNT];
        let mut priors: Vec<f32> = req
            .legal
            .iter()
            .map(|&a| row[encoding::action_index(a, side)])
            .collect();
        softmax_in_place(&mut priors);
        out.push(Evaluation {
            priors,
            wdl: [wdl[3 * i], wdl[3 * i + 1], wdl[3 * i + 2]],
        });
    }
}

/// Softmax, stable against large logits; a degenerate input becomes uniform.
pub fn softmax_in_place(values: &mut [f32]) {
    let max = values.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let mut sum = 0.0;
    for v in values.iter_mut() {
        *v = (*v - max).exp();
        sum += *v;
    }
    if sum.is_finite() && sum > 0.0 {
        values.iter_mut().for_each(|v| *v /= sum);
    } else {
        let n = values.len().max(1) as f32;
        values.iter_mut().for_each(|v| *v = 1.0 / n);
    }
}

/// A network evaluating positions for the search, on the calling thread.
#[derive(Debug)]
pub struct NetEvaluator {
    model: InferenceModel,
    evaluations: AtomicU64,
    calls: AtomicU64,
}

impl NetEvaluator {
    /// Evaluate with `model`.
    pub fn new(model: InferenceModel) -> NetEvaluator {
        NetEvaluator {
            model,
            evaluations: AtomicU64::new(0),
            calls: AtomicU64::new(0),
        }
    }

    /// The network.
    pub fn model(&self) -> &InferenceModel {
        &self.model
    }

    /// Positions evaluated so far.
    pub fn evaluations(&self) -> u64 {
        self.evaluations.load(Ordering::Relaxed)
    }

    /// Forward passes so far.
    pub fn calls(&self) -> u64 {
        self.calls.load(Ordering::Relaxed)
    }
}

impl Evaluator<FanoronaState> for NetEvaluator {
    /// Fails when the network (the device) fails.
    fn evaluate(
        &self,
        batch: &[EvalRequest<'_, FanoronaState>],
        out: &mut Vec<Evaluation>,
    ) -> Result<(), EvalError> {
        out.clear();
        if batch.is_empty() {
            return Ok(());
        }
        let planes = encode_batch(batch);
        let output = self
            .model
            .try_forward_owned(planes, batch.len())
            .map_err(EvalError::new)?;
        decode_batch(batch, &output.policy_logits, &output.wdl, out);
        self.evaluations
            .fetch_add(batch.len() as u64, Ordering::Relaxed);
        self.calls.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::NetConfig;
    use burn::tensor::Device;
    use fanorona_engine::{Game, Rules};
    use fanorona_mcts::GameState;

    #[test]
    fn priors_cover_exactly_the_legal_actions() {
        let cfg = NetConfig::new().with_blocks(1).with_channels(8);
        let eval = NetEvaluator::new(InferenceModel::random(&cfg, &Device::flex()));
        let mut state = FanoronaState::new(Game::new(Rules::default()));
        let mut legal = Vec::new();
        let mut states = Vec::new();
        let mut legals = Vec::new();
        for i in 0..12 {
            legal.clear();
            state.legal_actions(&mut legal);
            states.push(state.clone());
            legals.push(legal.clone());
            state.apply(legal[i % legal.len()]);
        }
        let requests: Vec<EvalRequest<'_, FanoronaState>> = states
            .iter()
            .zip(&legals)
            .map(|(s, l)| EvalRequest { state: s, legal: l })
            .collect();
        let mut out = Vec::new();
        eval.evaluate(&requests, &mut out).unwrap();
        assert_eq!(out.len(), requests.len());
        for (e, r) in out.iter().zip(&requests) {
            assert_eq!(e.priors.len(), r.legal.len());
            let sum: f32 = e.priors.iter().sum();
            assert!((sum - 1.0).abs() < 1e-4, "{sum}");
            assert!((e.wdl.iter().sum::<f32>() - 1.0).abs() < 1e-4);
        }
        assert_eq!(eval.evaluations(), 12);
        assert_eq!(eval.calls(), 1);
    }

    #[test]
    fn softmax_handles_extremes() {
        let mut v = vec![1000.0, 0.0, -1000.0];
        softmax_in_place(&mut v);
        assert!((v[0] - 1.0).abs() < 1e-6 && v[2] == 0.0);
        let mut v = vec![f32::NAN, 1.0];
        softmax_in_place(&mut v);
        assert_eq!(v, vec![0.5, 0.5]);
    }
}
