//! `fanorona perft`: count turn sequences, optionally split by first turn.

use crate::output::say;
use std::time::Instant;

use anyhow::{Context, Result};
use clap::Args;
use fanorona_engine::{Position, parse_position, perft, perft_divide};

/// Arguments of `fanorona perft`.
#[derive(Args, Debug)]
pub struct PerftArgs {
    /// Depth in turns; counts are printed for every depth from 1 up to this one.
    pub depth: u32,
    /// Start from this position (docs/rules.md notation) instead of the start position.
    #[arg(long, value_name = "POSITION")]
    pub fen: Option<String>,
    /// Also print every first turn with its subtotal at the final depth.
    #[arg(long)]
    pub divide: bool,
}

/// Run `fanorona perft`.
pub fn run(args: &PerftArgs) -> Result<()> {
    let position = match &args.fen {
        Some(text) => parse_position(text).context("--fen")?,
        None => Position::start(),
    };
    if args.depth == 0 || args.depth > 12 {
        anyhow::bail!("depth must be between 1 and 12, got {}", args.depth);
    }
    let started = Instant::now();
    let mut total = 0u64;
    for depth in 1..=args.depth {
        let count = perft(&position, depth);
        total += count;
        say!("perft {depth} {count}")?;
    }
    let elapsed = started.elapsed().as_secs_f64();
    say!(
        "time {elapsed:.3} s, {} turns, {:.1} million turns/s (gather {})",
        total,
        total as f64 / elapsed.max(1e-9) / 1e6,
        fanorona_engine::Gather::active()
    )?;
    if args.divide {
        let parts = perft_divide(&position, args.depth);
        for (turn, count) in &parts {
            say!("{turn} {count}")?;
        }
        say!(
            "turns {} total {}",
            parts.len(),
            parts.iter().map(|(_, n)| n).sum::<u64>()
        )?;
    }
    Ok(())
}
