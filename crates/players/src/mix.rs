//! Leaf values mixed from the search's evaluator and the alpha-beta judge (see [`LeafMix`]).
//!
//! A network's value of a position with captures in the air is a guess, and a young network
//! guesses badly; the alpha-beta judge ([`LeafJudge`]) plays the captures out and counts the
//! stones. Mixing the two at every leaf, as AlphaGo mixed its value network with rollouts, gives
//! the search the material the network may not see. The mix is a setting of the MCTS players
//! (`mix=`, `mix_scale=`, `mix_depth=`), off by default.

use std::sync::{Mutex, PoisonError};
use std::time::Instant;

use fanorona_mcts::{EvalError, EvalRequest, Evaluation, Evaluator};
use fanorona_tablebase::Tablebase;

use crate::alphabeta::{Judgement, LeafJudge};
use crate::state::FanoronaState;

/// How the leaf value is mixed: `(1 - weight) * evaluator + weight * judge`, the judge's score
/// `s` (centi-stones) read as the value `tanh(s / scale)` and a forced result as +-1.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LeafMix {
    /// Weight of the judge's value, in `0..=1` (0: the evaluator alone).
    pub weight: f32,
    /// Centi-stones of advantage read as the value `tanh(1)`, about 0.76.
    pub scale: f32,
    /// Whole turns the judge searches before its quiescence extension.
    pub depth: u32,
}

impl LeafMix {
    /// Default [`LeafMix::scale`]: three stones up is a value of about 0.76.
    pub const DEFAULT_SCALE: f32 = 300.0;
    /// Default [`LeafMix::depth`]: the quiescence extension alone.
    pub const DEFAULT_DEPTH: u32 = 0;
    /// Capture turns the judge's quiescence extension plays out at most.
    pub const QUIESCENCE: u32 = 4;
    /// Deepest [`LeafMix::depth`] accepted.
    pub const MAX_DEPTH: u32 = 3;

    /// The value, for the side to move, of what the judge found.
    pub fn value(&self, judgement: Judgement) -> f32 {
        match judgement {
            Judgement::Win => 1.0,
            Judgement::Loss => -1.0,
            Judgement::Score(s) => (s as f32 / self.scale).tanh(),
        }
    }

    /// A judge for this mix.
    pub fn judge(&self) -> LeafJudge {
        LeafJudge::new(self.depth, Self::QUIESCENCE)
    }
}

/// `wdl` with its `W - L` moved to `(1 - weight) * (W - L) + weight * judged`. The draw share is
/// kept where it fits (it shrinks when the mixed value leaves it no room). A WDL that is not a
/// finite, positive-sum vector is returned as it is (the search treats it as a draw).
pub fn mix_wdl(wdl: [f32; 3], judged: f32, weight: f32) -> [f32; 3] {
    let total: f32 = wdl.iter().sum();
    if !(total > 0.0 && total.is_finite() && wdl.iter().all(|x| *x >= 0.0)) {
        return wdl;
    }
    let [w, d, l] = wdl.map(|x| x / total);
    let v = ((1.0 - weight) * (w - l) + weight * judged).clamp(-1.0, 1.0);
    let d = d.min(1.0 - v.abs()).max(0.0);
    [(1.0 - d + v) / 2.0, d, (1.0 - d - v) / 2.0]
}

/// An evaluator whose values are mixed with the judge's (the inner evaluator alone when `mix`
/// or `judge` is `None`).
pub(crate) struct Mixed<'a, E> {
    pub inner: &'a E,
    pub mix: Option<LeafMix>,
    pub judge: Option<&'a Mutex<LeafJudge>>,
    pub tables: Option<&'a Tablebase>,
    /// The turn's deadline: leaves evaluated after it get the inner evaluator's value alone, so
    /// a deep judge never makes a timed player overrun its budget by more than one judgement's
    /// clock check.
    pub deadline: Option<Instant>,
}

impl<E: Evaluator<FanoronaState>> Evaluator<FanoronaState> for Mixed<'_, E> {
    fn evaluate(
        &self,
        batch: &[EvalRequest<'_, FanoronaState>],
        out: &mut Vec<Evaluation>,
    ) -> Result<(), EvalError> {
        let first = out.len();
        self.inner.evaluate(batch, out)?;
        let (Some(mix), Some(judge)) = (self.mix, self.judge) else {
            return Ok(());
        };
        let mut judge = judge.lock().unwrap_or_else(PoisonError::into_inner);
        for (request, evaluation) in batch.iter().zip(&mut out[first..]) {
            let game = request.state.game();
            let tables = self.tables.filter(|t| t.fits(game.rules()));
            let Some(judged) = judge.judge_before(
                game.position(),
                game.rules().no_progress_limit,
                tables,
                self.deadline,
            ) else {
                // Out of time: the rest of the batch keeps the inner values.
                break;
            };
            evaluation.wdl = mix_wdl(evaluation.wdl, mix.value(judged), mix.weight);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: [f32; 3], b: [f32; 3]) -> bool {
        a.iter().zip(&b).all(|(x, y)| (x - y).abs() < 1e-6)
    }

    #[test]
    fn the_weight_moves_the_value_and_keeps_the_draws_where_they_fit() {
        let net = [0.5, 0.3, 0.2]; // value 0.3
        assert!(close(mix_wdl(net, -1.0, 0.0), net));
        // Half way to a judged 0.7: value 0.5, draws kept.
        assert!(close(mix_wdl(net, 0.7, 0.5), [0.6, 0.3, 0.1]));
        // The judge alone says a forced win: no room for draws.
        assert!(close(mix_wdl(net, 1.0, 1.0), [1.0, 0.0, 0.0]));
        // Unnormalised input is normalised first; nonsense is left alone.
        assert!(close(mix_wdl([1.0, 0.6, 0.4], 0.7, 0.5), [0.6, 0.3, 0.1]));
        let bad = [f32::NAN, 0.0, 0.0];
        assert!(mix_wdl(bad, 0.5, 0.5)[0].is_nan());
    }

    #[test]
    fn scores_read_as_values() {
        let mix = LeafMix {
            weight: 0.5,
            scale: 300.0,
            depth: 0,
        };
        assert_eq!(mix.value(Judgement::Win), 1.0);
        assert_eq!(mix.value(Judgement::Loss), -1.0);
        assert_eq!(mix.value(Judgement::Score(0)), 0.0);
        assert!((mix.value(Judgement::Score(300)) - 1f32.tanh()).abs() < 1e-6);
        assert!(mix.value(Judgement::Score(-150)) < 0.0);
    }

    #[test]
    fn the_mixed_evaluator_adds_the_material_the_inner_one_does_not_see() {
        use fanorona_engine::Rules;
        use fanorona_mcts::{GameState, UniformEvaluator};
        // White a1 and i5 against Black e3, Black to move: a stone down, no capture.
        let pos = "8W/9/4B4/9/W8 b".parse().unwrap();
        let state = FanoronaState::from_position(pos, Rules::default());
        let mut legal = Vec::new();
        state.legal_actions(&mut legal);
        let request = [EvalRequest {
            state: &state,
            legal: &legal,
        }];
        let inner = UniformEvaluator::default();
        let judge = Mutex::new(LeafJudge::new(0, 4));
        let mix = LeafMix {
            weight: 0.5,
            scale: 300.0,
            depth: 0,
        };
        let evaluate = |mix: Option<LeafMix>, deadline: Option<Instant>| {
            let mixed = Mixed {
                inner: &inner,
                mix,
                judge: Some(&judge),
                tables: None,
                deadline,
            };
            let mut out = Vec::new();
            mixed.evaluate(&request, &mut out).unwrap();
            out.pop().unwrap()
        };
        let plain = evaluate(None, None);
        assert_eq!(plain.wdl, [0.0, 1.0, 0.0]);
        let mixed = evaluate(Some(mix), None);
        // Half of tanh(-1/3) (a stone is 100, mobility and strong points move it a little).
        assert!((-0.25..-0.1).contains(&mixed.value()), "{:?}", mixed.wdl);
        assert_eq!(mixed.priors, plain.priors);
        // Past the turn's deadline the leaf keeps the inner value and nothing is searched.
        let nodes = judge.lock().unwrap().nodes();
        let past = Instant::now() - std::time::Duration::from_millis(1);
        let late = evaluate(Some(mix), Some(past));
        assert_eq!(late.wdl, plain.wdl);
        assert_eq!(judge.lock().unwrap().nodes(), nodes);
    }
}
