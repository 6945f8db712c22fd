//! `fanorona bench-net`: how fast the network evaluates and trains on this machine.

use std::path::PathBuf;

use anyhow::Result;
use clap::Args;
use fanorona_net::bench::{bench_evaluator, bench_forward, bench_train};
use fanorona_net::{Backend, NetConfig};

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
}

/// Run `fanorona bench-net`.
pub fn run(args: &BenchNetArgs) -> Result<()> {
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
    anyhow::ensure!(
        args.seconds > 0.0 && args.seconds <= 600.0,
        "--seconds must be in (0, 600]"
    );
    let threads = fanorona_infer::pool_threads();
    let level = fanorona_infer::SimdLevel::detect();
    let peak = fanorona_infer::kernel::measure_peak_gflops(threads, args.seconds.min(2.0));
    println!(
        "network {} (global pooling every {}), {:.1} MFLOP per evaluation",
        cfg.tower(),
        cfg.global_pool_every,
        cfg.flops_per_eval() / 1e6
    );
    println!(
        "CPU: {threads} threads, native kernels {level}, measured fp32 peak {peak:.0} GFLOP/s (all threads at once)"
    );
    let share = |gflops: f64| gflops / peak.max(1e-9) * 100.0;
    let mut native64 = None;
    for batch in [1, 8, 64, 256] {
        let burn = bench_forward(&cfg, batch, args.seconds, Backend::Burn);
        let native = bench_forward(&cfg, batch, args.seconds, Backend::Native);
        println!(
            "batch {batch}: burn {:.0} evals/s, native {:.0} evals/s, {:.2}x",
            burn.evals_per_sec,
            native.evals_per_sec,
            native.evals_per_sec / burn.evals_per_sec.max(1e-9)
        );
        println!(
            "    GFLOP/s: burn {:.1} ({:.0}% of peak), native {:.1} ({:.0}% of peak)",
            burn.gflops,
            share(burn.gflops),
            native.gflops,
            share(native.gflops)
        );
        if batch == 64 {
            native64 = Some(native.evals_per_sec);
        }
    }
    let full = bench_evaluator(&cfg, 64, args.seconds, Backend::Native)?;
    let kept = native64.map_or(0.0, |raw| full.evals_per_sec / raw * 100.0);
    println!(
        "full evaluation path at batch 64, native (encode + forward + legal-move softmax): {:.0} evals/s, {kept:.0}% of the raw forward pass",
        full.evals_per_sec
    );
    let samples = bench_train(&cfg, args.train_batch, args.seconds);
    println!(
        "training at batch {}: {samples:.0} samples/s",
        args.train_batch
    );
    Ok(())
}
