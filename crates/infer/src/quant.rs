//! The 8-bit path of the tower's 3x3 convolutions: activations as unsigned 7-bit integers
//! with one scale per position, weights as signed 8-bit integers with one scale per output
//! channel, products summed exactly in 32-bit integers.
//!
//! Why 7 bits and not 8: the AVX2 kernel multiplies with `vpmaddubsw`, which adds two
//! `u8 x i8` products into a saturating 16-bit lane. With activations at most 127 and weights
//! at most 127 in size the pair is at most 32,258 and never saturates, so every kernel here
//! (portable, AVX2, and a VNNI one later) computes the same integers, bit for bit: a test
//! compares them exactly.
//!
//! Only inputs that are never negative are quantized (the tower's activations follow a ReLU
//! and the input planes are 0/1); [`quantize`] says when a buffer holds a negative value (a
//! global pooling bias can add one) and the layer then runs in `f32`.
//!
//! The weight panel of a tile is `[K / 4][NR][4]`: for every group of four consecutive `k`,
//! the four weights of each of the sixteen output columns side by side, the layout both
//! `vpmaddubsw` (pairs) and `vpdpbusd` (quads) read.

use crate::kernel::{MR, NR, Rows, SimdLevel};
use crate::layer::padded_point;
use crate::{BOARD_POINTS, PADDED_POINTS};

/// Largest quantized activation (7 bits).
pub(crate) const ACTIVATION_MAX: f32 = 127.0;
/// Largest quantized weight in size.
const WEIGHT_MAX: f32 = 127.0;

/// A tile's exact sums: row `i`, column `j`.
pub type TileSums = [[i32; NR]; MR];

/// The left operand of an 8-bit tile: [`Rows`] over bytes, whose segment length is a
/// multiple of 4.
pub type RowsU8<'a> = Rows<'a, u8>;

/// Rows of the 8-bit tiles at `level` (the AVX-512 machines run the AVX2 kernel for now).
///
/// Four: the AVX2 kernel keeps two accumulators a row, the two weight registers, the ones and
/// two temporaries in the sixteen registers (six rows spilled to the stack).
pub fn tile_rows(_level: SimdLevel) -> usize {
    ROWS
}

const ROWS: usize = 4;

/// `out[i][j] = sum_k rows(i)[k] * panel(k, j)` in exact integers, for the tile's rows.
///
/// # Panics
///
/// If a row reaches outside `a`, the segment length is not a multiple of 4, the panel is
/// shorter than `K x NR` or the row count is not 1 to [`tile_rows`].
pub fn tile(level: SimdLevel, rows: RowsU8<'_>, panel: &[i8], out: &mut TileSums) {
    assert!(
        rows.segment_len.is_multiple_of(4) && rows.fits_in(tile_rows(level), panel.len()),
        "kernel operands out of bounds"
    );
    match level {
        #[cfg(target_arch = "x86_64")]
        SimdLevel::Avx512 | SimdLevel::Avx2 if has_avx2() => avx2::tile(rows, panel, out),
        _ => portable::tile(rows, panel, out),
    }
}

/// Whether the 8-bit kernel that runs here is faster than the float ones: the CPU has AVX2
/// and the kernel level in use ([`SimdLevel::detect`]: `FANORONA_SIMD`, `bench-net --simd`)
/// is not the portable one (the portable 8-bit kernel runs at about half the portable float
/// kernel's speed).
pub fn has_fast_kernel() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        has_avx2() && SimdLevel::detect() != SimdLevel::Portable
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

#[cfg(target_arch = "x86_64")]
fn has_avx2() -> bool {
    static AVX2: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *AVX2.get_or_init(|| std::is_x86_feature_detected!("avx2"))
}

macro_rules! by_row_count {
    ($kernel:ident, $rows:expr, $panel:expr, $out:expr) => {
        match $rows.bases.len() {
            1 => $kernel::<1>($rows, $panel, $out),
            2 => $kernel::<2>($rows, $panel, $out),
            3 => $kernel::<3>($rows, $panel, $out),
            _ => $kernel::<ROWS>($rows, $panel, $out),
        }
    };
}

mod portable {
    use super::{NR, ROWS, RowsU8, TileSums};

    pub(super) fn tile(rows: RowsU8<'_>, panel: &[i8], out: &mut TileSums) {
        by_row_count!(tile_rows, rows, panel, out)
    }

    fn tile_rows<const M: usize>(rows: RowsU8<'_>, panel: &[i8], out: &mut TileSums) {
        let mut acc = [[0i32; NR]; M];
        let mut quads = panel.chunks_exact(4 * NR);
        for &offset in rows.segments {
            for j in (0..rows.segment_len).step_by(4) {
                let w = quads.next().expect("the panel holds K x NR weights");
                for (acc_row, &base) in acc.iter_mut().zip(rows.bases) {
                    let x = &rows.a[base + offset + j..base + offset + j + 4];
                    for (c, w) in acc_row.iter_mut().zip(w.chunks_exact(4)) {
                        *c += x
                            .iter()
                            .zip(w)
                            .map(|(&x, &w)| i32::from(x) * i32::from(w))
                            .sum::<i32>();
                    }
                }
            }
        }
        out[..M].copy_from_slice(&acc);
    }
}

#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
mod avx2 {
    use super::{NR, ROWS, RowsU8, TileSums};
    use std::arch::x86_64::{
        __m256i, _mm256_add_epi32, _mm256_loadu_si256, _mm256_madd_epi16, _mm256_maddubs_epi16,
        _mm256_set1_epi16, _mm256_set1_epi32, _mm256_setzero_si256, _mm256_storeu_si256,
    };

    pub(super) fn tile(rows: RowsU8<'_>, panel: &[i8], out: &mut TileSums) {
        // SAFETY: the caller checked that the CPU has AVX2, and (`RowsU8::fits`) that every
        // row's segments lie inside `rows.a`, that segments are whole groups of four bytes,
        // that the panel holds `K x NR` weights and that there are 1 to 4 rows: every pointer
        // the kernel forms stays in bounds.
        unsafe { by_row_count!(tile_rows, rows, panel, out) }
    }

    /// # Safety
    ///
    /// The CPU has AVX2; `rows` has exactly `M` bases, each with every segment inside
    /// `rows.a`; the segment length is a multiple of 4; `panel` holds at least `K x NR`
    /// weights.
    #[target_feature(enable = "avx2")]
    unsafe fn tile_rows<const M: usize>(rows: RowsU8<'_>, panel: &[i8], out: &mut TileSums) {
        let ones = _mm256_set1_epi16(1);
        let mut lo: [__m256i; M] = [_mm256_setzero_si256(); M];
        let mut hi: [__m256i; M] = [_mm256_setzero_si256(); M];
        let a = rows.a.as_ptr();
        let mut b = panel.as_ptr();
        for &offset in rows.segments {
            // SAFETY (this block and the next): in bounds by the function's contract.
            let starts: [*const u8; M] =
                std::array::from_fn(|i| unsafe { a.add(rows.bases[i] + offset) });
            for j in (0..rows.segment_len).step_by(4) {
                unsafe {
                    // Columns 0-7 and 8-15, four weights (four k) each.
                    let w_lo = _mm256_loadu_si256(b.cast::<__m256i>());
                    let w_hi = _mm256_loadu_si256(b.add(32).cast::<__m256i>());
                    b = b.add(4 * NR);
                    for i in 0..M {
                        let quad = starts[i].add(j).cast::<i32>().read_unaligned();
                        let x = _mm256_set1_epi32(quad);
                        // u8 x i8 pairs into i16 (never saturating: see the module's docs),
                        // then pairs of those into i32: four products per column.
                        let p_lo = _mm256_madd_epi16(_mm256_maddubs_epi16(x, w_lo), ones);
                        let p_hi = _mm256_madd_epi16(_mm256_maddubs_epi16(x, w_hi), ones);
                        lo[i] = _mm256_add_epi32(lo[i], p_lo);
                        hi[i] = _mm256_add_epi32(hi[i], p_hi);
                    }
                }
            }
        }
        for i in 0..M {
            // SAFETY: `out[i]` holds NR = 16 integers.
            unsafe {
                _mm256_storeu_si256(out[i].as_mut_ptr().cast::<__m256i>(), lo[i]);
                _mm256_storeu_si256(out[i].as_mut_ptr().add(8).cast::<__m256i>(), hi[i]);
            }
        }
    }
}

/// A weight matrix `[K][N]` quantized per output column and repacked as `ceil(N / NR)` panels
/// of `[K / 4][NR][4]` (the last padded with zero columns).
#[derive(Clone)]
pub(crate) struct PackedI8 {
    depth: usize,
    outputs: usize,
    panels: Vec<i8>,
    /// Per output column: the weight a quantized 1 stands for.
    scales: Vec<f32>,
}

impl std::fmt::Debug for PackedI8 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "PackedI8({} x {})", self.depth, self.outputs)
    }
}

impl PackedI8 {
    /// Quantizes and packs `b(k, n)` for `k < depth` (a multiple of 4), `n < outputs`.
    pub(crate) fn new(depth: usize, outputs: usize, b: impl Fn(usize, usize) -> f32) -> Self {
        assert!(
            depth.is_multiple_of(4),
            "8-bit panels take whole groups of four k"
        );
        let scales: Vec<f32> = (0..outputs)
            .map(|n| (0..depth).map(|k| b(k, n).abs()).fold(0.0, f32::max) / WEIGHT_MAX)
            .collect();
        let count = outputs.div_ceil(NR);
        let mut panels = vec![0i8; count * depth * NR];
        for (p, panel) in panels.chunks_exact_mut(depth * NR).enumerate() {
            for (quad, group) in panel.chunks_exact_mut(4 * NR).enumerate() {
                for (j, column) in group.chunks_exact_mut(4).enumerate() {
                    let n = p * NR + j;
                    if n >= outputs || scales[n] == 0.0 {
                        continue;
                    }
                    for (d, w) in column.iter_mut().enumerate() {
                        let q = (b(4 * quad + d, n) / scales[n]).round();
                        *w = q.clamp(-WEIGHT_MAX, WEIGHT_MAX) as i8;
                    }
                }
            }
        }
        PackedI8 {
            depth,
            outputs,
            panels,
            scales,
        }
    }

    pub(crate) fn panel(&self, p: usize) -> &[i8] {
        &self.panels[p * self.depth * NR..(p + 1) * self.depth * NR]
    }

    pub(crate) fn scales(&self) -> &[f32] {
        &self.scales
    }
}

/// Quantizes the interior of `positions` bordered channel-innermost buffers of `channels`
/// channels (`x`) into bordered buffers of `padded` channels (`q`, whose borders and padding
/// channels are left as they are: zero), one scale per position (`scales[p]`: what a
/// quantized 1 stands for). Returns `false`, with `q` unspecified, when `x` holds a negative
/// value: the layer must then run in `f32`.
pub(crate) fn quantize(
    channels: usize,
    padded: usize,
    positions: usize,
    x: &[f32],
    q: &mut [u8],
    scales: &mut [f32],
) -> bool {
    for ((source, target), scale) in x
        .chunks_exact(PADDED_POINTS * channels)
        .zip(q.chunks_exact_mut(PADDED_POINTS * padded))
        .zip(scales.iter_mut())
        .take(positions)
    {
        let (largest, smallest, probe) = (0..BOARD_POINTS)
            .map(|point| {
                let at = padded_point(point) * channels;
                extremes(&source[at..at + channels])
            })
            .fold((0.0f32, 0.0f32, 0.0f32), |(l, s, p), (a, b, c)| {
                (l.max(a), s.min(b), p + c)
            });
        if smallest < 0.0 || probe != 0.0 {
            return false;
        }
        *scale = largest / ACTIVATION_MAX;
        let inverse = if largest > 0.0 {
            ACTIVATION_MAX / largest
        } else {
            0.0
        };
        for point in 0..BOARD_POINTS {
            let from = padded_point(point) * channels;
            let to = padded_point(point) * padded;
            for (t, &v) in target[to..to + channels]
                .iter_mut()
                .zip(&source[from..from + channels])
            {
                *t = to_level(v * inverse + 0.5);
            }
        }
    }
    true
}

/// The largest and smallest of `values` (with 0) and a probe that is 0 unless one of them is
/// NaN or infinite (a sum of `v * 0`).
///
/// Eight lanes side by side, so that the compiler vectorises it (a single running maximum
/// or sum is a chain it must keep in order).
fn extremes(values: &[f32]) -> (f32, f32, f32) {
    let mut largest = [0.0f32; 8];
    let mut smallest = [0.0f32; 8];
    let mut probe = [0.0f32; 8];
    let chunks = values.chunks_exact(8);
    let rest = chunks.remainder();
    for chunk in chunks {
        for lane in 0..8 {
            let v = chunk[lane];
            largest[lane] = if v > largest[lane] { v } else { largest[lane] };
            smallest[lane] = if v < smallest[lane] {
                v
            } else {
                smallest[lane]
            };
            probe[lane] += v * 0.0;
        }
    }
    for (lane, &v) in rest.iter().enumerate() {
        largest[lane] = if v > largest[lane] { v } else { largest[lane] };
        smallest[lane] = if v < smallest[lane] {
            v
        } else {
            smallest[lane]
        };
        probe[lane] += v * 0.0;
    }
    (
        largest.iter().fold(0.0, |a, &b| if b > a { b } else { a }),
        smallest.iter().fold(0.0, |a, &b| if b < a { b } else { a }),
        probe.iter().sum(),
    )
}

/// The integer part of `x`, for `0 <= x < 128.5`.
#[allow(unsafe_code)]
#[inline(always)]
fn to_level(x: f32) -> u8 {
    debug_assert!((0.0..128.5).contains(&x));
    // SAFETY: `quantize` passes `v * inverse + 0.5` with `0 <= v <= largest` finite and
    // `inverse = 127 / largest` (or 0): at most 127.5 plus rounding, inside `i32` and not NaN,
    // which is all the unchecked conversion asks (the plain `as` keeps the loop scalar).
    let level = unsafe { x.to_int_unchecked::<i32>() };
    level.min(127) as u8
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reference(rows: RowsU8<'_>, b: &dyn Fn(usize, usize) -> i32) -> TileSums {
        let mut out = [[0; NR]; MR];
        for (i, out) in out.iter_mut().enumerate().take(rows.bases.len()) {
            for (k, &x) in rows.row(i).enumerate() {
                for (n, o) in out.iter_mut().enumerate() {
                    *o += i32::from(x) * b(k, n);
                }
            }
        }
        out
    }

    #[test]
    fn every_level_and_row_count_gives_the_reference_integers() {
        // The extremes included: 127 x -127 everywhere would saturate a careless kernel.
        let a: Vec<u8> = (0..600)
            .map(|i| {
                if i % 11 == 0 {
                    127
                } else {
                    (i * 37 % 128) as u8
                }
            })
            .collect();
        let segments = [0, 40, 124];
        let len = 16;
        let depth = segments.len() * len;
        let weight = |k: usize, n: usize| -> f32 {
            if (k + n).is_multiple_of(7) {
                -127.0
            } else {
                ((k * 53 + n * 29) % 255) as f32 - 127.0
            }
        };
        let packed = PackedI8::new(depth, NR + 3, weight);
        for p in 0..2 {
            // The scale of every full column is 1: the quantized weights are the weights.
            let exact = |k: usize, n: usize| {
                let n = p * NR + n;
                if n < NR + 3 { weight(k, n) as i32 } else { 0 }
            };
            for level in SimdLevel::available() {
                for count in 1..=tile_rows(level) {
                    let bases: Vec<usize> = (0..count).map(|i| 9 * i + 5).collect();
                    let rows = RowsU8 {
                        a: &a,
                        bases: &bases,
                        segments: &segments,
                        segment_len: len,
                    };
                    let mut out = [[i32::MIN; NR]; MR];
                    tile(level, rows, packed.panel(p), &mut out);
                    let expected = reference(rows, &exact);
                    assert_eq!(out[..count], expected[..count], "{level} rows {count}");
                }
            }
        }
    }

    #[test]
    fn weights_are_quantized_per_column_within_half_a_step() {
        let weight = |k: usize, n: usize| ((k * 7 + n * 3) % 13) as f32 * (n as f32 + 0.5) - 3.0;
        let packed = PackedI8::new(8, 5, weight);
        for n in 0..5 {
            let scale = packed.scales()[n];
            for k in 0..8 {
                let q = packed.panel(0)[(k / 4) * 4 * NR + n * 4 + k % 4];
                let d = (f32::from(q) * scale - weight(k, n)).abs();
                assert!(d <= scale / 2.0 + 1e-6, "k {k} n {n}: off by {d}");
            }
        }
    }

    #[test]
    fn activations_are_quantized_per_position_and_negatives_refused() {
        let channels = 3;
        let padded = 4;
        let mut x = vec![0.0f32; 2 * PADDED_POINTS * channels];
        let at = |position: usize, point: usize, c: usize| {
            (position * PADDED_POINTS + padded_point(point)) * channels + c
        };
        x[at(0, 0, 0)] = 2.0;
        x[at(0, 44, 2)] = 1.0;
        x[at(1, 7, 1)] = 0.5;
        let mut q = vec![0u8; 2 * PADDED_POINTS * padded];
        let mut scales = [0.0f32; 2];
        assert!(quantize(channels, padded, 2, &x, &mut q, &mut scales));
        assert_eq!(scales, [2.0 / 127.0, 0.5 / 127.0]);
        let qat = |position: usize, point: usize, c: usize| {
            q[(position * PADDED_POINTS + padded_point(point)) * padded + c]
        };
        assert_eq!(qat(0, 0, 0), 127);
        assert_eq!(qat(0, 44, 2), 64);
        assert_eq!(qat(1, 7, 1), 127);
        assert_eq!(q.iter().map(|&v| u32::from(v)).sum::<u32>(), 127 + 64 + 127);
        x[at(1, 3, 0)] = -0.25;
        assert!(!quantize(channels, padded, 2, &x, &mut q, &mut scales));
    }
}
