//! The `fanorona` command: training, match play, benchmarks and games against the computer.
//!
//! Each subcommand lives in its own module under `commands/`; this file parses the command
//! line and turns errors into messages and exit codes (1 for a failed command, 2 for a
//! usage error, as clap does).
//!
//! ```text
//! fanorona train --config configs/default.toml          # train (Ctrl-C stops, rerun resumes)
//! fanorona pit net:path=checkpoints/sample-4x48.fnm,sims=200 alphabeta:depth=3 --games 40
//! fanorona serve --model checkpoints/sample-4x48.fnm    # play in a browser
//! fanorona play --level hard --color black              # play in the terminal
//! fanorona tablebase build --stones 5                   # exact endgame tables
//! ```

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod commands;

/// Fanorona: self-play reinforcement learning, match play and a game to play against.
#[derive(Parser, Debug)]
#[command(name = "fanorona", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// How networks are evaluated on the CPU: `native` (this project's kernels in 32-bit
    /// floats), `int8` (the same with the residual tower in 8 bits: faster on CPUs with AVX2
    /// and within a hair of the float answers; docs/speed.md) or `burn` (the training
    /// framework's CPU backend). Default: `int8` on CPUs with AVX2, else `native`. For
    /// `train` and `selfplay` it overrides the config's `training.inference`; a player's
    /// `backend=` overrides it.
    #[arg(long, global = true, value_name = "native|int8|burn")]
    backend: Option<fanorona_net::Backend>,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Train a network by self-play from a config file (resumes an existing run).
    Train(commands::train::TrainArgs),
    /// Play self-play games for a run that `train` (maybe elsewhere) is training.
    Selfplay(commands::train::SelfPlayArgs),
    /// Count the legal turn sequences from a position (move generator check and speed).
    Perft(commands::perft::PerftArgs),
    /// Play a match between two players and report the score and Elo difference.
    Pit(commands::pit::PitArgs),
    /// Place players, checkpoints and a run's history on one Elo scale (games stored and reused).
    Rate(commands::rate::RateArgs),
    /// Run a player behind a line protocol on standard input and output.
    Engine(commands::engine::EngineArgs),
    /// Serve the web page and JSON API for playing against the computer.
    Serve(commands::serve::ServeArgs),
    /// Play against the computer in the terminal.
    Play(commands::play::PlayArgs),
    /// Measure the network: evaluations per second, GFLOP/s, training samples per second.
    BenchNet(commands::bench_net::BenchNetArgs),
    /// Turn a training checkpoint into a self-describing model file for play.
    Export(commands::export::ExportArgs),
    /// Endgame tables: build, probe, verify, and check a network against them.
    Tablebase(commands::tablebase::TablebaseArgs),
    /// List every kind of player and every key its spec takes.
    Players(commands::players::PlayersArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let backend = cli.backend.unwrap_or_default();
    let result = match cli.command {
        Command::Train(args) => commands::train::run_train(&args, cli.backend),
        Command::Selfplay(args) => commands::train::run_selfplay(&args, cli.backend),
        Command::Perft(args) => commands::perft::run(&args),
        Command::Pit(args) => commands::pit::run(&args, backend),
        Command::Rate(args) => commands::rate::run(&args, backend),
        Command::Engine(args) => commands::engine::run(&args, backend),
        Command::Serve(args) => commands::serve::run(&args, backend),
        Command::Play(args) => commands::play::run(&args, backend),
        Command::BenchNet(args) => commands::bench_net::run(&args),
        Command::Export(args) => commands::export::run(&args),
        Command::Tablebase(args) => commands::tablebase::run(&args, backend),
        Command::Players(args) => commands::players::run(&args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {}", error_text(&e));
            ExitCode::FAILURE
        }
    }
}

/// An error and its causes on one line, `a: b: c`, each cause once: many errors already say
/// what their cause says, and the chain would repeat it.
fn error_text(e: &anyhow::Error) -> String {
    let mut text = String::new();
    for cause in e.chain() {
        let part = cause.to_string();
        if text.contains(&part) {
            continue;
        }
        if !text.is_empty() {
            text.push_str(": ");
        }
        text.push_str(&part);
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cause_already_in_the_message_is_not_repeated() {
        #[derive(Debug)]
        struct Outer {
            source: std::io::Error,
        }
        impl std::fmt::Display for Outer {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(f, "player x: {}", self.source)
            }
        }
        impl std::error::Error for Outer {
            fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
                Some(&self.source)
            }
        }
        let io = std::io::Error::other("no such file");
        let e = anyhow::Error::new(Outer { source: io }).context("rating");
        assert_eq!(error_text(&e), "rating: player x: no such file");
        let plain = anyhow::anyhow!("inner").context("outer");
        assert_eq!(error_text(&plain), "outer: inner");
    }
}
