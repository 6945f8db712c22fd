//! `fanorona bench-net`: how fast the network evaluates and trains on this machine.

use crate::output::say;
use std::path::PathBuf;

use anyhow::Result;
use clap::Args;
use fanorona_infer::{Precision, SimdLevel};
use fanorona_net::bench::{
    bench_evaluator, bench_forward, bench_forward_on, bench_train, bench_train_on,
};
use fanorona_net::{Backend, NetConfig};

fn names(levels: &[SimdLevel]) -> String {
    levels
        .iter()
        .map(|l| l.name())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Arguments of `fanorona bench-net`.
#[derive(Args, Debug)]
pub struct BenchNetArgs {
    /// Measure the network this training config trains (its `[model]` section). Without it,
    /// the default network (the one `configs/default.toml` trains).
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Residual blocks (overrides the config's).
    #[arg(long)]
    pub blocks: Option<usize>,
    /// Channels per convolution (overrides the config's).
    #[arg(long)]
    pub channels: Option<usize>,
    /// Seconds per measurement.
    #[arg(long, default_value_t = 3.0)]
    pub seconds: f64,
    /// Training batch size, 1 to 65,536.
    #[arg(long, default_value_t = 256,
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=65_536))]
    pub train_batch: usize,
    /// Measure the native path on this SIMD level only (`avx512`, `avx2` or `portable`);
    /// without it, every level this CPU runs is measured side by side. The environment
    /// variable `FANORONA_SIMD` picks the level the same way for every other command.
    #[arg(long, value_name = "LEVEL")]
    pub simd: Option<fanorona_infer::SimdLevel>,
    /// Also measure burn on this device (`wgpu` or `cuda`, in a build with that feature):
    /// forward passes at batch 256 and 1024 and training at `--train-batch`, after the CPU's
    /// figures.
    #[arg(long, value_name = "DEVICE")]
    pub device: Option<String>,
    /// Measure the native path in this precision only (`fp32`, or `int8`: the tower's
    /// convolutions in 8 bits); without it, both. Elsewhere `--backend int8` (or `backend =
    /// "int8"`, `backend=int8` in a player spec) runs the network in 8 bits.
    #[arg(long, value_name = "PRECISION")]
    pub precision: Option<fanorona_infer::Precision>,
    /// Instead of speed: how far the int8 network is from the fp32 one on this many positions
    /// of real games (policy top-1 agreement, value differences), 1 to 1,000,000; needs
    /// `--model`.
    #[arg(long, value_name = "POSITIONS", requires = "model",
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=1_000_000))]
    pub agreement: Option<usize>,
    /// The exported model `--agreement` compares (`fanorona export`).
    #[arg(long, value_name = "FILE")]
    pub model: Option<PathBuf>,
    /// Seed of the games `--agreement` takes its positions from.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

/// Run `fanorona bench-net`.
pub fn run(args: &BenchNetArgs) -> Result<()> {
    if let (Some(count), Some(model)) = (args.agreement, &args.model) {
        // Both precisions are compared, on the level asked for (or the best).
        anyhow::ensure!(
            args.precision.is_none(),
            "--precision: --agreement compares the two precisions; leave it out"
        );
        fanorona_infer::kernel::prefer(Some(levels_to_measure(args.simd)?[0]));
        return super::agreement::run(model, count, args.seed);
    }
    let cfg = network(args)?;
    anyhow::ensure!(
        args.seconds > 0.0 && args.seconds <= 600.0,
        "--seconds must be in (0, 600]"
    );
    // A device the build cannot use is refused before anything is measured.
    let device = match &args.device {
        Some(name) => Some((
            name.as_str(),
            fanorona_net::device_by_name(name).map_err(|e| anyhow::anyhow!("--device: {e}"))?,
        )),
        None => None,
    };
    let levels = levels_to_measure(args.simd)?;
    say!(
        "network {} (global pooling every {}), {:.1} MFLOP per evaluation",
        cfg.tower(),
        cfg.global_pool_every,
        cfg.flops_per_eval() / 1e6
    )?;
    let peak = report_peaks(args.seconds.min(2.0))?;
    let precisions = match args.precision {
        Some(precision) => vec![precision],
        None => vec![Precision::F32, Precision::Int8],
    };
    // The full path on the level measured first (the best, or the one asked for) in the
    // default backend's precision when it was measured (else the one asked for).
    fanorona_infer::kernel::prefer(Some(levels[0]));
    let full_precision = Backend::default()
        .precision()
        .filter(|p| precisions.contains(p))
        .unwrap_or(precisions[0]);
    let native64 = forward_rates(
        &cfg,
        &levels,
        &precisions,
        full_precision,
        peak,
        args.seconds,
    )?;
    fanorona_infer::kernel::prefer(Some(levels[0]));
    let full = bench_evaluator(&cfg, 64, args.seconds, backend_of(full_precision))?;
    let kept = native64.map_or(0.0, |raw| full.evals_per_sec / raw * 100.0);
    say!(
        "full evaluation path at batch 64, native {} {} (encode + forward + legal-move softmax): {:.0} evals/s, {kept:.0}% of the raw forward pass",
        levels[0],
        full_precision,
        full.evals_per_sec
    )?;
    let samples = bench_train(&cfg, args.train_batch, args.seconds);
    say!(
        "training at batch {}: {samples:.0} samples/s",
        args.train_batch
    )?;
    if let Some((name, device)) = device {
        for batch in [256, 1024] {
            let gpu = bench_forward_on(&cfg, batch, args.seconds, &device);
            say!(
                "{name} batch {batch}: burn {:.0} evals/s, {:.1} GFLOP/s",
                gpu.evals_per_sec,
                gpu.gflops
            )?;
        }
        let samples = bench_train_on(&cfg, args.train_batch, args.seconds, &device);
        say!(
            "{name} training at batch {}: {samples:.0} samples/s",
            args.train_batch
        )?;
    }
    Ok(())
}

/// The native backend of `precision`.
fn backend_of(precision: Precision) -> Backend {
    match precision {
        Precision::F32 => Backend::Native,
        Precision::Int8 => Backend::Int8,
    }
}

/// The network measured: the config's (or the default), with the flags' overrides, checked.
fn network(args: &BenchNetArgs) -> Result<NetConfig> {
    let mut cfg = match &args.config {
        Some(path) => fanorona_train::TrainConfig::load(path)?.model,
        None => NetConfig::default(),
    };
    if let Some(blocks) = args.blocks {
        cfg = cfg.with_blocks(blocks);
    }
    if let Some(channels) = args.channels {
        cfg = cfg.with_channels(channels);
    }
    cfg.validate()
        .map_err(|e| anyhow::anyhow!("network shape: {e}"))?;
    Ok(cfg)
}

/// The SIMD levels whose native path is measured: the one asked for, or every one this CPU
/// runs (best first).
fn levels_to_measure(asked: Option<SimdLevel>) -> Result<Vec<SimdLevel>> {
    let available = SimdLevel::available();
    match asked {
        Some(level) if !available.contains(&level) => anyhow::bail!(
            "--simd {level}: this CPU does not run it (it runs {})",
            names(&available)
        ),
        Some(level) => Ok(vec![level]),
        None => Ok(available),
    }
}

/// Measures and prints the fp32 peak of every level this CPU runs; returns the widest one's,
/// which every path's share is given against.
fn report_peaks(seconds: f64) -> Result<f64> {
    let threads = fanorona_infer::pool_threads();
    let available = SimdLevel::available();
    let peaks: Vec<(SimdLevel, f64)> = available
        .iter()
        .map(|&level| {
            let peak = fanorona_infer::kernel::measure_peak_gflops(level, threads, seconds);
            (level, peak)
        })
        .collect();
    let peak_list: Vec<String> = peaks
        .iter()
        .map(|(level, gflops)| format!("{level} {gflops:.0}"))
        .collect();
    say!(
        "CPU: {threads} threads; SIMD levels {} (the default: {}); measured fp32 peak, all threads at once, GFLOP/s: {}",
        names(&available),
        SimdLevel::detect(),
        peak_list.join(", ")
    )?;
    let (widest, peak) = peaks[0];
    say!(
        "each path's GFLOP/s below is against the widest level's peak ({widest}, {peak:.0} GFLOP/s)"
    )?;
    Ok(peak)
}

/// One line per batch size: burn's forward pass, then the native path on each of `levels` in
/// each of `precisions`, with their share of `peak` (an int8 pass counted at the float
/// network's FLOPs). Returns the rate of the first level in `full` precision at batch 64.
fn forward_rates(
    cfg: &NetConfig,
    levels: &[SimdLevel],
    precisions: &[Precision],
    full: Precision,
    peak: f64,
    seconds: f64,
) -> Result<Option<f64>> {
    let share = |gflops: f64| gflops / peak.max(1e-9) * 100.0;
    let mut native64 = None;
    for batch in [1, 8, 64, 256] {
        let burn = bench_forward(cfg, batch, seconds, Backend::Burn);
        let mut line = format!(
            "batch {batch}: burn {:.0} evals/s ({:.0}%)",
            burn.evals_per_sec,
            share(burn.gflops)
        );
        let variants = levels
            .iter()
            .flat_map(|&level| precisions.iter().map(move |&precision| (level, precision)));
        for (level, precision) in variants {
            fanorona_infer::kernel::prefer(Some(level));
            let native = bench_forward(cfg, batch, seconds, backend_of(precision));
            let name = match precision {
                Precision::F32 => level.to_string(),
                Precision::Int8 => format!("{level} int8"),
            };
            line += &format!(
                "; native {name} {:.0} evals/s, {:.1} GFLOP/s ({:.0}%), {:.2}x burn",
                native.evals_per_sec,
                native.gflops,
                share(native.gflops),
                native.evals_per_sec / burn.evals_per_sec.max(1e-9)
            );
            if batch == 64 && level == levels[0] && precision == full {
                native64 = Some(native.evals_per_sec);
            }
        }
        say!("{line}")?;
    }
    Ok(native64)
}
