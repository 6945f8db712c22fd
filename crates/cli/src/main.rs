//! The `fanorona` command: training, match play, benchmarks and games against the computer.
//!
//! Each subcommand lives in its own module under `commands/`; this file parses the command
//! line and turns errors into messages and exit codes (1 for a failed command, 2 for a
//! usage error, as clap does).
//!
//! ```text
//! fanorona train --config configs/default.toml          # train (Ctrl-C stops, rerun resumes)
//! fanorona pit net:path=checkpoints/sample-2x32.fnm,sims=200 alphabeta:depth=3 --games 40
//! fanorona serve --model checkpoints/sample-2x32.fnm    # play in a browser
//! fanorona play --level hard --color black              # play in the terminal
//! fanorona tablebase build --stones 5                   # exact endgame tables
//! ```

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod commands;
mod lines;
mod output;

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
    /// Prove the value of a position (proof-number search over whole turns, the endgame tables
    /// as leaves) with a certificate, or check a certificate (`--check FILE`).
    Solve(commands::solve::SolveArgs),
    /// List every kind of player and every key its spec takes.
    Players(commands::players::PlayersArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    // A setting in the environment that would be ignored is a usage error, as the same value
    // given as a flag is.
    if let Err(e) = check_environment() {
        eprintln!("error: {}", clipped(&e));
        return ExitCode::from(2);
    }
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
        Command::Solve(args) => commands::solve::run(&args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        // The reader of standard output went away (`| head`): end quietly, as a program
        // stopped by SIGPIPE does.
        Err(e)
            if e.chain().any(|c| {
                c.downcast_ref::<output::StdoutError>()
                    .is_some_and(output::StdoutError::is_broken_pipe)
            }) =>
        {
            ExitCode::from(BROKEN_PIPE_STATUS)
        }
        Err(e) => {
            eprintln!("error: {}", error_text(&e));
            ExitCode::FAILURE
        }
    }
}

/// The exit status when standard output's reader went away: 128 + SIGPIPE (13), what a shell
/// reports for a C program that the signal ended.
const BROKEN_PIPE_STATUS: u8 = 141;

/// The environment variables that pick code paths: `FANORONA_SIMD` (the kernels' SIMD level)
/// and `FANORONA_GATHER` (the move generator's gather), each unset or a value this CPU runs.
fn check_environment() -> Result<(), String> {
    fanorona_infer::SimdLevel::from_env()?;
    fanorona_engine::Gather::from_env()?;
    Ok(())
}

/// Longest run of non-blank characters an error message shows whole: an input of any size
/// (a 100,000-character position) is quoted by its start and its length.
const MAX_WORD_CHARS: usize = 200;
/// Longest error message shown whole.
const MAX_MESSAGE_CHARS: usize = 4_000;

/// `text` with every run of more than [`MAX_WORD_CHARS`] non-blank characters cut to its start
/// and its length, and the whole cut at [`MAX_MESSAGE_CHARS`] likewise.
fn clipped(text: &str) -> String {
    let mut out = String::with_capacity(text.len().min(MAX_MESSAGE_CHARS + 64));
    let mut rest = text;
    while !rest.is_empty() {
        let blank = rest.find(char::is_whitespace).unwrap_or(rest.len());
        let (word, after) = rest.split_at(blank);
        let count = word.chars().count();
        if count > MAX_WORD_CHARS {
            out.extend(word.chars().take(MAX_WORD_CHARS / 2));
            out.push_str(&format!("... ({count} characters)"));
        } else {
            out.push_str(word);
        }
        let spaces = after.len() - after.trim_start().len();
        out.push_str(&after[..spaces]);
        rest = &after[spaces..];
    }
    let count = out.chars().count();
    if count > MAX_MESSAGE_CHARS {
        out = out.chars().take(MAX_MESSAGE_CHARS).collect();
        out.push_str(&format!("... ({count} characters in all)"));
    }
    out
}

/// An error and its causes on one line, `a: b: c`, each cause once (many errors already say
/// what their cause says, and the chain would repeat it), clipped (see [`clipped`]).
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
    clipped(&text)
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

    #[test]
    fn inputs_of_any_size_are_quoted_by_their_start_and_length() {
        let fen = "W".repeat(100_000);
        let e = anyhow::anyhow!("not a position: {fen}").context("--fen");
        let text = error_text(&e);
        assert!(text.len() < 300, "{} bytes", text.len());
        assert!(text.starts_with("--fen: not a position: WWWW"), "{text}");
        assert!(text.ends_with("... (100000 characters)"), "{text}");
        // many short words: the whole is cut
        let words = "word ".repeat(10_000);
        let text = clipped(&words);
        assert!(text.chars().count() < MAX_MESSAGE_CHARS + 50);
        assert!(text.ends_with("... (50000 characters in all)"), "{text}");
        // short messages are untouched, blanks kept
        assert_eq!(clipped("a  b\tc é"), "a  b\tc é");
    }
}
