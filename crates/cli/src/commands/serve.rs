//! `fanorona serve`: the web page and JSON API for playing against the computer.

use crate::output::say;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Context, Result};
use clap::Args;
use fanorona_serve::ServerConfig;

/// Arguments of `fanorona serve`.
#[derive(Args, Debug)]
pub struct ServeArgs {
    /// Address to listen on. Port 0 picks a free port; the address is printed either way.
    #[arg(long, default_value = "127.0.0.1:8080")]
    pub addr: SocketAddr,
    /// Play with this network model instead of the built-in alpha-beta engine.
    #[arg(long, value_name = "FILE")]
    pub model: Option<PathBuf>,
    /// Engine searches that may run at once; more requests wait (default: CPU cores).
    #[arg(long, value_name = "N")]
    pub max_searches: Option<usize>,
    /// Longest the engine thinks for one turn, in milliseconds, whatever the level (1 to
    /// 600,000).
    #[arg(long, value_name = "MS", default_value_t = 5000,
          value_parser = clap::value_parser!(u64).range(1..=600_000))]
    pub max_think_ms: u64,
    #[command(flatten)]
    pub tables: super::tables::TablesArgs,
}

/// Run `fanorona serve` until Ctrl-C.
pub fn run(args: &ServeArgs, backend: fanorona_net::Backend) -> Result<()> {
    let tables = args
        .tables
        .load_with_hint(fanorona_engine::Rules::default(), true)?;
    let engine = super::players::engine_for(args.model.as_deref(), tables, backend)?;
    let mut config = ServerConfig {
        max_think: Duration::from_millis(args.max_think_ms),
        ..ServerConfig::default()
    };
    if let Some(n) = args.max_searches {
        anyhow::ensure!(n >= 1, "--max-searches must be at least 1");
        config.max_concurrent_searches = n;
    }
    let name = engine.name().to_string();
    let searches = config.max_concurrent_searches;
    fanorona_serve::run(args.addr, engine, config, |addr| {
        // The server serves whether or not anyone reads this line.
        if let Err(e) = say!(
            "fanorona serve: listening on http://{addr}/ (engine {name}, {searches} searches at once; Ctrl-C stops)"
        ) && !e.is_broken_pipe()
        {
            eprintln!("warning: {e}");
        }
    })
    .context("fanorona serve")
}
