//! One module per subcommand, plus the player specs they share.

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
