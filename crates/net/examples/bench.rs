//! Measures inference and training throughput on the CPU (flex) device.
//!
//! ```text
//! cargo run --release -p fanorona-net --example bench -- [blocks] [channels] [eval_batch] [train_batch] [seconds] [global_pool_every]
//! ```
//!
//! Defaults: 6 blocks, 64 channels, eval batch 64, train batch 256, 5 seconds each, global
//! pooling every 3rd block. `RAYON_NUM_THREADS` limits the worker threads.

use std::time::Instant;

use fanorona_net::NetConfig;
use fanorona_net::bench::{bench_forward, bench_train};

fn arg(index: usize, default: f64) -> f64 {
    std::env::args()
        .nth(index)
        .and_then(|a| a.parse().ok())
        .unwrap_or(default)
}

fn main() {
    let cfg = NetConfig::new()
        .with_blocks(arg(1, 6.0) as usize)
        .with_channels(arg(2, 64.0) as usize)
        .with_global_pool_every(arg(6, 3.0) as usize);
    let eval_batch = arg(3, 64.0) as usize;
    let train_batch = arg(4, 256.0) as usize;
    let seconds = arg(5, 5.0);
    println!(
        "net: {} blocks x {} channels, global pooling every {}, {:.1} MFLOP per eval",
        cfg.blocks,
        cfg.channels,
        cfg.global_pool_every,
        cfg.flops_per_eval() / 1e6
    );

    let start = Instant::now();
    let fwd = bench_forward(&cfg, eval_batch, seconds, fanorona_net::Backend::Native);
    println!(
        "forward batch {eval_batch}: {:.0} evals/s, {:.1} GFLOP/s ({} network_calls, {:.1}s)",
        fwd.evals_per_sec,
        fwd.gflops,
        fwd.network_calls,
        start.elapsed().as_secs_f64()
    );

    if train_batch > 0 {
        let train = bench_train(&cfg, train_batch, seconds);
        println!("train batch {train_batch}: {train:.0} samples/s");
    }
}
