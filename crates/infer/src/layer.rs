//! Layers with their weights repacked for the kernel, and the loop that runs one over a batch.

use crate::kernel::{self, MR, NR, Rows, SimdLevel, TileOut};
use crate::quant::{self, PackedI8, RowsU8, TileSums};
use crate::weights::{ConvWeights, LinearWeights};
use crate::{BOARD_COLS, BOARD_POINTS, PADDED_COLS, PADDED_POINTS};

/// A weight matrix `[K][N]` repacked as `ceil(N / NR)` panels of `[K][NR]`, the last one
/// padded with zero columns, and its bias.
#[derive(Clone)]
pub(crate) struct Packed {
    depth: usize,
    outputs: usize,
    panels: Vec<f32>,
    bias: Vec<f32>,
}

impl std::fmt::Debug for Packed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Packed({} x {})", self.depth, self.outputs)
    }
}

impl Packed {
    /// Packs `b(k, n)` for `k < depth`, `n < outputs`.
    fn new(depth: usize, outputs: usize, bias: &[f32], b: impl Fn(usize, usize) -> f32) -> Self {
        let count = outputs.div_ceil(NR);
        let mut panels = vec![0.0; count * depth * NR];
        for (p, panel) in panels.chunks_exact_mut(depth * NR).enumerate() {
            for (k, row) in panel.chunks_exact_mut(NR).enumerate() {
                for (j, w) in row.iter_mut().enumerate() {
                    let n = p * NR + j;
                    if n < outputs {
                        *w = b(k, n);
                    }
                }
            }
        }
        Packed {
            depth,
            outputs,
            panels,
            bias: bias.to_vec(),
        }
    }

    pub(crate) fn outputs(&self) -> usize {
        self.outputs
    }

    fn panel(&self, p: usize) -> &[f32] {
        &self.panels[p * self.depth * NR..(p + 1) * self.depth * NR]
    }

    fn panel_count(&self) -> usize {
        self.outputs.div_ceil(NR)
    }
}

/// How a layer's rows (board points or positions) map to its input and output buffers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Addressing {
    /// A 3x3 convolution from a zero-bordered buffer into another one's interior.
    Conv3,
    /// A 1x1 convolution from a zero-bordered buffer into a dense `[point][outputs]` one.
    Conv1,
    /// A linear layer, dense `[position][inputs]` into dense `[position][outputs]`.
    Linear,
}

/// A layer ready to run: packed weights, where its rows come from, what follows the product.
#[derive(Clone, Debug)]
pub(crate) struct Layer {
    packed: Packed,
    addressing: Addressing,
    inputs: usize,
    segments: Vec<usize>,
    segment_len: usize,
    relu: bool,
    /// The 8-bit form of a 3x3 convolution's weights ([`crate::quant`]).
    int8: Option<Int8>,
}

/// A 3x3 convolution's weights quantized to 8 bits, over inputs padded to a multiple of four
/// channels.
#[derive(Clone, Debug)]
struct Int8 {
    packed: PackedI8,
    padded: usize,
    segments: Vec<usize>,
}

/// A layer's input: floats, or quantized activations with one scale per position.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Input<'a> {
    /// `f32` activations.
    F32(&'a [f32]),
    /// 7-bit activations (`quantized`) and what a 1 stands for in each position (`scales`).
    U8 {
        quantized: &'a [u8],
        scales: &'a [f32],
    },
}

/// What the layer adds to its product before the optional ReLU.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Skip {
    /// Only the bias.
    None,
    /// The bias and the value already in the output buffer (the residual connection, written
    /// in place).
    Residual,
}

/// Where point `point` (0..45) of a position sits in the zero-bordered 7x11 board.
pub(crate) fn padded_point(point: usize) -> usize {
    (point / BOARD_COLS + 1) * PADDED_COLS + point % BOARD_COLS + 1
}

impl Layer {
    /// A 3x3 convolution over channel-innermost bordered activations.
    pub(crate) fn conv3(w: &ConvWeights, relu: bool) -> Layer {
        let (cin, cout) = (w.inputs, w.outputs);
        // k = window row * 3 * cin + window column * cin + input channel, as the kernel reads
        // the window: three runs of 3 * cin floats.
        let weight = |k: usize, n: usize, c: usize| {
            let (dr, rest) = (k / (3 * c), k % (3 * c));
            let (dc, ci) = (rest / c, rest % c);
            if ci < cin {
                w.weight[((n * cin + ci) * 3 + dr) * 3 + dc]
            } else {
                0.0
            }
        };
        let packed = Packed::new(9 * cin, cout, &w.bias, |k, n| weight(k, n, cin));
        let padded = cin.div_ceil(4) * 4;
        Layer {
            packed,
            addressing: Addressing::Conv3,
            inputs: cin,
            segments: (0..3).map(|dr| dr * PADDED_COLS * cin).collect(),
            segment_len: 3 * cin,
            relu,
            int8: Some(Int8 {
                packed: PackedI8::new(9 * padded, cout, |k, n| weight(k, n, padded)),
                padded,
                segments: (0..3).map(|dr| dr * PADDED_COLS * padded).collect(),
            }),
        }
    }

    /// Channels of the quantized input this layer reads (its inputs rounded up to a multiple
    /// of four), if it has an 8-bit form.
    pub(crate) fn int8_channels(&self) -> Option<usize> {
        self.int8.as_ref().map(|q| q.padded)
    }

    /// Input channels.
    pub(crate) fn inputs(&self) -> usize {
        self.inputs
    }

    /// A 1x1 convolution into a dense `[point][outputs]` buffer.
    pub(crate) fn conv1(w: &ConvWeights, relu: bool) -> Layer {
        let (cin, cout) = (w.inputs, w.outputs);
        let packed = Packed::new(cin, cout, &w.bias, |k, n| w.weight[n * cin + k]);
        Layer {
            packed,
            addressing: Addressing::Conv1,
            inputs: cin,
            segments: vec![0],
            segment_len: cin,
            relu,
            int8: None,
        }
    }

    /// A linear layer. With `flattened_channels = Some(c)` its input is a head's 1x1
    /// convolution output, which the framework flattens channel-major (`channel * 45 + point`)
    /// and this crate keeps point-major (`point * c + channel`): the rows are reordered here.
    pub(crate) fn linear(
        w: &LinearWeights,
        flattened_channels: Option<usize>,
        relu: bool,
    ) -> Layer {
        let (cin, cout) = (w.inputs, w.outputs);
        let packed = Packed::new(cin, cout, &w.bias, |k, n| {
            let row = match flattened_channels {
                Some(c) => (k % c) * BOARD_POINTS + k / c,
                None => k,
            };
            w.weight[row * cout + n]
        });
        Layer {
            packed,
            addressing: Addressing::Linear,
            inputs: cin,
            segments: vec![0],
            segment_len: cin,
            relu,
            int8: None,
        }
    }

    pub(crate) fn outputs(&self) -> usize {
        self.packed.outputs()
    }

    /// Rows of the layer for `positions` positions.
    fn row_count(&self, positions: usize) -> usize {
        match self.addressing {
            Addressing::Conv3 | Addressing::Conv1 => positions * BOARD_POINTS,
            Addressing::Linear => positions,
        }
    }

    /// Where row `row`'s input starts (in an input of `inputs` channels) and its output goes.
    fn row_addresses(&self, row: usize, inputs: usize) -> (usize, usize) {
        let out = self.outputs();
        match self.addressing {
            Addressing::Conv3 => {
                let (position, point) = (row / BOARD_POINTS, row % BOARD_POINTS);
                // The window's top-left corner is the point itself in bordered coordinates
                // shifted up and left by one.
                let corner = position * PADDED_POINTS + padded_point(point) - PADDED_COLS - 1;
                let target = position * PADDED_POINTS + padded_point(point);
                (corner * inputs, target * out)
            }
            Addressing::Conv1 => {
                let (position, point) = (row / BOARD_POINTS, row % BOARD_POINTS);
                let source = position * PADDED_POINTS + padded_point(point);
                (source * inputs, row * out)
            }
            Addressing::Linear => (row * inputs, row * out),
        }
    }

    /// Floats the layer's output buffer needs for `positions` positions.
    pub(crate) fn output_len(&self, positions: usize) -> usize {
        match self.addressing {
            Addressing::Conv3 => positions * PADDED_POINTS * self.outputs(),
            Addressing::Conv1 | Addressing::Linear => self.row_count(positions) * self.outputs(),
        }
    }

    /// Runs the layer over `positions` positions: reads `input`, writes `output` (for a 3x3
    /// convolution only the board's interior, so borders stay zero).
    ///
    /// Convolutions walk the rows (board points) in tiles and apply every weight panel to a
    /// tile while its inputs are in L1; a linear layer has few rows and large weights (the
    /// policy layer's are 1.5 MB), so it walks the panels and applies each to every row.
    ///
    /// A quantized input runs the 8-bit kernel (a layer without an 8-bit form must be given
    /// floats).
    pub(crate) fn run(
        &self,
        level: SimdLevel,
        positions: usize,
        input: Input<'_>,
        output: &mut [f32],
        skip: Skip,
    ) {
        let rows = self.row_count(positions);
        let per_tile = match input {
            Input::F32(_) => level.tile_rows(),
            Input::U8 { .. } => quant::tile_rows(level),
        };
        let tiles = (0..rows)
            .step_by(per_tile)
            .map(|first| first..(first + per_tile).min(rows));
        let panels = 0..self.packed.panel_count();
        if self.addressing == Addressing::Linear {
            for p in panels {
                for tile in tiles.clone() {
                    self.run_tile(level, tile, p, input, output, skip);
                }
            }
        } else {
            for tile in tiles {
                for p in panels.clone() {
                    self.run_tile(level, tile.clone(), p, input, output, skip);
                }
            }
        }
    }

    /// Rows `rows` (at most the level's tile rows, [`MR`] at most) times panel `p`, with
    /// bias, skip and ReLU, into `output`.
    fn run_tile(
        &self,
        level: SimdLevel,
        rows: std::ops::Range<usize>,
        p: usize,
        input: Input<'_>,
        output: &mut [f32],
        skip: Skip,
    ) {
        let count = rows.len();
        let first = rows.start;
        let mut bases = [0usize; MR];
        let mut targets = [0usize; MR];
        let channels = match (input, &self.int8) {
            (Input::U8 { .. }, Some(q)) => q.padded,
            _ => self.inputs,
        };
        for (i, row) in rows.enumerate() {
            (bases[i], targets[i]) = self.row_addresses(row, channels);
        }
        let mut tile_out: TileOut = [[0.0; NR]; MR];
        match (input, &self.int8) {
            (Input::F32(a), _) => {
                let operand = Rows {
                    a,
                    bases: &bases[..count],
                    segments: &self.segments,
                    segment_len: self.segment_len,
                };
                kernel::tile(level, operand, self.packed.panel(p), &mut tile_out);
            }
            (Input::U8 { quantized, scales }, Some(q)) => {
                let operand = RowsU8 {
                    a: quantized,
                    bases: &bases[..count],
                    segments: &q.segments,
                    segment_len: 3 * q.padded,
                };
                let mut sums: TileSums = [[0; NR]; MR];
                quant::tile(level, operand, q.packed.panel(p), &mut sums);
                let weight_scales = &q.packed.scales()[p * NR..];
                for (i, (out, sums)) in tile_out.iter_mut().zip(&sums).take(count).enumerate() {
                    let scale = scales[(first + i) / BOARD_POINTS];
                    for ((o, &s), &w) in out.iter_mut().zip(sums).zip(weight_scales) {
                        *o = s as f32 * (scale * w);
                    }
                }
            }
            (Input::U8 { .. }, None) => {
                unreachable!("only 3x3 convolutions are given 8-bit inputs")
            }
        }
        let columns = p * NR..((p + 1) * NR).min(self.outputs());
        let bias = &self.packed.bias[columns.clone()];
        for (acc, &target) in tile_out.iter().zip(&targets[..count]) {
            let out = &mut output[target + columns.start..target + columns.end];
            for ((o, &a), &b) in out.iter_mut().zip(acc.iter()).zip(bias) {
                let mut v = a + b;
                if skip == Skip::Residual {
                    v += *o;
                }
                *o = if self.relu { v.max(0.0) } else { v };
            }
        }
    }
}

/// The global pooling bias of a residual block, applied in place to the interior of a
/// bordered buffer of `channels` channels.
#[derive(Clone)]
pub(crate) struct GlobalPool {
    channels: usize,
    /// `[2 * channels][channels]`.
    weight: Vec<f32>,
    bias: Vec<f32>,
}

impl std::fmt::Debug for GlobalPool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "GlobalPool({} channels)", self.channels)
    }
}

impl GlobalPool {
    pub(crate) fn new(w: &LinearWeights) -> GlobalPool {
        GlobalPool {
            channels: w.outputs,
            weight: w.weight.clone(),
            bias: w.bias.clone(),
        }
    }

    /// Adds each position's bias (from the mean and max of every channel over the board) to
    /// every point of that position. `scratch` is reused between calls.
    pub(crate) fn apply(&self, positions: usize, x: &mut [f32], scratch: &mut Vec<f32>) {
        let c = self.channels;
        scratch.resize(3 * c, 0.0);
        let (pooled, added) = scratch.split_at_mut(2 * c);
        for position in x.chunks_exact_mut(PADDED_POINTS * c).take(positions) {
            let (mean, max) = pooled.split_at_mut(c);
            mean.fill(0.0);
            max.fill(f32::NEG_INFINITY);
            for point in 0..BOARD_POINTS {
                let at = padded_point(point) * c;
                for ((s, m), &v) in mean
                    .iter_mut()
                    .zip(max.iter_mut())
                    .zip(&position[at..at + c])
                {
                    *s += v;
                    *m = m.max(v);
                }
            }
            mean.iter_mut().for_each(|s| *s /= BOARD_POINTS as f32);
            added.copy_from_slice(&self.bias);
            for (k, &p) in pooled.iter().enumerate() {
                for (a, &w) in added.iter_mut().zip(&self.weight[k * c..(k + 1) * c]) {
                    *a += p * w;
                }
            }
            for point in 0..BOARD_POINTS {
                let at = padded_point(point) * c;
                for (v, &a) in position[at..at + c].iter_mut().zip(added.iter()) {
                    *v += a;
                }
            }
        }
    }
}

/// Copies channel-major input planes (`[positions][planes][5][9]`) into the interior of a
/// bordered channel-innermost buffer (`[positions][7][11][planes]`).
pub(crate) fn load_planes(count: usize, input: &[f32], out: &mut [f32]) {
    let per_position = count * BOARD_POINTS;
    for (source, target) in input
        .chunks_exact(per_position)
        .zip(out.chunks_exact_mut(PADDED_POINTS * count))
    {
        for point in 0..BOARD_POINTS {
            let at = padded_point(point) * count;
            for (plane, t) in target[at..at + count].iter_mut().enumerate() {
                *t = source[plane * BOARD_POINTS + point];
            }
        }
    }
}
