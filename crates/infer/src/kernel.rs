//! The one inner kernel every layer runs: a tile of up to [`MR`] output rows by [`NR`] output
//! columns, accumulated over `K = segments x segment_len` products.
//!
//! Row `i` of the left operand is not a stored row but a list of segments, each `segment_len`
//! contiguous floats starting at `bases[i] + offset` for each offset in `segments`. That is how
//! a 3x3 convolution reads its input in place: over channel-innermost activations of the
//! zero-bordered 7x11 board, the 3x3 window of a point is three runs of `3 * channels` floats
//! (one per window row), so no im2col copy is made. A 1x1 convolution or a linear layer is the
//! one-segment case. The right operand is a weight panel repacked at load as `[K][NR]`.
//!
//! Three implementations share that contract and are tested against each other and against a
//! plain reference: AVX-512 (tiles of 12 rows, one 16-lane accumulator a row, weights loaded
//! once per `k` and each input broadcast), AVX2 with FMA (tiles of 6 rows, two 8-lane
//! accumulators a row), and a portable one that the compiler vectorises for whatever the
//! target has. [`SimdLevel::detect`] picks at run time (the best the CPU has, or the one
//! [`prefer`] or the `FANORONA_SIMD` environment variable names).

/// The environment variable that picks the SIMD level of every kernel.
pub const SIMD_ENV: &str = "FANORONA_SIMD";

/// Most rows of a tile (the AVX-512 kernel's; [`SimdLevel::tile_rows`] is each level's).
pub const MR: usize = 12;
/// Columns of a tile (and of a repacked weight panel).
pub const NR: usize = 16;

/// The kernels this build has, best first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SimdLevel {
    /// 512-bit AVX-512 (AVX-512F: Intel server CPUs since 2017, AMD since Zen 4).
    Avx512,
    /// 256-bit AVX2 with fused multiply-add (x86-64 CPUs since about 2013).
    Avx2,
    /// Plain Rust, vectorised by the compiler for the build's target (SSE2 on x86-64, NEON on
    /// aarch64): every machine.
    Portable,
}

impl SimdLevel {
    /// The level to run: the one [`prefer`] set, else the one the `FANORONA_SIMD`
    /// environment variable names (`avx512`, `avx2` or `portable`), when this CPU runs it;
    /// else the best this CPU runs.
    pub fn detect() -> SimdLevel {
        if let Some(level) = preferred().filter(|l| l.is_available()) {
            return level;
        }
        if let Ok(Some(level)) = SimdLevel::from_env() {
            return level;
        }
        SimdLevel::available()[0]
    }

    /// The level `FANORONA_SIMD` names: `None` when it is unset or empty, an error naming the
    /// variable when its value is not a level or names one this CPU does not run (programs
    /// check it up front, so that a bad value is not silently ignored).
    pub fn from_env() -> Result<Option<SimdLevel>, String> {
        let Some(value) = std::env::var_os(SIMD_ENV) else {
            return Ok(None);
        };
        let value = value.to_string_lossy();
        let value = value.trim();
        if value.is_empty() {
            return Ok(None);
        }
        let level: SimdLevel = value.parse().map_err(|_| {
            format!("{SIMD_ENV}={value}: not a SIMD level (avx512, avx2 or portable)")
        })?;
        let available = SimdLevel::available();
        if !available.contains(&level) {
            let names: Vec<&str> = available.iter().map(|l| l.name()).collect();
            return Err(format!(
                "{SIMD_ENV}={level}: this CPU does not run it (it runs {})",
                names.join(", ")
            ));
        }
        Ok(Some(level))
    }

    /// Every level this CPU runs, best first (the portable one always last).
    pub fn available() -> Vec<SimdLevel> {
        let mut levels = Vec::new();
        #[cfg(target_arch = "x86_64")]
        {
            if std::is_x86_feature_detected!("avx512f") {
                levels.push(SimdLevel::Avx512);
            }
            if std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("fma") {
                levels.push(SimdLevel::Avx2);
            }
        }
        levels.push(SimdLevel::Portable);
        levels
    }

    /// Rows of the tiles this level's kernel takes (1 to [`MR`]).
    pub fn tile_rows(self) -> usize {
        match self {
            SimdLevel::Avx512 => 12,
            SimdLevel::Avx2 | SimdLevel::Portable => 6,
        }
    }

    /// Whether this CPU runs the level.
    pub fn is_available(self) -> bool {
        SimdLevel::available().contains(&self)
    }
}

named_variants!(SimdLevel, "SIMD level", {
    Avx512 => "avx512",
    Avx2 => "avx2",
    Portable => "portable",
});

/// The level [`SimdLevel::detect`] returns from now on, for the whole process (`None`: back
/// to the environment variable or the best): `bench-net --simd` sets it. A level this CPU
/// does not run is ignored.
pub fn prefer(level: Option<SimdLevel>) {
    let code = match level {
        None => 0,
        Some(SimdLevel::Avx512) => 1,
        Some(SimdLevel::Avx2) => 2,
        Some(SimdLevel::Portable) => 3,
    };
    PREFERRED.store(code, std::sync::atomic::Ordering::Relaxed);
}

static PREFERRED: std::sync::atomic::AtomicU8 = std::sync::atomic::AtomicU8::new(0);

fn preferred() -> Option<SimdLevel> {
    match PREFERRED.load(std::sync::atomic::Ordering::Relaxed) {
        1 => Some(SimdLevel::Avx512),
        2 => Some(SimdLevel::Avx2),
        3 => Some(SimdLevel::Portable),
        _ => None,
    }
}

/// A tile's result: row `i`, column `j` of the tile.
pub type TileOut = [[f32; NR]; MR];

/// The left operand of a tile: `bases.len()` rows (1 to [`MR`]) read as segments of `a`
/// (floats here, quantized bytes in [`crate::quant`]).
#[derive(Clone, Copy, Debug)]
pub struct Rows<'a, T = f32> {
    /// The activations the rows are read from.
    pub a: &'a [T],
    /// Where each row starts in `a`.
    pub bases: &'a [usize],
    /// Offsets of the segments from a row's start, ascending.
    pub segments: &'a [usize],
    /// Values per segment.
    pub segment_len: usize,
}

impl<'a, T> Rows<'a, T> {
    /// Products per output (`K`).
    pub fn depth(&self) -> usize {
        self.segments.len() * self.segment_len
    }

    /// Row `i`'s `K` values in order (its segments one after the other): the plain reading
    /// the kernels are tested against.
    pub fn row(&self, i: usize) -> impl Iterator<Item = &'a T> + '_ {
        let base = self.bases[i];
        self.segments
            .iter()
            .flat_map(move |&offset| &self.a[base + offset..base + offset + self.segment_len])
    }

    /// Whether there are 1 to `most_rows` rows, every row's every segment lies inside `a`
    /// and a panel of `panel_len` values holds `K x NR`. Checked before every kernel call: the
    /// fast kernels index without checks.
    pub(crate) fn fits_in(&self, most_rows: usize, panel_len: usize) -> bool {
        let rows = self.bases.len();
        let reach = self
            .segments
            .last()
            .map_or(0, |&last| last + self.segment_len);
        let ascending = self.segments.windows(2).all(|w| w[0] <= w[1]);
        (1..=most_rows).contains(&rows)
            && ascending
            && self
                .bases
                .iter()
                .all(|&b| b.checked_add(reach).is_some_and(|end| end <= self.a.len()))
            && panel_len >= self.depth() * NR
    }
}

/// `out[i][j] = sum_k rows(i)[k] * panel[k][j]` for the tile's rows.
///
/// # Panics
///
/// If a row reaches outside `a`, the panel is shorter than `K x NR` or the row count is not 1
/// to the level's [`SimdLevel::tile_rows`] (callers size their tiles so that this never
/// happens). A level this CPU does not run falls back to the portable kernel.
pub fn tile(level: SimdLevel, rows: Rows<'_>, panel: &[f32], out: &mut TileOut) {
    assert!(
        rows.fits_in(level.tile_rows(), panel.len()),
        "kernel operands out of bounds"
    );
    match level {
        #[cfg(target_arch = "x86_64")]
        SimdLevel::Avx512 if SimdLevel::Avx512.is_available_cached() => {
            avx512::tile(rows, panel, out)
        }
        #[cfg(target_arch = "x86_64")]
        SimdLevel::Avx2 if SimdLevel::Avx2.is_available_cached() => avx2::tile(rows, panel, out),
        _ => portable::tile(rows, panel, out),
    }
}

impl SimdLevel {
    /// [`SimdLevel::is_available`] without the allocation, for the hot path.
    #[cfg(target_arch = "x86_64")]
    fn is_available_cached(self) -> bool {
        use std::sync::OnceLock;
        static AVX2: OnceLock<bool> = OnceLock::new();
        static AVX512: OnceLock<bool> = OnceLock::new();
        match self {
            SimdLevel::Avx512 => *AVX512.get_or_init(|| std::is_x86_feature_detected!("avx512f")),
            SimdLevel::Avx2 => *AVX2.get_or_init(|| {
                std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("fma")
            }),
            SimdLevel::Portable => true,
        }
    }
}

/// Calls `$kernel::<M>` with `M` the tile's row count (1 to 6), so that each count gets a
/// kernel with its accumulators in registers.
macro_rules! by_row_count {
    ($kernel:ident, $rows:expr, $panel:expr, $out:expr) => {
        match $rows.bases.len() {
            1 => $kernel::<1>($rows, $panel, $out),
            2 => $kernel::<2>($rows, $panel, $out),
            3 => $kernel::<3>($rows, $panel, $out),
            4 => $kernel::<4>($rows, $panel, $out),
            5 => $kernel::<5>($rows, $panel, $out),
            _ => $kernel::<6>($rows, $panel, $out),
        }
    };
}

mod portable {
    use super::{NR, Rows, TileOut};

    pub(super) fn fma_chains(rounds: usize) -> (f64, f32) {
        let mut acc = [[0.0f32; NR]; 6];
        let (x, y) = (
            std::hint::black_box(1.000_01f32),
            std::hint::black_box(0.999_99f32),
        );
        for _ in 0..rounds {
            for row in acc.iter_mut() {
                for a in row.iter_mut() {
                    *a = *a * x + y;
                }
            }
        }
        let flops = (2 * 6 * NR * rounds) as f64;
        (flops, acc.iter().flatten().sum())
    }

    pub(super) fn tile(rows: Rows<'_>, panel: &[f32], out: &mut TileOut) {
        by_row_count!(tile_rows, rows, panel, out)
    }

    fn tile_rows<const M: usize>(rows: Rows<'_>, panel: &[f32], out: &mut TileOut) {
        let mut acc = [[0.0f32; NR]; M];
        let len = rows.segment_len;
        let mut k = 0;
        for &offset in rows.segments {
            let starts: [usize; M] = std::array::from_fn(|i| rows.bases[i] + offset);
            for j in 0..len {
                let b: &[f32; NR] = panel[(k + j) * NR..(k + j + 1) * NR]
                    .try_into()
                    .expect("NR floats");
                for (acc_row, &start) in acc.iter_mut().zip(&starts) {
                    let x = rows.a[start + j];
                    for (c, &w) in acc_row.iter_mut().zip(b) {
                        *c += x * w;
                    }
                }
            }
            k += len;
        }
        out[..M].copy_from_slice(&acc);
    }
}

#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
mod avx2 {
    use super::{NR, Rows, TileOut};
    use std::arch::x86_64::{
        __m256, _mm256_add_ps, _mm256_broadcast_ss, _mm256_fmadd_ps, _mm256_loadu_ps,
        _mm256_set1_ps, _mm256_setzero_ps, _mm256_storeu_ps,
    };

    pub(super) fn fma_chains(rounds: usize) -> (f64, f32) {
        // SAFETY: called only when the CPU has AVX2 and FMA; no memory is touched.
        unsafe { chains(rounds) }
    }

    /// # Safety
    ///
    /// The CPU has AVX2 and FMA.
    #[target_feature(enable = "avx2,fma")]
    unsafe fn chains(rounds: usize) -> (f64, f32) {
        // As many independent chains as the kernel keeps accumulators.
        let mut acc = [_mm256_setzero_ps(); 12];
        let x = _mm256_set1_ps(std::hint::black_box(1.000_01));
        let y = _mm256_set1_ps(std::hint::black_box(0.999_99));
        for _ in 0..rounds {
            for a in acc.iter_mut() {
                *a = _mm256_fmadd_ps(x, y, *a);
            }
        }
        let mut sum = _mm256_setzero_ps();
        for a in acc {
            sum = _mm256_add_ps(sum, a);
        }
        let mut lanes = [0.0f32; 8];
        // SAFETY: `lanes` holds 8 floats.
        unsafe { _mm256_storeu_ps(lanes.as_mut_ptr(), sum) };
        ((2 * 8 * 12 * rounds) as f64, lanes.iter().sum())
    }

    pub(super) fn tile(rows: Rows<'_>, panel: &[f32], out: &mut TileOut) {
        // SAFETY: the caller checked that the CPU has AVX2 and FMA, and (`Rows::fits`) that
        // every row's segments lie inside `rows.a`, that the panel holds `K x NR` floats and
        // that there are 1 to MR rows: every pointer the kernel forms stays in bounds.
        unsafe { by_row_count!(tile_rows, rows, panel, out) }
    }

    /// # Safety
    ///
    /// The CPU has AVX2 and FMA; `rows` has exactly `M` bases, each with every segment inside
    /// `rows.a`; `panel` holds at least `K x NR` floats.
    #[target_feature(enable = "avx2,fma")]
    unsafe fn tile_rows<const M: usize>(rows: Rows<'_>, panel: &[f32], out: &mut TileOut) {
        let mut lo: [__m256; M] = [_mm256_setzero_ps(); M];
        let mut hi: [__m256; M] = [_mm256_setzero_ps(); M];
        let a = rows.a.as_ptr();
        let mut b = panel.as_ptr();
        for &offset in rows.segments {
            // SAFETY (this block and the next): in bounds by the function's contract.
            let starts: [*const f32; M] =
                std::array::from_fn(|i| unsafe { a.add(rows.bases[i] + offset) });
            for j in 0..rows.segment_len {
                unsafe {
                    let b_lo = _mm256_loadu_ps(b);
                    let b_hi = _mm256_loadu_ps(b.add(8));
                    b = b.add(NR);
                    for i in 0..M {
                        let x = _mm256_broadcast_ss(&*starts[i].add(j));
                        lo[i] = _mm256_fmadd_ps(x, b_lo, lo[i]);
                        hi[i] = _mm256_fmadd_ps(x, b_hi, hi[i]);
                    }
                }
            }
        }
        for i in 0..M {
            // SAFETY: `out[i]` holds NR = 16 floats.
            unsafe {
                _mm256_storeu_ps(out[i].as_mut_ptr(), lo[i]);
                _mm256_storeu_ps(out[i].as_mut_ptr().add(8), hi[i]);
            }
        }
    }
}

#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
mod avx512 {
    use super::{NR, Rows, TileOut};
    use std::arch::x86_64::{
        __m512, _mm512_add_ps, _mm512_fmadd_ps, _mm512_loadu_ps, _mm512_reduce_add_ps,
        _mm512_set1_ps, _mm512_setzero_ps, _mm512_storeu_ps,
    };

    pub(super) fn fma_chains(rounds: usize) -> (f64, f32) {
        // SAFETY: called only when the CPU has AVX-512F; no memory is touched.
        unsafe { chains(rounds) }
    }

    /// # Safety
    ///
    /// The CPU has AVX-512F.
    #[target_feature(enable = "avx512f")]
    unsafe fn chains(rounds: usize) -> (f64, f32) {
        // As many independent chains as the kernel keeps accumulators.
        let mut acc = [_mm512_setzero_ps(); 12];
        let x = _mm512_set1_ps(std::hint::black_box(1.000_01));
        let y = _mm512_set1_ps(std::hint::black_box(0.999_99));
        for _ in 0..rounds {
            for a in acc.iter_mut() {
                *a = _mm512_fmadd_ps(x, y, *a);
            }
        }
        let mut sum = _mm512_setzero_ps();
        for a in acc {
            sum = _mm512_add_ps(sum, a);
        }
        ((2 * 16 * 12 * rounds) as f64, _mm512_reduce_add_ps(sum))
    }

    pub(super) fn tile(rows: Rows<'_>, panel: &[f32], out: &mut TileOut) {
        // SAFETY: the caller checked that the CPU has AVX-512F, and (`Rows::fits`) that every
        // row's segments lie inside `rows.a`, that the panel holds `K x NR` floats and that
        // there are 1 to 12 rows: every pointer the kernel forms stays in bounds.
        unsafe {
            match rows.bases.len() {
                1 => tile_rows::<1>(rows, panel, out),
                2 => tile_rows::<2>(rows, panel, out),
                3 => tile_rows::<3>(rows, panel, out),
                4 => tile_rows::<4>(rows, panel, out),
                5 => tile_rows::<5>(rows, panel, out),
                6 => tile_rows::<6>(rows, panel, out),
                7 => tile_rows::<7>(rows, panel, out),
                8 => tile_rows::<8>(rows, panel, out),
                9 => tile_rows::<9>(rows, panel, out),
                10 => tile_rows::<10>(rows, panel, out),
                11 => tile_rows::<11>(rows, panel, out),
                _ => tile_rows::<12>(rows, panel, out),
            }
        }
    }

    /// # Safety
    ///
    /// The CPU has AVX-512F; `rows` has exactly `M` bases, each with every segment inside
    /// `rows.a`; `panel` holds at least `K x NR` floats.
    #[target_feature(enable = "avx512f")]
    unsafe fn tile_rows<const M: usize>(rows: Rows<'_>, panel: &[f32], out: &mut TileOut) {
        // One 16-lane accumulator per row: NR = 16 is one register.
        let mut acc: [__m512; M] = [_mm512_setzero_ps(); M];
        let a = rows.a.as_ptr();
        let mut b = panel.as_ptr();
        for &offset in rows.segments {
            // SAFETY (this block and the next): in bounds by the function's contract.
            let starts: [*const f32; M] =
                std::array::from_fn(|i| unsafe { a.add(rows.bases[i] + offset) });
            for j in 0..rows.segment_len {
                unsafe {
                    let w = _mm512_loadu_ps(b);
                    b = b.add(NR);
                    for i in 0..M {
                        let x = _mm512_set1_ps(*starts[i].add(j));
                        acc[i] = _mm512_fmadd_ps(x, w, acc[i]);
                    }
                }
            }
        }
        for i in 0..M {
            // SAFETY: `out[i]` holds NR = 16 floats.
            unsafe { _mm512_storeu_ps(out[i].as_mut_ptr(), acc[i]) };
        }
    }
}

/// Estimates the machine's fp32 peak in GFLOP/s on `level`'s units: `threads` threads at once
/// each run register-only chains of fused multiply-adds for about `seconds`. On shared or
/// virtual machines this is what the cores deliver now, not what the data sheet says (two
/// hyperthreads of one core share one set of FMA units).
pub fn measure_peak_gflops(level: SimdLevel, threads: usize, seconds: f64) -> f64 {
    let budget = std::time::Duration::from_secs_f64(seconds.clamp(0.01, 60.0));
    let results: Vec<f64> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads.max(1))
            .map(|_| {
                scope.spawn(move || {
                    let start = std::time::Instant::now();
                    let mut flops = 0.0;
                    let mut sink = 0.0f32;
                    while start.elapsed() < budget {
                        let (work, value) = fma_chains(level, 1 << 20);
                        flops += work;
                        sink += value;
                    }
                    std::hint::black_box(sink);
                    flops / start.elapsed().as_secs_f64() / 1e9
                })
            })
            .collect();
        workers
            .into_iter()
            .map(|w| w.join().unwrap_or(0.0))
            .collect()
    });
    results.iter().sum()
}

/// Runs `rounds` rounds of independent multiply-add chains; returns (FLOPs done, a value to
/// keep the work from being optimised away).
fn fma_chains(level: SimdLevel, rounds: usize) -> (f64, f32) {
    match level {
        #[cfg(target_arch = "x86_64")]
        SimdLevel::Avx512 if SimdLevel::Avx512.is_available_cached() => avx512::fma_chains(rounds),
        #[cfg(target_arch = "x86_64")]
        SimdLevel::Avx2 if SimdLevel::Avx2.is_available_cached() => avx2::fma_chains(rounds),
        _ => portable::fma_chains(rounds),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reference(rows: Rows<'_>, panel: &[f32]) -> TileOut {
        let mut out = [[0.0; NR]; MR];
        for (i, out) in out.iter_mut().enumerate().take(rows.bases.len()) {
            for (k, &x) in rows.row(i).enumerate() {
                for (n, o) in out.iter_mut().enumerate() {
                    *o += x * panel[k * NR + n];
                }
            }
        }
        out
    }

    #[test]
    fn every_level_and_row_count_matches_the_reference() {
        let a: Vec<f32> = (0..500)
            .map(|i| ((i * 37 % 101) as f32 - 50.0) / 17.0)
            .collect();
        let segments = [0, 40, 120];
        let len = 13;
        let panel: Vec<f32> = (0..segments.len() * len * NR)
            .map(|i| ((i * 53 % 97) as f32 - 48.0) / 31.0)
            .collect();
        for level in SimdLevel::available() {
            for count in 1..=level.tile_rows() {
                let bases: Vec<usize> = (0..count).map(|i| 7 * i + 3).collect();
                let rows = Rows {
                    a: &a,
                    bases: &bases,
                    segments: &segments,
                    segment_len: len,
                };
                let mut out = [[f32::NAN; NR]; MR];
                tile(level, rows, &panel, &mut out);
                let expected = reference(rows, &panel);
                for i in 0..count {
                    for n in 0..NR {
                        let d = (out[i][n] - expected[i][n]).abs();
                        assert!(d < 1e-4, "{level} rows {count}: [{i}][{n}] off by {d}");
                    }
                }
            }
        }
    }

    #[test]
    #[should_panic(expected = "out of bounds")]
    fn a_row_reaching_past_its_input_is_refused() {
        let a = vec![1.0; 10];
        let panel = vec![1.0; 8 * NR];
        let rows = Rows {
            a: &a,
            bases: &[3],
            segments: &[0],
            segment_len: 8,
        };
        tile(SimdLevel::detect(), rows, &panel, &mut [[0.0; NR]; MR]);
    }

    #[test]
    fn levels_parse_and_portable_is_always_there() {
        assert_eq!(*SimdLevel::available().last().unwrap(), SimdLevel::Portable);
        assert_eq!("avx2".parse::<SimdLevel>(), Ok(SimdLevel::Avx2));
        assert_eq!("avx512".parse::<SimdLevel>(), Ok(SimdLevel::Avx512));
        for level in SimdLevel::available() {
            assert!((1..=MR).contains(&level.tile_rows()), "{level}");
        }
        assert!("sse9".parse::<SimdLevel>().is_err());
    }
}
