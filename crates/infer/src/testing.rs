//! Random networks of any shape, for tests and benchmarks (here and in the crates that check
//! this one against the training framework).

use crate::weights::{BlockWeights, ConvWeights, LinearWeights, Weights};
use crate::{BOARD_POINTS, WDL_SIZE};

/// A network's shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shape {
    /// Input planes.
    pub planes: usize,
    /// Residual blocks.
    pub blocks: usize,
    /// Tower channels.
    pub channels: usize,
    /// Channels of the policy head's 1x1 convolution.
    pub policy_channels: usize,
    /// Channels of the value head's 1x1 convolution.
    pub value_channels: usize,
    /// Width of the value head's hidden layer.
    pub value_hidden: usize,
    /// Every n-th block has a global pooling bias (0: none).
    pub global_pool_every: usize,
    /// Policy logits.
    pub actions: usize,
}

impl Shape {
    /// `blocks` x `channels` over `planes` input planes, with the project's default heads (8
    /// policy channels, 4 value channels, 64 hidden, 1081 actions) and no global pooling.
    pub fn new(planes: usize, blocks: usize, channels: usize) -> Shape {
        Shape {
            planes,
            blocks,
            channels,
            policy_channels: 8,
            value_channels: 4,
            value_hidden: 64,
            global_pool_every: 0,
            actions: 1081,
        }
    }
}

/// A small deterministic generator (xorshift), uniform in [-1, 1).
struct Noise(u64);

impl Noise {
    fn next(&mut self) -> f32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        ((self.0 >> 40) as f32 / (1u64 << 23) as f32) - 1.0
    }

    /// `n` values scaled for `fan_in` inputs, so activations stay of order one.
    fn values(&mut self, n: usize, fan_in: usize) -> Vec<f32> {
        let scale = (3.0 / fan_in.max(1) as f32).sqrt();
        (0..n).map(|_| self.next() * scale).collect()
    }
}

fn conv(noise: &mut Noise, inputs: usize, outputs: usize, kernel: usize) -> ConvWeights {
    ConvWeights {
        inputs,
        outputs,
        kernel,
        weight: noise.values(outputs * inputs * kernel * kernel, inputs * kernel * kernel),
        bias: noise.values(outputs, 4),
    }
}

fn linear(noise: &mut Noise, inputs: usize, outputs: usize) -> LinearWeights {
    LinearWeights {
        inputs,
        outputs,
        weight: noise.values(inputs * outputs, inputs),
        bias: noise.values(outputs, 4),
    }
}

/// Random weights of `shape`, the same for the same `seed`.
pub fn random_weights(shape: &Shape, seed: u64) -> Weights {
    let mut noise = Noise(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let c = shape.channels;
    let blocks = (0..shape.blocks)
        .map(|i| BlockWeights {
            first: conv(&mut noise, c, c, 3),
            global_pool: (shape.global_pool_every != 0 && (i + 1) % shape.global_pool_every == 0)
                .then(|| linear(&mut noise, 2 * c, c)),
            second: conv(&mut noise, c, c, 3),
        })
        .collect();
    Weights {
        stem: conv(&mut noise, shape.planes, c, 3),
        blocks,
        policy_conv: conv(&mut noise, c, shape.policy_channels, 1),
        policy_fc: linear(
            &mut noise,
            shape.policy_channels * BOARD_POINTS,
            shape.actions,
        ),
        value_conv: conv(&mut noise, c, shape.value_channels, 1),
        value_fc1: linear(
            &mut noise,
            shape.value_channels * BOARD_POINTS,
            shape.value_hidden,
        ),
        value_fc2: linear(&mut noise, shape.value_hidden, WDL_SIZE),
    }
}

/// `batch` positions of random 0/1 input planes.
pub fn random_planes(planes: usize, batch: usize, seed: u64) -> Vec<f32> {
    let mut noise = Noise(seed.wrapping_mul(0xD1B5_4A32_D192_ED03) | 1);
    (0..batch * planes * BOARD_POINTS)
        .map(|_| if noise.next() < -0.4 { 1.0 } else { 0.0 })
        .collect()
}

/// The largest absolute difference between two equally long arrays.
///
/// # Panics
///
/// If the lengths differ.
pub fn largest_difference(a: &[f32], b: &[f32]) -> f32 {
    assert_eq!(a.len(), b.len(), "compared arrays differ in length");
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f32::max)
}
