//! `fanorona bench-net`: how fast the network evaluates and trains on this machine.

use anyhow::Result;
use clap::Args;
use fanorona_net::NetConfig;
use fanorona_net::bench::{bench_evaluator, bench_forward, bench_train};

/// Arguments of `fanorona bench-net`.
#[derive(Args, Debug)]
pub struct BenchNetArgs {
    /// Residual blocks.
    #[arg(long, default_value_t = 6)]
    pub blocks: usize,
    /// Channels per convolution.
    #[arg(long, default_value_t = 64)]
    pub channels: usize,
    /// Seconds per measurement.
    #[arg(long, default_value_t = 3.0)]
    pub seconds: f64,
    /// Training batch size.
    #[arg(long, default_value_t = 256)]
    pub train_batch: usize,
}

/// Run `fanorona bench-net`.
pub fn run(args: &BenchNetArgs) -> Result<()> {
    anyhow::ensure!((1..=40).contains(&args.blocks), "--blocks must be 1 to 40");
    anyhow::ensure!(
        (4..=512).contains(&args.channels),
        "--channels must be 4 to 512"
    );
    anyhow::ensure!(
        args.seconds > 0.0 && args.seconds <= 600.0,
        "--seconds must be in (0, 600]"
    );
    let cfg = NetConfig::new()
        .with_blocks(args.blocks)
        .with_channels(args.channels);
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    println!(
        "network {} blocks x {} channels, {:.1} MFLOP per evaluation, CPU (flex), {threads} threads",
        args.blocks,
        args.channels,
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
