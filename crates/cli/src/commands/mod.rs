//! One module per subcommand, plus what they share: players and their tables, progress bars,
//! match settings.

pub mod agreement;
pub mod bench_net;
pub mod engine;
pub mod export;
pub mod perft;
pub mod pit;
pub mod play;
pub mod players;
pub mod rate;
pub mod serve;
pub mod solve;
pub mod tablebase;
pub mod tablecheck;
pub mod tables;
pub mod train;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// A flag set by the first Ctrl-C, which prints `saying`; a second Ctrl-C exits at once.
pub fn stop_on_ctrl_c(saying: &'static str) -> Arc<AtomicBool> {
    let stop = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&stop);
    let installed = ctrlc::set_handler(move || {
        if flag.swap(true, Ordering::SeqCst) {
            eprintln!("\nstopping now");
            std::process::exit(130);
        }
        eprintln!("\n{saying}");
    });
    if let Err(e) = installed {
        eprintln!("warning: cannot catch Ctrl-C ({e}); interrupting may lose the current step");
    }
    stop
}

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

/// The transposition tables a player of `settings` allocates, in MiB (alpha-beta's `tt`; the
/// other kinds keep none).
pub fn table_mebibytes(settings: &fanorona_specs::Settings) -> u64 {
    match settings.player() {
        fanorona_specs::PlayerSettings::AlphaBeta(a) => a.search.tt_mebibytes as u64,
        _ => 0,
    }
}

/// Refuses a match whose players' transposition tables, one pair per game played at once,
/// would not fit in this machine's available memory (three quarters of it; 16 GiB where the
/// system does not say), with the arithmetic in the message.
pub fn check_table_memory(
    a: &fanorona_specs::Settings,
    b: &fanorona_specs::Settings,
    threads: usize,
) -> anyhow::Result<()> {
    let (ta, tb) = (table_mebibytes(a), table_mebibytes(b));
    let need = (ta + tb).saturating_mul(threads as u64);
    let available = available_mebibytes();
    let limit = available.map_or(16 * 1024, |m| m / 4 * 3);
    if need > limit {
        anyhow::bail!(
            "the transposition tables need {ta} + {tb} MiB a game x {threads} games at once =              {need} MiB, more than the {limit} MiB this machine can give ({}): lower `tt=` or              --threads",
            match available {
                Some(m) => format!("three quarters of the {m} MiB available"),
                None => "the limit where the system does not say".into(),
            }
        );
    }
    Ok(())
}

/// The memory available to new allocations, in MiB, where the system says (Linux).
fn available_mebibytes() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib / 1024)
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
        None => or_every_core(None).min(MatchConfig::MAX_THREADS),
    };
    Ok(MatchConfig {
        games,
        threads,
        seed,
        opening_plies,
        ..MatchConfig::default()
    })
}

/// The threads a `--threads` flag asked for, or one a core when it is not given.
pub(crate) fn or_every_core(asked: Option<usize>) -> usize {
    asked.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}
