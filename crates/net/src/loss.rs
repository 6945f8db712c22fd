//! Training loss: masked policy cross-entropy plus win/draw/loss cross-entropy.
//!
//! Weight decay is not part of this loss: it is applied by the optimizer (coupled L2 for SGD,
//! decoupled for AdamW, see [`crate::trainer::OptimizerConfig`]). The equivalent L2 term for
//! logging is [`crate::trainer::Trainer::l2_penalty`].

use burn::config::Config;
use burn::tensor::activation::log_softmax;
use burn::tensor::{Bool, Tensor};

/// A logit far below any real one: illegal actions get it before the softmax, so their
/// probability is exactly zero in f32 while `0 * logit` stays finite (unlike `-inf`).
const MASKED_LOGIT: f32 = -1.0e9;

/// Relative weights of the loss terms.
#[derive(Config, Debug, PartialEq)]
pub struct LossConfig {
    /// Weight of the policy cross-entropy.
    #[config(default = 1.0)]
    pub policy_weight: f32,
    /// Weight of the win/draw/loss cross-entropy.
    #[config(default = 1.0)]
    pub value_weight: f32,
}

/// Loss figures of one batch, for logging. All are means over the batch.
#[derive(Debug, Clone, Copy, PartialEq, Default, serde::Serialize, serde::Deserialize)]
pub struct LossReport {
    /// Weighted sum of the policy and value terms (what was differentiated).
    pub total: f32,
    /// Policy cross-entropy against the search distribution, over legal actions only.
    pub policy: f32,
    /// Win/draw/loss cross-entropy.
    pub value: f32,
    /// Entropy of the network's masked policy (nats).
    pub policy_entropy: f32,
    /// Fraction of positions where the most likely predicted outcome equals the target's.
    pub value_accuracy: f32,
}

/// The loss tensor to differentiate and its figures read back to the host.
#[derive(Debug)]
pub struct LossOutput {
    /// Scalar total loss, `[1]`, still attached to the autodiff graph.
    pub total: Tensor<1>,
    /// The same figures as plain numbers.
    pub report: LossReport,
}

/// Computes the training loss of one batch.
///
/// * `policy_logits`: `[batch, POLICY_SIZE]` raw network output.
/// * `legal`: `[batch, POLICY_SIZE]`, true for legal actions. Illegal logits are replaced by a
///   huge negative constant before the softmax, so neither their values nor their gradients
///   matter, and the softmax normalises over legal actions only.
/// * `policy_target`: `[batch, POLICY_SIZE]` probabilities summing to 1 over legal actions;
///   any mass on illegal actions is ignored.
/// * `wdl_logits`, `wdl_target`: `[batch, 3]` logits and target probabilities.
///
/// All figures are read back to the host in one transfer.
pub fn compute_loss(
    config: &LossConfig,
    policy_logits: Tensor<2>,
    legal: Tensor<2, Bool>,
    policy_target: Tensor<2>,
    wdl_logits: Tensor<2>,
    wdl_target: Tensor<2>,
) -> LossOutput {
    let [batch, _] = policy_logits.dims();
    let batch = batch as f32;
    let illegal = legal.bool_not();

    let masked = policy_logits.mask_fill(illegal.clone(), MASKED_LOGIT); // [batch, POLICY_SIZE]
    let log_p = log_softmax(masked, 1); // [batch, POLICY_SIZE]
    let target = policy_target.mask_fill(illegal, 0.0); // [batch, POLICY_SIZE]
    let policy = (target * log_p.clone()).sum().neg().div_scalar(batch); // [1]

    let log_q = log_softmax(wdl_logits.clone(), 1); // [batch, 3]
    let value = (wdl_target.clone() * log_q).sum().neg().div_scalar(batch); // [1]

    let total = policy.clone().mul_scalar(config.policy_weight)
        + value.clone().mul_scalar(config.value_weight); // [1]

    // Logging figures, outside the graph.
    let log_p = log_p.detach();
    let entropy = (log_p.clone().exp() * log_p).sum().neg().div_scalar(batch); // [1]
    let hits = wdl_logits
        .detach()
        .argmax(1)
        .equal(wdl_target.argmax(1))
        .float()
        .mean(); // [1]

    let figures = Tensor::cat(
        vec![
            total.clone().detach(),
            policy.detach(),
            value.detach(),
            entropy,
            hits,
        ],
        0,
    ); // [5]
    let report = read_figures(figures);
    LossOutput { total, report }
}

fn read_figures(figures: Tensor<1>) -> LossReport {
    let values = figures.try_into_vec_as::<f32>().unwrap_or_default();
    match values[..] {
        [total, policy, value, policy_entropy, value_accuracy] => LossReport {
            total,
            policy,
            value,
            policy_entropy,
            value_accuracy,
        },
        // A failed device read: poison the figures rather than panic inside a training loop.
        _ => LossReport {
            total: f32::NAN,
            policy: f32::NAN,
            value: f32::NAN,
            policy_entropy: f32::NAN,
            value_accuracy: f32::NAN,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use burn::tensor::{Device, TensorData};

    fn t2(values: Vec<f32>, rows: usize, device: &Device) -> Tensor<2> {
        let cols = values.len() / rows;
        Tensor::from_data(TensorData::new(values, [rows, cols]), device)
    }

    fn mask(values: Vec<bool>, rows: usize, device: &Device) -> Tensor<2, Bool> {
        let cols = values.len() / rows;
        Tensor::from_data(TensorData::new(values, [rows, cols]), device)
    }

    /// Two positions, five actions; actions 1 and 3 of the first and 0 of the second are
    /// illegal.
    fn loss_with_illegal_logits(illegal_value: f32, device: &Device) -> LossOutput {
        let logits = vec![
            0.5,
            illegal_value,
            -1.0,
            illegal_value,
            2.0, //
            illegal_value,
            0.0,
            0.3,
            1.0,
            -0.7,
        ];
        let legal = vec![
            true, false, true, false, true, false, true, true, true, true,
        ];
        let target = vec![0.2, 0.0, 0.3, 0.0, 0.5, 0.0, 0.25, 0.25, 0.25, 0.25];
        compute_loss(
            &LossConfig::new(),
            t2(logits, 2, device),
            mask(legal, 2, device),
            t2(target, 2, device),
            t2(vec![1.0, 0.0, -1.0, 0.2, 0.1, 0.4], 2, device),
            t2(vec![1.0, 0.0, 0.0, 0.0, 0.0, 1.0], 2, device),
        )
    }

    fn log_softmax_host(logits: &[f32]) -> Vec<f32> {
        let max = logits.iter().cloned().fold(f32::NEG_INFINITY, f32::max);
        let lse = logits.iter().map(|x| (x - max).exp()).sum::<f32>().ln() + max;
        logits.iter().map(|x| x - lse).collect()
    }

    #[test]
    fn policy_loss_ignores_illegal_logits() {
        let device = Device::flex();
        let reference = loss_with_illegal_logits(0.0, &device).report;
        for value in [-50.0, 3.0, 1.0e6, -1.0e30] {
            let report = loss_with_illegal_logits(value, &device).report;
            assert_eq!(report, reference, "illegal logit {value}");
        }
    }

    #[test]
    fn figures_match_a_host_computation() {
        let device = Device::flex();
        let report = loss_with_illegal_logits(9.0, &device).report;

        let lp1 = log_softmax_host(&[0.5, -1.0, 2.0]);
        let lp2 = log_softmax_host(&[0.0, 0.3, 1.0, -0.7]);
        let ce1 = -(0.2 * lp1[0] + 0.3 * lp1[1] + 0.5 * lp1[2]);
        let ce2 = -lp2.iter().map(|l| 0.25 * l).sum::<f32>();
        let policy = (ce1 + ce2) / 2.0;
        let entropy = -(lp1.iter().chain(&lp2).map(|l| l.exp() * l).sum::<f32>()) / 2.0;
        let lq1 = log_softmax_host(&[1.0, 0.0, -1.0]);
        let lq2 = log_softmax_host(&[0.2, 0.1, 0.4]);
        let value = -(lq1[0] + lq2[2]) / 2.0;

        let close = |a: f32, b: f32| (a - b).abs() < 1e-5;
        assert!(close(report.policy, policy), "{report:?} vs {policy}");
        assert!(close(report.value, value), "{report:?} vs {value}");
        assert!(close(report.total, policy + value));
        assert!(
            close(report.policy_entropy, entropy),
            "{report:?} vs {entropy}"
        );
        // Argmax of [1, 0, -1] is win = target; argmax of [.2, .1, .4] is loss = target.
        assert_eq!(report.value_accuracy, 1.0);
    }

    #[test]
    fn illegal_logits_get_no_gradient() {
        let device = Device::flex().autodiff();
        let logits = t2(vec![0.5, 4.0, -1.0, 7.0], 1, &device).require_grad();
        let out = compute_loss(
            &LossConfig::new(),
            logits.clone(),
            mask(vec![true, false, true, false], 1, &device),
            t2(vec![0.5, 0.0, 0.5, 0.0], 1, &device),
            t2(vec![0.0, 0.0, 0.0], 1, &device),
            t2(vec![0.0, 1.0, 0.0], 1, &device),
        );
        let grads = out.total.backward();
        let grad = logits
            .grad(&grads)
            .unwrap()
            .into_data()
            .try_into_vec::<f32>()
            .unwrap();
        assert_eq!(grad[1], 0.0);
        assert_eq!(grad[3], 0.0);
        assert!(grad[0] != 0.0 && grad[2] != 0.0);
        // Legal gradients of a softmax cross-entropy sum to zero.
        assert!((grad[0] + grad[2]).abs() < 1e-6);
    }
}
