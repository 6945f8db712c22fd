//! The policy/value network: a residual convolution tower over the 5x9 board.
//!
//! ```text
//! planes [B, input_planes, 5, 9]
//!   -> stem: 3x3 conv, batchnorm, relu                         [B, channels, 5, 9]
//!   -> `blocks` residual blocks (two 3x3 conv + batchnorm, skip) [B, channels, 5, 9]
//!      every `global_pool_every`-th block adds a KataGo-style global pooling bias
//!   -> policy head: 1x1 conv -> policy_channels, bn, relu, flatten, linear -> 1081 logits
//!   -> value head:  1x1 conv -> value_channels, bn, relu, flatten, linear, relu, linear -> 3
//! ```
//!
//! The policy head ends in a fully connected layer rather than a per-point convolution so that
//! the network makes no assumption about how action indices are laid out: whatever order the
//! action encoding chooses for the 45 x 8 x 3 moves and the end-turn action, the last layer
//! learns it. It costs about 2 * 45 * policy_channels * 1081 FLOPs per position, a few percent
//! of the tower.

use burn::module::Module;
use burn::nn::conv::{Conv2d, Conv2dConfig};
use burn::nn::{BatchNorm, BatchNormConfig, Linear, LinearConfig, PaddingConfig2d};
use burn::tensor::activation::relu;
use burn::tensor::module::conv2d;
use burn::tensor::ops::ConvOptions;
use burn::tensor::{Device, Tensor};
use serde::{Deserialize, Serialize};

/// Board rows.
pub const BOARD_ROWS: usize = 5;
/// Board columns.
pub const BOARD_COLS: usize = 9;
/// Board points (rows x columns).
pub const BOARD_POINTS: usize = BOARD_ROWS * BOARD_COLS;
/// Number of policy logits: 45 points x 8 directions x 3 kinds, plus one end-turn action.
pub const POLICY_SIZE: usize = BOARD_POINTS * 8 * 3 + 1;
/// Number of value logits: win, draw, loss for the player to move.
pub const WDL_SIZE: usize = 3;

/// Shape of the network; saved beside the weights in checkpoints and exported models, and the
/// `[model]` section of a training config (unknown keys rejected, missing ones defaulted).
///
/// The default is the network `configs/default.toml` trains (4 blocks of 48 channels, no
/// global pooling); `bench-net` measures the same one unless told otherwise.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct NetConfig {
    /// Number of input feature planes, each 5x9 (fixed by the encoding: 16).
    pub input_planes: usize,
    /// Number of residual blocks in the tower (1 to 40).
    pub blocks: usize,
    /// Channels (filters) of every tower convolution (4 to 512).
    pub channels: usize,
    /// Channels of the policy head's 1x1 convolution before the final linear layer.
    pub policy_channels: usize,
    /// Channels of the value head's 1x1 convolution.
    pub value_channels: usize,
    /// Width of the value head's hidden linear layer.
    pub value_hidden: usize,
    /// Every n-th residual block (counting from 1) adds a global pooling bias: the mean and
    /// max of its first convolution's output over the board feed a linear layer whose output
    /// is added, per channel, before the second convolution. 0 turns it off.
    ///
    /// On a 5x9 board a 6-block tower already sees the whole board, so this mainly helps
    /// whole-board judgements (material count, chain length) at little cost.
    pub global_pool_every: usize,
}

impl Default for NetConfig {
    fn default() -> Self {
        NetConfig {
            input_planes: crate::encoding::INPUT_PLANES,
            blocks: 4,
            channels: 48,
            policy_channels: 8,
            value_channels: 4,
            value_hidden: 64,
            global_pool_every: 0,
        }
    }
}

/// A network shape out of range: the field, its value and what it must be.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("`{field}` = {value}: must be {requirement}")]
pub struct NetConfigError {
    /// The field, as named in config files.
    pub field: &'static str,
    /// Its value.
    pub value: usize,
    /// The allowed range.
    pub requirement: &'static str,
}

impl NetConfig {
    /// The default shape (see [`NetConfig::default`]).
    pub fn new() -> Self {
        NetConfig::default()
    }

    /// This shape with `planes` input planes (tests of the network alone use fewer; the
    /// encoding needs 16).
    pub fn with_input_planes(mut self, planes: usize) -> Self {
        self.input_planes = planes;
        self
    }

    /// This shape with `blocks` residual blocks.
    pub fn with_blocks(mut self, blocks: usize) -> Self {
        self.blocks = blocks;
        self
    }

    /// This shape with `channels` tower channels.
    pub fn with_channels(mut self, channels: usize) -> Self {
        self.channels = channels;
        self
    }

    /// This shape with a global pooling bias every `every` blocks (0: none).
    pub fn with_global_pool_every(mut self, every: usize) -> Self {
        self.global_pool_every = every;
        self
    }

    /// The tower's shape in words: `1 block x 8 channels`, `4 blocks x 48 channels`.
    pub fn tower(&self) -> String {
        let plural = if self.blocks == 1 { "" } else { "s" };
        format!("{} block{plural} x {} channels", self.blocks, self.channels)
    }

    /// Checks every field's range (the input planes: the encoding's 16).
    pub fn validate(&self) -> Result<(), NetConfigError> {
        self.validate_with_planes(
            crate::encoding::INPUT_PLANES,
            crate::encoding::INPUT_PLANES,
            "16 (the encoding's planes)",
        )
    }

    /// Checks every field's range before a stored network is built: the same bounds, but
    /// input planes from 1 to 64 (networks of tests and experiments take fewer than the
    /// encoding's; whether one fits a player is checked where it plays).
    pub fn validate_stored(&self) -> Result<(), NetConfigError> {
        self.validate_with_planes(1, 64, "1 to 64")
    }

    fn validate_with_planes(
        &self,
        low: usize,
        high: usize,
        planes: &'static str,
    ) -> Result<(), NetConfigError> {
        let checks: [(&'static str, usize, usize, usize, &'static str); 7] = [
            ("input_planes", self.input_planes, low, high, planes),
            ("blocks", self.blocks, 1, 40, "1 to 40"),
            ("channels", self.channels, 4, 512, "4 to 512"),
            ("policy_channels", self.policy_channels, 1, 256, "1 to 256"),
            ("value_channels", self.value_channels, 1, 256, "1 to 256"),
            ("value_hidden", self.value_hidden, 1, 1024, "1 to 1024"),
            (
                "global_pool_every",
                self.global_pool_every,
                0,
                40,
                "0 (off) to 40",
            ),
        ];
        for (field, value, low, high, requirement) in checks {
            if !(low..=high).contains(&value) {
                return Err(NetConfigError {
                    field,
                    value,
                    requirement,
                });
            }
        }
        Ok(())
    }
}

impl NetConfig {
    /// Builds a freshly initialised network on `device`.
    ///
    /// Weights are drawn from the device's random generator; call `device.seed(..)` first for
    /// a reproducible network. Parameters are initialised lazily by burn, so building a model
    /// only to load weights into it costs little.
    pub fn init(&self, device: &Device) -> FanoronaNet {
        let stem = ConvBn::new(self.input_planes, self.channels, 3, device);
        let blocks = (0..self.blocks)
            .map(|i| {
                let gpool = self.global_pool_every != 0 && (i + 1) % self.global_pool_every == 0;
                ResidualBlock::new(self.channels, gpool, device)
            })
            .collect();
        FanoronaNet {
            stem,
            blocks,
            policy_conv: ConvBn::new(self.channels, self.policy_channels, 1, device),
            policy_fc: LinearConfig::new(self.policy_channels * BOARD_POINTS, POLICY_SIZE)
                .init(device),
            value_conv: ConvBn::new(self.channels, self.value_channels, 1, device),
            value_fc1: LinearConfig::new(self.value_channels * BOARD_POINTS, self.value_hidden)
                .init(device),
            value_fc2: LinearConfig::new(self.value_hidden, WDL_SIZE).init(device),
        }
    }

    /// Number of floats one position's input planes take.
    pub fn input_len(&self) -> usize {
        self.input_planes * BOARD_POINTS
    }

    /// Floating point operations of one forward pass for one position (a multiply-add counts
    /// as two), counted analytically over convolutions and linear layers; batchnorm, relu and
    /// pooling are ignored.
    pub fn flops_per_eval(&self) -> f64 {
        let conv =
            |k: usize, cin: usize, cout: usize| (2 * k * k * cin * cout * BOARD_POINTS) as f64;
        let linear = |i: usize, o: usize| (2 * i * o) as f64;
        let c = self.channels;
        let gpool_blocks = self.blocks.checked_div(self.global_pool_every).unwrap_or(0);
        conv(3, self.input_planes, c)
            + self.blocks as f64 * 2.0 * conv(3, c, c)
            + gpool_blocks as f64 * linear(2 * c, c)
            + conv(1, c, self.policy_channels)
            + linear(self.policy_channels * BOARD_POINTS, POLICY_SIZE)
            + conv(1, c, self.value_channels)
            + linear(self.value_channels * BOARD_POINTS, self.value_hidden)
            + linear(self.value_hidden, WDL_SIZE)
    }
}

/// The policy/value network. Build it with [`NetConfig::init`].
#[derive(Module, Debug)]
pub struct FanoronaNet {
    stem: ConvBn,
    blocks: Vec<ResidualBlock>,
    policy_conv: ConvBn,
    policy_fc: Linear,
    value_conv: ConvBn,
    value_fc1: Linear,
    value_fc2: Linear,
}

/// Raw outputs of [`FanoronaNet::forward`].
#[derive(Debug, Clone)]
pub struct NetOutput {
    /// Policy logits, `[batch, POLICY_SIZE]`, unmasked.
    pub policy: Tensor<2>,
    /// Win/draw/loss logits for the player to move, `[batch, 3]`.
    pub wdl: Tensor<2>,
}

impl FanoronaNet {
    /// Runs the network on `[batch, input_planes, 5, 9]` planes.
    ///
    /// On an autodiff device with the module in training mode, batchnorm uses batch
    /// statistics and updates its running averages; otherwise it uses the running averages.
    pub fn forward(&self, planes: Tensor<4>) -> NetOutput {
        let x = relu(self.stem.forward(planes)); // [batch, channels, 5, 9]
        let x = self.blocks.iter().fold(x, |x, block| block.forward(x)); // [batch, channels, 5, 9]

        let p = relu(self.policy_conv.forward(x.clone())); // [batch, policy_channels, 5, 9]
        let p = p.flatten::<2>(1, 3); // [batch, policy_channels * 45]
        let policy = self.policy_fc.forward(p); // [batch, POLICY_SIZE]

        let v = relu(self.value_conv.forward(x)); // [batch, value_channels, 5, 9]
        let v = v.flatten::<2>(1, 3); // [batch, value_channels * 45]
        let v = relu(self.value_fc1.forward(v)); // [batch, value_hidden]
        let wdl = self.value_fc2.forward(v); // [batch, 3]

        NetOutput { policy, wdl }
    }
}

/// A same-padded convolution without bias followed by batchnorm (which supplies the bias).
#[derive(Module, Debug)]
struct ConvBn {
    conv: Conv2d,
    bn: BatchNorm,
}

impl ConvBn {
    fn new(cin: usize, cout: usize, kernel: usize, device: &Device) -> Self {
        Self {
            conv: Conv2dConfig::new([cin, cout], [kernel, kernel])
                .with_padding(PaddingConfig2d::Same)
                .with_bias(false)
                .init(device),
            bn: BatchNormConfig::new(cout).init(device),
        }
    }

    fn forward(&self, x: Tensor<4>) -> Tensor<4> {
        self.bn.forward(self.conv.forward(x)) // [batch, cout, 5, 9]
    }
}

/// Two 3x3 conv + batchnorm layers with a skip connection, optionally with a global pooling
/// bias between them.
#[derive(Module, Debug)]
struct ResidualBlock {
    first: ConvBn,
    global_pool: Option<GlobalPoolBias>,
    second: ConvBn,
}

impl ResidualBlock {
    fn new(channels: usize, global_pool: bool, device: &Device) -> Self {
        Self {
            first: ConvBn::new(channels, channels, 3, device),
            global_pool: global_pool.then(|| GlobalPoolBias::new(channels, device)),
            second: ConvBn::new(channels, channels, 3, device),
        }
    }

    fn forward(&self, x: Tensor<4>) -> Tensor<4> {
        let y = relu(self.first.forward(x.clone())); // [batch, channels, 5, 9]
        let y = match &self.global_pool {
            Some(gpool) => gpool.forward(y), // [batch, channels, 5, 9]
            None => y,
        };
        let y = self.second.forward(y); // [batch, channels, 5, 9]
        relu(x + y)
    }
}

/// KataGo-style global pooling: per-channel mean and max over the board, mapped by a linear
/// layer to a per-channel bias that is added at every point.
#[derive(Module, Debug)]
struct GlobalPoolBias {
    linear: Linear,
}

impl GlobalPoolBias {
    fn new(channels: usize, device: &Device) -> Self {
        Self {
            linear: LinearConfig::new(2 * channels, channels).init(device),
        }
    }

    fn forward(&self, x: Tensor<4>) -> Tensor<4> {
        let [batch, channels, rows, cols] = x.dims();
        // Reducing over the last, contiguous dim is several times faster on flex than over
        // dims 2 and 3 of the 4-d tensor.
        let flat = x.clone().reshape([batch, channels, rows * cols]); // [batch, channels, 45]
        let mean = flat.clone().mean_dim(2); // [batch, channels, 1]
        let max = flat.max_dim(2); // [batch, channels, 1]
        let pooled = Tensor::cat(vec![mean, max], 1).reshape([batch, 2 * channels]); // [batch, 2 * channels]
        let bias = self.linear.forward(pooled).reshape([batch, channels, 1, 1]); // [batch, channels, 1, 1]
        x + bias
    }
}

/// A convolution with its batchnorm folded in: `conv(x, w * s) + (beta - mean * s)` with
/// `s = gamma / sqrt(var + eps)`, the same function as conv then inference-mode batchnorm.
#[derive(Debug, Clone)]
struct FusedConv {
    weight: Tensor<4>, // [cout, cin, k, k]
    bias: Tensor<1>,   // [cout]
    padding: usize,
}

impl FusedConv {
    fn new(layer: &ConvBn) -> Self {
        let weight = layer.conv.weight.val(); // [cout, cin, k, k]
        let [cout, _, k, _] = weight.dims();
        let bn = &layer.bn;
        let scale = bn
            .gamma
            .val()
            .div(bn.running_var.value().add_scalar(bn.epsilon).sqrt()); // [cout]
        let bias = bn.beta.val() - bn.running_mean.value() * scale.clone(); // [cout]
        Self {
            weight: weight * scale.reshape([cout, 1, 1, 1]),
            bias,
            padding: k / 2,
        }
    }

    fn forward(&self, x: Tensor<4>) -> Tensor<4> {
        let p = self.padding;
        conv2d(
            x,
            self.weight.clone(),
            Some(self.bias.clone()),
            ConvOptions::new([1, 1], [p, p], [1, 1], 1),
        ) // [batch, cout, 5, 9]
    }
}

#[derive(Debug, Clone)]
struct FusedBlock {
    first: FusedConv,
    global_pool: Option<GlobalPoolBias>,
    second: FusedConv,
}

/// The network prepared for inference: every batchnorm folded into the convolution before it,
/// which saves four broadcast passes over the activations per layer. Same outputs as
/// [`FanoronaNet::forward`] in inference mode, up to float rounding.
#[derive(Debug, Clone)]
pub struct FusedNet {
    stem: FusedConv,
    blocks: Vec<FusedBlock>,
    policy_conv: FusedConv,
    policy_fc: Linear,
    value_conv: FusedConv,
    value_fc1: Linear,
    value_fc2: Linear,
}

impl FanoronaNet {
    /// Fold the batchnorms (with their running statistics) into the convolutions.
    pub fn fused(&self) -> FusedNet {
        FusedNet {
            stem: FusedConv::new(&self.stem),
            blocks: self
                .blocks
                .iter()
                .map(|b| FusedBlock {
                    first: FusedConv::new(&b.first),
                    global_pool: b.global_pool.clone(),
                    second: FusedConv::new(&b.second),
                })
                .collect(),
            policy_conv: FusedConv::new(&self.policy_conv),
            policy_fc: self.policy_fc.clone(),
            value_conv: FusedConv::new(&self.value_conv),
            value_fc1: self.value_fc1.clone(),
            value_fc2: self.value_fc2.clone(),
        }
    }
}

impl FusedNet {
    /// The forward pass; shapes as in [`FanoronaNet::forward`].
    pub fn forward(&self, planes: Tensor<4>) -> NetOutput {
        let mut x = relu(self.stem.forward(planes)); // [batch, channels, 5, 9]
        for block in &self.blocks {
            let y = relu(block.first.forward(x.clone())); // [batch, channels, 5, 9]
            let y = match &block.global_pool {
                Some(gpool) => gpool.forward(y),
                None => y,
            };
            x = relu(x + block.second.forward(y)); // [batch, channels, 5, 9]
        }
        let p = relu(self.policy_conv.forward(x.clone())).flatten::<2>(1, 3); // [batch, policy_channels * 45]
        let policy = self.policy_fc.forward(p); // [batch, POLICY_SIZE]
        let v = relu(self.value_conv.forward(x)).flatten::<2>(1, 3); // [batch, value_channels * 45]
        let v = relu(self.value_fc1.forward(v)); // [batch, value_hidden]
        let wdl = self.value_fc2.forward(v); // [batch, 3]
        NetOutput { policy, wdl }
    }
}

fn host_values<const D: usize>(layer: &str, tensor: Tensor<D>) -> Result<Vec<f32>, String> {
    tensor
        .into_data()
        .try_into_vec::<f32>()
        .map_err(|e| format!("{layer}: reading its weights: {e:?}"))
}

impl FusedConv {
    fn native(&self, layer: &str) -> Result<fanorona_infer::ConvWeights, String> {
        let [outputs, inputs, kernel, _] = self.weight.dims();
        Ok(fanorona_infer::ConvWeights {
            inputs,
            outputs,
            kernel,
            weight: host_values(layer, self.weight.clone())?,
            bias: host_values(layer, self.bias.clone())?,
        })
    }
}

fn native_linear(layer: &str, linear: &Linear) -> Result<fanorona_infer::LinearWeights, String> {
    let weight = linear.weight.val(); // [inputs, outputs]
    let [inputs, outputs] = weight.dims();
    let bias = match &linear.bias {
        Some(bias) => host_values(layer, bias.val())?,
        None => vec![0.0; outputs],
    };
    Ok(fanorona_infer::LinearWeights {
        inputs,
        outputs,
        weight: host_values(layer, weight)?,
        bias,
    })
}

impl FusedNet {
    /// The folded weights as plain arrays, for the native CPU path (`fanorona-infer`); an
    /// error says which layer could not be read from the device.
    pub fn native_weights(&self) -> Result<fanorona_infer::Weights, String> {
        let blocks = self
            .blocks
            .iter()
            .enumerate()
            .map(|(i, b)| {
                Ok(fanorona_infer::BlockWeights {
                    first: b.first.native(&format!("blocks.{i}.first"))?,
                    global_pool: b
                        .global_pool
                        .as_ref()
                        .map(|g| native_linear(&format!("blocks.{i}.global_pool"), &g.linear))
                        .transpose()?,
                    second: b.second.native(&format!("blocks.{i}.second"))?,
                })
            })
            .collect::<Result<Vec<_>, String>>()?;
        Ok(fanorona_infer::Weights {
            stem: self.stem.native("stem")?,
            blocks,
            policy_conv: self.policy_conv.native("policy_conv")?,
            policy_fc: native_linear("policy_fc", &self.policy_fc)?,
            value_conv: self.value_conv.native("value_conv")?,
            value_fc1: native_linear("value_fc1", &self.value_fc1)?,
            value_fc2: native_linear("value_fc2", &self.value_fc2)?,
        })
    }
}
