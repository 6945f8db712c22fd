//! The network's weights as plain arrays, in the layouts the training framework keeps them, and
//! the shape checks a set of weights must pass before it can run.

use crate::{BOARD_POINTS, WDL_SIZE};

/// A same-padded convolution with its batchnorm already folded in.
#[derive(Clone, Debug, PartialEq)]
pub struct ConvWeights {
    /// Input channels.
    pub inputs: usize,
    /// Output channels.
    pub outputs: usize,
    /// Kernel side (3 for the tower, 1 for the heads).
    pub kernel: usize,
    /// `[outputs][inputs][kernel][kernel]`, row-major.
    pub weight: Vec<f32>,
    /// `[outputs]`.
    pub bias: Vec<f32>,
}

/// A fully connected layer `y = x W + b`.
#[derive(Clone, Debug, PartialEq)]
pub struct LinearWeights {
    /// Input width.
    pub inputs: usize,
    /// Output width.
    pub outputs: usize,
    /// `[inputs][outputs]`, row-major.
    pub weight: Vec<f32>,
    /// `[outputs]`.
    pub bias: Vec<f32>,
}

/// One residual block: `relu(x + second(gpool(relu(first(x)))))`.
#[derive(Clone, Debug, PartialEq)]
pub struct BlockWeights {
    /// The first 3x3 convolution (followed by a ReLU).
    pub first: ConvWeights,
    /// The global pooling bias: per-channel mean and max over the board (`2 * channels` inputs,
    /// means first) mapped to one bias per channel, added at every point.
    pub global_pool: Option<LinearWeights>,
    /// The second 3x3 convolution (then the skip connection and a ReLU).
    pub second: ConvWeights,
}

/// Every weight of a network.
///
/// The heads flatten their 1x1 convolution's output channel-major (`channel * 45 + point`),
/// as the training framework does; the native network repacks that order once at load.
#[derive(Clone, Debug, PartialEq)]
pub struct Weights {
    /// The 3x3 stem convolution over the input planes (then a ReLU).
    pub stem: ConvWeights,
    /// The residual tower.
    pub blocks: Vec<BlockWeights>,
    /// The policy head's 1x1 convolution (then a ReLU).
    pub policy_conv: ConvWeights,
    /// The policy head's linear layer: `policy_channels * 45` inputs, one logit per action.
    pub policy_fc: LinearWeights,
    /// The value head's 1x1 convolution (then a ReLU).
    pub value_conv: ConvWeights,
    /// The value head's hidden layer (then a ReLU).
    pub value_fc1: LinearWeights,
    /// The value head's output layer: win, draw and loss logits.
    pub value_fc2: LinearWeights,
}

impl Weights {
    /// A 64-bit digest of every shape and every weight's bits (FNV-1a), in layer order: two
    /// models that compute the same function from the same numbers share it, whatever file
    /// they came from. Not for security.
    pub fn fingerprint(&self) -> u64 {
        let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
        let mut eat = |word: u64| {
            for byte in word.to_le_bytes() {
                hash = (hash ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3);
            }
        };
        let mut layer = |shape: [usize; 3], weight: &[f32], bias: &[f32]| {
            shape.iter().for_each(|&d| eat(d as u64));
            weight
                .iter()
                .chain(bias)
                .for_each(|w| eat(u64::from(w.to_bits())));
        };
        fn conv(c: &ConvWeights) -> ([usize; 3], &[f32], &[f32]) {
            ([c.inputs, c.outputs, c.kernel], &c.weight, &c.bias)
        }
        fn linear(l: &LinearWeights) -> ([usize; 3], &[f32], &[f32]) {
            ([l.inputs, l.outputs, 0], &l.weight, &l.bias)
        }
        let mut layers = vec![conv(&self.stem)];
        for b in &self.blocks {
            layers.push(conv(&b.first));
            if let Some(g) = &b.global_pool {
                layers.push(linear(g));
            }
            layers.push(conv(&b.second));
        }
        layers.extend([
            conv(&self.policy_conv),
            linear(&self.policy_fc),
            conv(&self.value_conv),
            linear(&self.value_fc1),
            linear(&self.value_fc2),
        ]);
        for (shape, weight, bias) in layers {
            layer(shape, weight, bias);
        }
        hash
    }
}

/// Why a set of weights cannot run: the layer and what does not fit.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("layer `{layer}`: {problem}")]
pub struct ShapeError {
    /// The layer, as `stem`, `blocks.2.second`, `policy_fc`, ...
    pub layer: String,
    /// What is wrong with it.
    pub problem: String,
}

fn shape_error(layer: &str, problem: String) -> ShapeError {
    ShapeError {
        layer: layer.to_string(),
        problem,
    }
}

/// Largest width of any layer the checks accept (far above any network trained here), so that
/// products of dimensions cannot overflow.
const MAX_WIDTH: usize = 1 << 16;

impl ConvWeights {
    fn check(&self, layer: &str, inputs: usize, kernel: usize) -> Result<(), ShapeError> {
        if self.inputs != inputs {
            return Err(shape_error(
                layer,
                format!("takes {} channels, its input has {inputs}", self.inputs),
            ));
        }
        if self.kernel != kernel {
            return Err(shape_error(
                layer,
                format!("kernel {}x{0}, expected {kernel}x{kernel}", self.kernel),
            ));
        }
        if self.outputs == 0 || self.outputs > MAX_WIDTH {
            return Err(shape_error(
                layer,
                format!("{} output channels (1 to {MAX_WIDTH})", self.outputs),
            ));
        }
        let expected = self.outputs * self.inputs * kernel * kernel;
        check_len(layer, "weight", self.weight.len(), expected)?;
        check_len(layer, "bias", self.bias.len(), self.outputs)?;
        check_finite(layer, "weight", &self.weight)?;
        check_finite(layer, "bias", &self.bias)
    }
}

impl LinearWeights {
    fn check(&self, layer: &str, inputs: usize, outputs: Option<usize>) -> Result<(), ShapeError> {
        if self.inputs != inputs {
            return Err(shape_error(
                layer,
                format!("takes {} inputs, its input has {inputs}", self.inputs),
            ));
        }
        if let Some(outputs) = outputs.filter(|&o| o != self.outputs) {
            return Err(shape_error(
                layer,
                format!("has {} outputs, expected {outputs}", self.outputs),
            ));
        }
        if self.outputs == 0 || self.outputs > MAX_WIDTH {
            return Err(shape_error(
                layer,
                format!("{} outputs (1 to {MAX_WIDTH})", self.outputs),
            ));
        }
        check_len(
            layer,
            "weight",
            self.weight.len(),
            self.inputs * self.outputs,
        )?;
        check_len(layer, "bias", self.bias.len(), self.outputs)?;
        check_finite(layer, "weight", &self.weight)?;
        check_finite(layer, "bias", &self.bias)
    }
}

/// Every value a finite number: a NaN or an infinity makes every answer of the network NaN
/// (it played on with "score value 0.000").
fn check_finite(layer: &str, what: &str, values: &[f32]) -> Result<(), ShapeError> {
    match values.iter().position(|v| !v.is_finite()) {
        None => Ok(()),
        Some(i) => Err(shape_error(
            layer,
            format!("{what}[{i}] = {} is not a finite number", values[i]),
        )),
    }
}

fn check_len(layer: &str, what: &str, found: usize, expected: usize) -> Result<(), ShapeError> {
    if found == expected {
        Ok(())
    } else {
        Err(shape_error(
            layer,
            format!("{what} has {found} values, expected {expected}"),
        ))
    }
}

impl Weights {
    /// Checks that every layer fits the one before it and that every array has the length its
    /// dimensions say.
    pub fn check(&self) -> Result<(), ShapeError> {
        let planes = self.stem.inputs;
        if planes == 0 || planes > MAX_WIDTH {
            return Err(shape_error(
                "stem",
                format!("{planes} input planes (1 to {MAX_WIDTH})"),
            ));
        }
        self.stem.check("stem", planes, 3)?;
        let channels = self.stem.outputs;
        for (i, block) in self.blocks.iter().enumerate() {
            let first = format!("blocks.{i}.first");
            block.first.check(&first, channels, 3)?;
            if block.first.outputs != channels {
                return Err(shape_error(
                    &first,
                    format!(
                        "{} output channels, the tower has {channels}",
                        block.first.outputs
                    ),
                ));
            }
            if let Some(pool) = &block.global_pool {
                pool.check(
                    &format!("blocks.{i}.global_pool"),
                    2 * channels,
                    Some(channels),
                )?;
            }
            let second = format!("blocks.{i}.second");
            block.second.check(&second, channels, 3)?;
            if block.second.outputs != channels {
                return Err(shape_error(
                    &second,
                    format!(
                        "{} output channels, the tower has {channels}",
                        block.second.outputs
                    ),
                ));
            }
        }
        self.policy_conv.check("policy_conv", channels, 1)?;
        self.policy_fc
            .check("policy_fc", self.policy_conv.outputs * BOARD_POINTS, None)?;
        self.value_conv.check("value_conv", channels, 1)?;
        self.value_fc1
            .check("value_fc1", self.value_conv.outputs * BOARD_POINTS, None)?;
        self.value_fc2
            .check("value_fc2", self.value_fc1.outputs, Some(WDL_SIZE))
    }
}

#[cfg(test)]
mod tests {
    use crate::testing::{Shape, random_weights};

    #[test]
    fn a_weight_that_is_not_a_finite_number_is_refused_naming_the_layer() {
        // A model file with a NaN weight and a valid checksum loaded and played "score value
        // 0.000".
        let good = random_weights(&Shape::new(8, 2, 16), 3);
        assert!(good.check().is_ok());
        let mut bad = good.clone();
        bad.blocks[1].second.weight[7] = f32::NAN;
        let err = bad.check().unwrap_err().to_string();
        assert!(
            err.contains("blocks.1.second") && err.contains("weight[7] = NaN"),
            "{err}"
        );
        let mut bad = good.clone();
        bad.value_fc2.bias[0] = f32::INFINITY;
        let err = bad.check().unwrap_err().to_string();
        assert!(
            err.contains("value_fc2") && err.contains("bias[0] = inf"),
            "{err}"
        );
    }
}
