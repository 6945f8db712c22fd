//! The integer path: the weights quantised once, at load, and a forward pass in `i16`/`i32`.
//!
//! - **First layer**: the accumulator starts at the quantised biases and adds the column of
//!   every input that is on (at most 44 stones, or the 84 lines of three), in `i16` (the weight
//!   bounds of each input set keep the sum exact);
//!   then clipped to `0..=QA`.
//! - **Second layer**: `i16 x i16` products summed in `i32` (one `pmaddwd` per 8 or 16 pairs),
//!   shifted back to the activation scale and clipped.
//! - **Output**: the same, scaled to centi-stones.
//!
//! Scales: activations `QA = 511` per unit, first-layer weights and biases `QA`, second- and
//! third-layer weights `QB = 1024`, their biases `QA * QB`. The weight bounds of
//! [`crate::EvalWeights::check`] keep every sum inside its integer type.
//!
//! The same code is compiled three times: portable, with AVX2 and with AVX-512 (BW) enabled,
//! and [`SimdLevel::detect`] (the native network's dispatch) picks at run time (fixed sizes let the
//! compiler vectorise the loops for each). The second layer of the AVX2 and AVX-512 copies is
//! written with AVX2 intrinsics, eight rows at a time (2.5x the compiler's row-by-row version
//! for 128x32). Tests run every level the CPU has, check that all give the same integers, and
//! compare them with the float forward pass.

use fanorona_engine::Position;

use crate::features::{Inputs, LINE_TRIPLES, MAX_ACTIVE, active, active_lines_occupied};
use crate::weights::{CENTISTONES_PER_UNIT, EvalError, EvalWeights, Shape};

/// Activation scale: 1.0 is `QA`.
const QA: i32 = 511;
/// Scale of the second and third layers' weights.
const QB: i32 = 1024;
/// `log2(QB)`.
const QB_SHIFT: u32 = 10;

/// Which compiled copy of the forward pass runs: the network's native path's levels
/// (`fanorona_infer::SimdLevel`), picked by the same run-time dispatch (the widest this CPU
/// has, or the one `FANORONA_SIMD` or `bench-net --simd` names).
pub use fanorona_infer::SimdLevel;

/// Whether this CPU runs the integer forward pass at `level` (AVX-512 also needs its byte and
/// word instructions, which every AVX-512 CPU but the Xeon Phi has).
fn runs(level: SimdLevel) -> bool {
    match level {
        #[cfg(target_arch = "x86_64")]
        SimdLevel::Avx512 => {
            level.is_available() && std::arch::is_x86_feature_detected!("avx512bw")
        }
        _ => level.is_available(),
    }
}

/// The evaluation, ready for the search: quantised weights and the SIMD level that runs them.
/// Cheap to clone the `Arc` it is usually kept in; evaluating needs no lock.
#[derive(Clone, Debug)]
pub struct EvalNet {
    weights: EvalWeights,
    level: SimdLevel,
    l1: Vec<i16>,
    b1: Vec<i16>,
    l2: Vec<i16>,
    b2: Vec<i32>,
    l3: Vec<i16>,
    b3: i32,
}

fn quantise(values: &[f32], scale: i32) -> Vec<i16> {
    values
        .iter()
        .map(|v| (v * scale as f32).round() as i16)
        .collect()
}

impl EvalNet {
    /// Quantises `weights` (checked first) for the SIMD level [`SimdLevel::detect`] picks
    /// (the next narrower one where the integer pass cannot run at it).
    pub fn new(weights: EvalWeights) -> Result<EvalNet, EvalError> {
        const WIDEST_FIRST: [SimdLevel; 3] =
            [SimdLevel::Avx512, SimdLevel::Avx2, SimdLevel::Portable];
        let rank = |level| WIDEST_FIRST.iter().position(|&l| l == level);
        let detected = rank(SimdLevel::detect());
        let level = Self::levels()
            .into_iter()
            .find(|&l| rank(l) >= detected)
            .unwrap_or(SimdLevel::Portable);
        Self::with_level(weights, level)
    }

    /// Every level this CPU runs the integer forward pass at, widest first (the portable one
    /// always last).
    pub fn levels() -> Vec<SimdLevel> {
        SimdLevel::available()
            .into_iter()
            .filter(|&l| runs(l))
            .collect()
    }

    /// Like [`EvalNet::new`] at `level`, which must be one this CPU has.
    pub fn with_level(weights: EvalWeights, level: SimdLevel) -> Result<EvalNet, EvalError> {
        weights.check().map_err(|detail| EvalError::Shape {
            path: "weights".into(),
            detail,
        })?;
        if !runs(level) {
            return Err(EvalError::Shape {
                path: "weights".into(),
                detail: format!("this CPU cannot run the {} kernels", level.name()),
            });
        }
        let scale2 = (QA * QB) as f32;
        let (mut l1, mut b1) = (quantise(&weights.l1, QA), quantise(&weights.b1, QA));
        if weights.shape.inputs == Inputs::Lines {
            fold_empty_lines(&mut l1, &mut b1);
        }
        Ok(EvalNet {
            l1,
            b1,
            l2: quantise(&weights.l2, QB),
            b2: weights
                .b2
                .iter()
                .map(|b| (b * scale2).round() as i32)
                .collect(),
            l3: quantise(&weights.l3, QB),
            b3: (weights.b3 * scale2).round() as i32,
            level,
            weights,
        })
    }

    /// The float weights it was made from.
    pub fn weights(&self) -> &EvalWeights {
        &self.weights
    }

    /// The hidden sizes.
    pub fn shape(&self) -> Shape {
        self.weights.shape
    }

    /// The SIMD level in use.
    pub fn level(&self) -> SimdLevel {
        self.level
    }

    /// The evaluation of a turn-start position for the side to move, in centi-stones.
    #[inline]
    pub fn evaluate(&self, pos: &Position) -> i32 {
        let mut on = [0u16; MAX_ACTIVE];
        let n = match self.weights.shape.inputs {
            Inputs::Stones => active(pos, &mut on),
            Inputs::Lines => active_lines_occupied(pos, &mut on),
        };
        let raw = self.forward(&on[..n]);
        // raw is in units of 1 / (QA * QB) stones.
        let scale = (QA * QB) as f32 / CENTISTONES_PER_UNIT;
        (raw as f32 / scale).round() as i32
    }

    /// The integer forward pass over the features that are on, in `1 / (QA * QB)` stones.
    fn forward(&self, on: &[u16]) -> i32 {
        macro_rules! shapes {
            ($level:ident; $(($h1:literal, $h2:literal)),*) => {
                match (self.shape().hidden1, self.shape().hidden2) {
                    $(($h1, $h2) => $level::<$h1, $h2>(self, on),)*
                    _ => 0,
                }
            };
        }
        macro_rules! at_level {
            ($level:ident) => {
                shapes!($level; (32, 8), (32, 16), (32, 32), (64, 8), (64, 16), (64, 32),
                    (128, 8), (128, 16), (128, 32), (256, 8), (256, 16), (256, 32))
            };
        }
        match self.level {
            SimdLevel::Portable => at_level!(portable),
            #[cfg(target_arch = "x86_64")]
            SimdLevel::Avx2 => at_level!(avx2),
            #[cfg(target_arch = "x86_64")]
            SimdLevel::Avx512 => at_level!(avx512),
            #[cfg(not(target_arch = "x86_64"))]
            _ => at_level!(portable),
        }
    }
}

/// Folds each line's empty column into the biases: every line holds exactly one of its 27
/// contents, so subtracting the empty content's column from all 27 and adding it to the
/// biases changes no sum, and an empty line then adds nothing (the search skips it). The
/// arithmetic wraps in `i16`: a biased column or bias may leave the `i16` range, but every
/// whole sum is the same integer modulo 2^16 as before, and the weight bounds keep that sum
/// inside the range, so the wrapped result is exact.
fn fold_empty_lines(l1: &mut [i16], b1: &mut [i16]) {
    let h1 = b1.len();
    for t in 0..LINE_TRIPLES {
        let block = &mut l1[27 * t * h1..27 * (t + 1) * h1];
        let (empty, rest) = block.split_at_mut(h1);
        for column in rest.chunks_exact_mut(h1) {
            for (w, e) in column.iter_mut().zip(empty.iter()) {
                *w = w.wrapping_sub(*e);
            }
        }
        for (b, e) in b1.iter_mut().zip(empty.iter_mut()) {
            *b = b.wrapping_add(*e);
            *e = 0;
        }
    }
}

/// The first layer for a fixed shape: the biases plus the column of every input that is on,
/// clipped to the activation range.
#[inline(always)]
fn first_layer<const H1: usize>(net: &EvalNet, on: &[u16]) -> [i16; H1] {
    let mut acc = [0i16; H1];
    acc.copy_from_slice(&net.b1[..H1]);
    let last = net.l1.len() / H1 - 1;
    for &f in on {
        let f = usize::from(f).min(last);
        let column = &net.l1[f * H1..(f + 1) * H1];
        for (a, w) in acc.iter_mut().zip(column) {
            *a = a.wrapping_add(*w);
        }
    }
    for a in &mut acc {
        *a = (*a).clamp(0, QA as i16);
    }
    acc
}

/// The second layer, one row after another (the compiler vectorises each row's dot product).
#[inline(always)]
fn second_layer<const H1: usize, const H2: usize>(net: &EvalNet, a1: &[i16; H1]) -> [i32; H2] {
    let mut a2 = [0i32; H2];
    for (j, out) in a2.iter_mut().enumerate() {
        let row = &net.l2[j * H1..(j + 1) * H1];
        let mut sum = 0i32;
        for (x, w) in a1.iter().zip(row) {
            sum += i32::from(*x) * i32::from(*w);
        }
        // Rounded, not floored, back to the activation scale.
        *out = ((sum + net.b2[j] + (QB >> 1)) >> QB_SHIFT).clamp(0, QA);
    }
    a2
}

/// The output, in `1 / (QA * QB)` stones.
#[inline(always)]
fn output<const H2: usize>(net: &EvalNet, a2: &[i32; H2]) -> i32 {
    let mut out = net.b3;
    for (x, w) in a2.iter().zip(&net.l3[..H2]) {
        out += x * i32::from(*w);
    }
    out
}

fn portable<const H1: usize, const H2: usize>(net: &EvalNet, on: &[u16]) -> i32 {
    let a1 = first_layer::<H1>(net, on);
    output::<H2>(net, &second_layer::<H1, H2>(net, &a1))
}

/// The second layer with AVX2, eight rows at a time: `vpmaddwd` sums the products of 16 pairs
/// into 8 lanes per row, and a tree of horizontal adds gathers the eight rows' sums into one
/// vector, so that the rounding, shift and clip run eight outputs at once. The same integers
/// as [`second_layer`] (the weight bounds keep every sum inside `i32`, where the order of
/// additions does not matter). Row by row, the compiler's version spent most of the
/// evaluation reducing each row's vector to one number.
#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
#[target_feature(enable = "avx2")]
fn second_layer_avx2<const H1: usize, const H2: usize>(net: &EvalNet, a1: &[i16; H1]) -> [i32; H2] {
    use std::arch::x86_64::{
        __m256i, _mm256_add_epi32, _mm256_hadd_epi32, _mm256_loadu_si256, _mm256_madd_epi16,
        _mm256_max_epi32, _mm256_min_epi32, _mm256_permute2x128_si256, _mm256_set1_epi32,
        _mm256_setzero_si256, _mm256_srai_epi32, _mm256_storeu_si256,
    };
    const { assert!(H1.is_multiple_of(16) && H2.is_multiple_of(8)) };
    let weights = &net.l2[..H1 * H2];
    let biases = &net.b2[..H2];
    let mut a2 = [0i32; H2];
    // SAFETY: every load reads 32 bytes from a subslice of exactly that length (16 `i16` or
    // 8 `i32`, taken with bounds checks) and the store writes 32 bytes into such a subslice of
    // `a2`; unaligned loads and stores need no alignment.
    unsafe {
        let load = |values: &[i16]| _mm256_loadu_si256(values.as_ptr().cast::<__m256i>());
        let half = _mm256_set1_epi32(QB >> 1);
        let (zero, top) = (_mm256_setzero_si256(), _mm256_set1_epi32(QA));
        for group in 0..H2 / 8 {
            let mut sums = [_mm256_setzero_si256(); 8];
            for chunk in 0..H1 / 16 {
                let x = load(&a1[chunk * 16..chunk * 16 + 16]);
                for (r, sum) in sums.iter_mut().enumerate() {
                    let at = (group * 8 + r) * H1 + chunk * 16;
                    *sum =
                        _mm256_add_epi32(*sum, _mm256_madd_epi16(x, load(&weights[at..at + 16])));
                }
            }
            // Per 128-bit half: [r0, r1, r2, r3] partial sums of the group's first four rows,
            // then of the last four; the two halves added give the eight rows' sums.
            let s01 = _mm256_hadd_epi32(sums[0], sums[1]);
            let s23 = _mm256_hadd_epi32(sums[2], sums[3]);
            let s45 = _mm256_hadd_epi32(sums[4], sums[5]);
            let s67 = _mm256_hadd_epi32(sums[6], sums[7]);
            let s0123 = _mm256_hadd_epi32(s01, s23);
            let s4567 = _mm256_hadd_epi32(s45, s67);
            let rows = _mm256_add_epi32(
                _mm256_permute2x128_si256::<0x20>(s0123, s4567),
                _mm256_permute2x128_si256::<0x31>(s0123, s4567),
            );
            let bias = _mm256_loadu_si256(biases[group * 8..group * 8 + 8].as_ptr().cast());
            let scaled = _mm256_srai_epi32::<{ QB_SHIFT as i32 }>(_mm256_add_epi32(
                _mm256_add_epi32(rows, bias),
                half,
            ));
            let clipped = _mm256_min_epi32(_mm256_max_epi32(scaled, zero), top);
            _mm256_storeu_si256(
                a2[group * 8..group * 8 + 8].as_mut_ptr().cast::<__m256i>(),
                clipped,
            );
        }
    }
    a2
}

#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
fn avx2<const H1: usize, const H2: usize>(net: &EvalNet, on: &[u16]) -> i32 {
    #[target_feature(enable = "avx2")]
    fn run<const H1: usize, const H2: usize>(net: &EvalNet, on: &[u16]) -> i32 {
        let a1 = first_layer::<H1>(net, on);
        output::<H2>(net, &second_layer_avx2::<H1, H2>(net, &a1))
    }
    // SAFETY: an `EvalNet` at this level is only made when the CPU has AVX2
    // (`EvalNet::with_level` checks `runs`).
    unsafe { run::<H1, H2>(net, on) }
}

#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
fn avx512<const H1: usize, const H2: usize>(net: &EvalNet, on: &[u16]) -> i32 {
    #[target_feature(enable = "avx512f,avx512bw")]
    fn run<const H1: usize, const H2: usize>(net: &EvalNet, on: &[u16]) -> i32 {
        // The first layer's columns compiled for 512-bit registers; the second layer is the
        // AVX2 one (AVX-512F implies AVX2), tested on every AVX2 machine.
        let a1 = first_layer::<H1>(net, on);
        output::<H2>(net, &second_layer_avx2::<H1, H2>(net, &a1))
    }
    // SAFETY: an `EvalNet` at this level is only made when the CPU has AVX-512F and BW.
    unsafe { run::<H1, H2>(net, on) }
}
