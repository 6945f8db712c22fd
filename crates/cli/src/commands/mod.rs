//! One module per subcommand, plus what they share: players and their tables, progress bars,
//! match settings.

pub mod bench_net;
pub mod engine;
pub mod export;
pub mod perft;
pub mod pit;
pub mod play;
pub mod players;
pub mod rate;
pub mod serve;
pub mod tablebase;
pub mod tablecheck;
pub mod tables;
pub mod train;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// A progress bar on standard error with `template`, hidden when standard error is not a
/// terminal (`len` is `None` for a bar without a known end).
pub fn progress_bar(len: Option<u64>, template: &str) -> ProgressBar {
    use std::io::IsTerminal;
    let target = if std::io::stderr().is_terminal() {
        ProgressDrawTarget::stderr()
    } else {
        ProgressDrawTarget::hidden()
    };
    let bar = ProgressBar::with_draw_target(len, target);
    if let Ok(style) = ProgressStyle::with_template(template) {
        bar.set_style(style);
    }
    bar
}

/// A match's settings from the command line's `--games`, `--threads`, `--seed` and
/// `--opening-plies`, each checked against its bound ([`MatchConfig`]'s constants) with a
/// message naming the option. Without `--threads`, every CPU.
pub fn match_settings(
    games: u32,
    threads: Option<usize>,
    seed: u64,
    opening_plies: u32,
) -> anyhow::Result<fanorona_arena::arena::MatchConfig> {
    use fanorona_arena::arena::MatchConfig;
    if !(1..=MatchConfig::MAX_GAMES).contains(&games) {
        anyhow::bail!(
            "--games must be between 1 and {}, got {games}",
            MatchConfig::MAX_GAMES
        );
    }
    if opening_plies > MatchConfig::MAX_OPENING_PLIES {
        anyhow::bail!(
            "--opening-plies must be at most {}, got {opening_plies}",
            MatchConfig::MAX_OPENING_PLIES
        );
    }
    let threads = match threads {
        Some(t) if !(1..=MatchConfig::MAX_THREADS).contains(&t) => anyhow::bail!(
            "--threads must be between 1 and {}, got {t}",
            MatchConfig::MAX_THREADS
        ),
        Some(t) => t,
        None => std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .min(MatchConfig::MAX_THREADS),
    };
    Ok(MatchConfig {
        games,
        threads,
        seed,
        opening_plies,
        ..MatchConfig::default()
    })
}
