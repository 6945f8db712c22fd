//! `fanorona bench-net`: how fast the network evaluates and trains on this machine.

use std::path::PathBuf;

use anyhow::Result;
use clap::Args;
use fanorona_net::NetConfig;
use fanorona_net::bench::{bench_evaluator, bench_forward, bench_train};

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
    /// Training batch size.
    #[arg(long, default_value_t = 256)]
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
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    println!(
        "network {} blocks x {} channels (global pooling every {}), {:.1} MFLOP per evaluation, CPU (flex), {threads} threads",
        cfg.blocks,
        cfg.channels,
        cfg.global_pool_every,
        cfg.flops_per_eval() / 1e6
    );
    println!("{:>7}  {:>12}  {:>9}", "batch", "evals/s", "GFLOP/s");
    let mut raw64 = None;
    for batch in [1, 8, 64, 256] {
        let r = bench_forward(&cfg, batch, args.seconds);
        println!("{batch:>7}  {:>12.0}  {:>9.1}", r.evals_per_sec, r.gflops);
        if batch == 64 {
            raw64 = Some(r.evals_per_sec);
        }
    }
    let full = bench_evaluator(&cfg, 64, args.seconds)?;
    let share = raw64.map_or(0.0, |raw| full.evals_per_sec / raw * 100.0);
    println!(
        "full evaluation path at batch 64 (encode + forward + legal-move softmax): {:.0} evals/s, {share:.0}% of the raw forward pass",
        full.evals_per_sec
    );
    let samples = bench_train(&cfg, args.train_batch, args.seconds);
    println!(
        "training at batch {}: {samples:.0} samples/s",
        args.train_batch
    );
    Ok(())
}
