//! The whole network: layers in order, a pool of reusable buffers, the batch split over threads.

use std::sync::Mutex;

use crate::kernel::SimdLevel;
use crate::layer::{GlobalPool, Input, Layer, Skip, load_planes};
use crate::quant::quantize;
use crate::weights::{ShapeError, Weights};
use crate::{BOARD_POINTS, PADDED_POINTS, WDL_SIZE};

/// Fewest positions a thread is given: below that, splitting costs more than it saves.
const MIN_POSITIONS_PER_THREAD: usize = 4;

/// Positions a thread takes through the whole network at a time: the tower's two activation
/// buffers for this many positions stay in a core's L2 cache (2 x 8 x 77 x 48 floats, 236 KB,
/// for the default network); a larger share is run in pieces of this size.
const POSITIONS_PER_PASS: usize = 8;

/// Wrong buffer sizes for a forward pass.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{what}: {found} floats, expected {expected} for the batch")]
pub struct BatchError {
    /// The buffer: `planes`, `policy` or `wdl`.
    pub what: &'static str,
    /// Floats it should have.
    pub expected: usize,
    /// Floats it has.
    pub found: usize,
}

#[derive(Clone, Debug)]
struct Block {
    first: Layer,
    global_pool: Option<GlobalPool>,
    second: Layer,
}

/// Buffers for one thread's share of a batch, grown when a larger share comes and then reused,
/// so that a steady stream of batches allocates nothing.
#[derive(Debug, Default)]
struct Workspace {
    /// Positions the tower's buffers hold.
    tower_positions: usize,
    /// Positions the heads' buffers hold.
    head_positions: usize,
    /// Input planes, bordered, channel-innermost.
    input: Vec<f32>,
    /// The tower's activations, bordered (the residual stream, updated in place).
    x: Vec<f32>,
    /// The first convolution's output inside a block, bordered.
    y: Vec<f32>,
    policy_hidden: Vec<f32>,
    value_hidden: Vec<f32>,
    value_fc1: Vec<f32>,
    value_logits: Vec<f32>,
    /// The global pooling's means, maxima and biases.
    scratch: Vec<f32>,
    /// A 3x3 convolution's input quantized to 7 bits.
    quantized: Quantized,
}

/// A 3x3 convolution's input quantized to 7 bits: bordered, channels padded to a multiple of
/// four, with one scale per position.
#[derive(Debug, Default)]
struct Quantized {
    bytes: Vec<u8>,
    scales: Vec<f32>,
    /// The (padded) channels of the layout the bytes were last written in: borders and
    /// padding channels are zero in that layout only.
    channels: usize,
}

/// The network compiled for the CPU: weights repacked once, kernels chosen by what the CPU
/// has, buffers reused across calls, batches split over the threads of rayon's pool.
///
/// Safe to share between threads (calls at the same time each take their own buffers).
#[derive(Debug)]
pub struct NativeNet {
    level: SimdLevel,
    precision: Precision,
    threads: usize,
    planes: usize,
    stem: Layer,
    blocks: Vec<Block>,
    policy_conv: Layer,
    policy_fc: Layer,
    value_conv: Layer,
    value_fc1: Layer,
    value_fc2: Layer,
    workspaces: Mutex<Vec<Workspace>>,
}

impl NativeNet {
    /// Checks the weights' shapes and repacks them, for the best kernels this CPU runs and
    /// every thread of rayon's pool.
    pub fn new(weights: &Weights) -> Result<NativeNet, ShapeError> {
        weights.check()?;
        let block = |b: &crate::weights::BlockWeights| Block {
            first: Layer::conv3(&b.first, true),
            global_pool: b.global_pool.as_ref().map(GlobalPool::new),
            second: Layer::conv3(&b.second, true),
        };
        Ok(NativeNet {
            level: SimdLevel::detect(),
            precision: Precision::F32,
            threads: rayon::current_num_threads(),
            planes: weights.stem.inputs,
            stem: Layer::conv3(&weights.stem, true),
            blocks: weights.blocks.iter().map(block).collect(),
            policy_conv: Layer::conv1(&weights.policy_conv, true),
            policy_fc: Layer::linear(&weights.policy_fc, Some(weights.policy_conv.outputs), false),
            value_conv: Layer::conv1(&weights.value_conv, true),
            value_fc1: Layer::linear(&weights.value_fc1, Some(weights.value_conv.outputs), true),
            value_fc2: Layer::linear(&weights.value_fc2, None, false),
            workspaces: Mutex::new(Vec::new()),
        })
    }

    /// The same network on kernels of `level`; an error names the level if this CPU lacks it.
    pub fn with_level(mut self, level: SimdLevel) -> Result<NativeNet, String> {
        if !level.is_available() {
            return Err(format!("this CPU does not run the {level} kernels"));
        }
        self.level = level;
        Ok(self)
    }

    /// The same network computing its 3x3 convolutions in `precision`.
    pub fn with_precision(mut self, precision: Precision) -> NativeNet {
        self.precision = precision;
        self
    }

    /// The precision of the 3x3 convolutions.
    pub fn precision(&self) -> Precision {
        self.precision
    }

    /// The same network splitting batches over at most `threads` threads (at least 1).
    pub fn with_threads(mut self, threads: usize) -> NativeNet {
        self.threads = threads.max(1);
        self
    }

    /// The kernels in use.
    pub fn level(&self) -> SimdLevel {
        self.level
    }

    /// Threads a large batch is split over.
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// Floats of one position's input planes.
    pub fn input_len(&self) -> usize {
        self.planes * BOARD_POINTS
    }

    /// Policy logits per position.
    pub fn policy_size(&self) -> usize {
        self.policy_fc.outputs()
    }

    /// Evaluates `batch` positions: `planes` holds `batch` positions' input planes
    /// (`[batch][planes][5][9]`); fills `policy` with the policy logits (`[batch][actions]`) and
    /// `wdl` with win/draw/loss probabilities for the side to move (`[batch][3]`).
    pub fn forward(
        &self,
        planes: &[f32],
        batch: usize,
        policy: &mut [f32],
        wdl: &mut [f32],
    ) -> Result<(), BatchError> {
        let check = |what, found: usize, per: usize| {
            let expected = batch.saturating_mul(per);
            if found == expected {
                Ok(())
            } else {
                Err(BatchError {
                    what,
                    expected,
                    found,
                })
            }
        };
        check("planes", planes.len(), self.input_len())?;
        check("policy", policy.len(), self.policy_size())?;
        check("wdl", wdl.len(), WDL_SIZE)?;
        let parts = if batch < 2 * MIN_POSITIONS_PER_THREAD {
            1
        } else {
            self.threads.min(batch / MIN_POSITIONS_PER_THREAD)
        };
        if parts <= 1 {
            self.forward_share(planes, batch, policy, wdl);
            return Ok(());
        }
        let per = batch.div_ceil(parts);
        rayon::scope(|scope| {
            let shares = planes
                .chunks(per * self.input_len())
                .zip(policy.chunks_mut(per * self.policy_size()))
                .zip(wdl.chunks_mut(per * WDL_SIZE));
            for ((planes, policy), wdl) in shares {
                let count = wdl.len() / WDL_SIZE;
                scope.spawn(move |_| self.forward_share(planes, count, policy, wdl));
            }
        });
        Ok(())
    }

    /// One thread's share of `count` positions: the tower and the heads' convolutions in
    /// passes of at most [`POSITIONS_PER_PASS`] positions, then the heads' linear layers over
    /// the whole share at once (so that their large weights are read once per share).
    fn forward_share(&self, planes: &[f32], count: usize, policy: &mut [f32], wdl: &mut [f32]) {
        let mut ws = self.take_workspace(count.min(POSITIONS_PER_PASS), count);
        let level = self.level;
        let per_pass = POSITIONS_PER_PASS * self.input_len();
        for (pass, planes) in planes
            .chunks(per_pass)
            .take(count.div_ceil(POSITIONS_PER_PASS))
            .enumerate()
        {
            let n = planes.len() / self.input_len();
            let first = pass * POSITIONS_PER_PASS;
            load_planes(self.planes, planes, &mut ws.input);
            let tower = Pass {
                level,
                int8: self.precision == Precision::Int8,
                positions: n,
            };
            tower.conv3(
                &self.stem,
                &ws.input,
                &mut ws.x,
                Skip::None,
                &mut ws.quantized,
            );
            for block in &self.blocks {
                tower.conv3(
                    &block.first,
                    &ws.x,
                    &mut ws.y,
                    Skip::None,
                    &mut ws.quantized,
                );
                if let Some(pool) = &block.global_pool {
                    pool.apply(n, &mut ws.y, &mut ws.scratch);
                }
                tower.conv3(
                    &block.second,
                    &ws.y,
                    &mut ws.x,
                    Skip::Residual,
                    &mut ws.quantized,
                );
            }
            let x = Input::F32(&ws.x);
            let at = self.policy_conv.output_len(first);
            self.policy_conv
                .run(level, n, x, &mut ws.policy_hidden[at..], Skip::None);
            let at = self.value_conv.output_len(first);
            self.value_conv
                .run(level, n, x, &mut ws.value_hidden[at..], Skip::None);
        }
        self.policy_fc.run(
            level,
            count,
            Input::F32(&ws.policy_hidden),
            policy,
            Skip::None,
        );
        self.value_fc1.run(
            level,
            count,
            Input::F32(&ws.value_hidden),
            &mut ws.value_fc1,
            Skip::None,
        );
        self.value_fc2.run(
            level,
            count,
            Input::F32(&ws.value_fc1),
            &mut ws.value_logits,
            Skip::None,
        );
        for (logits, probabilities) in ws
            .value_logits
            .chunks_exact(WDL_SIZE)
            .zip(wdl.chunks_exact_mut(WDL_SIZE))
        {
            softmax(logits, probabilities);
        }
        self.return_workspace(ws);
    }

    /// Buffers for passes of `tower` positions and heads of `heads` positions.
    fn take_workspace(&self, tower: usize, heads: usize) -> Workspace {
        let pooled = match self.workspaces.lock() {
            Ok(mut pool) => pool.pop(),
            Err(poisoned) => poisoned.into_inner().pop(),
        };
        let mut ws = pooled.unwrap_or_default();
        if ws.tower_positions < tower {
            // Fresh zeroed buffers: the borders of the bordered ones must read as zero, and no
            // layer ever writes them.
            let channels = self.stem.outputs();
            ws.tower_positions = tower;
            ws.input = vec![0.0; tower * PADDED_POINTS * self.planes];
            ws.x = vec![0.0; tower * PADDED_POINTS * channels];
            ws.y = vec![0.0; tower * PADDED_POINTS * channels];
            let widest = std::iter::once(&self.stem)
                .chain(self.blocks.iter().flat_map(|b| [&b.first, &b.second]))
                .filter_map(Layer::int8_channels)
                .max()
                .unwrap_or(0);
            ws.quantized = Quantized {
                bytes: vec![0; tower * PADDED_POINTS * widest],
                scales: vec![0.0; tower],
                channels: 0,
            };
        }
        if ws.head_positions < heads {
            ws.head_positions = heads;
            ws.policy_hidden = vec![0.0; self.policy_conv.output_len(heads)];
            ws.value_hidden = vec![0.0; self.value_conv.output_len(heads)];
            ws.value_fc1 = vec![0.0; self.value_fc1.output_len(heads)];
            ws.value_logits = vec![0.0; self.value_fc2.output_len(heads)];
        }
        ws
    }

    fn return_workspace(&self, ws: Workspace) {
        match self.workspaces.lock() {
            Ok(mut pool) => pool.push(ws),
            Err(poisoned) => poisoned.into_inner().push(ws),
        }
    }
}

/// One pass of the tower over a few positions.
struct Pass {
    level: SimdLevel,
    /// Whether the 3x3 convolutions run in 8 bits where they can.
    int8: bool,
    positions: usize,
}

impl Pass {
    /// Runs a 3x3 convolution on `input` (bordered positions of the layer's input channels)
    /// into `output`: through the 8-bit kernel when asked for and the input has no negative
    /// value, else in `f32`.
    fn conv3(
        &self,
        layer: &Layer,
        input: &[f32],
        output: &mut [f32],
        skip: Skip,
        buffer: &mut Quantized,
    ) {
        let Pass {
            level,
            int8,
            positions,
        } = *self;
        if let Some(padded) = layer.int8_channels().filter(|_| int8) {
            // Borders and padding channels must read as zero: a buffer last written in another
            // layout is cleared first (quantizing writes only the interior's channels).
            if buffer.channels != padded {
                buffer.bytes.fill(0);
                buffer.channels = padded;
            }
            let quantized = &mut buffer.bytes[..positions * PADDED_POINTS * padded];
            let scales = &mut buffer.scales[..positions];
            if quantize(layer.inputs(), padded, positions, input, quantized, scales) {
                let input = Input::U8 { quantized, scales };
                layer.run(level, positions, input, output, skip);
                return;
            }
        }
        layer.run(level, positions, Input::F32(input), output, skip);
    }
}

/// How the tower's 3x3 convolutions compute.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Precision {
    /// 32-bit floats throughout.
    #[default]
    F32,
    /// Activations quantized to 7 bits per position and weights to 8 bits per output channel,
    /// products summed exactly in integers (`crate::quant`); the heads stay in `f32`.
    Int8,
}

named_variants!(Precision, "precision", {
    F32 => "fp32",
    Int8 => "int8",
});

/// Softmax of three logits, stable for large ones.
fn softmax(logits: &[f32], out: &mut [f32]) {
    let max = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let mut sum = 0.0;
    for (o, &l) in out.iter_mut().zip(logits) {
        *o = (l - max).exp();
        sum += *o;
    }
    out.iter_mut().for_each(|o| *o /= sum);
}
