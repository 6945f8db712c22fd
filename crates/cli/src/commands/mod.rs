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
