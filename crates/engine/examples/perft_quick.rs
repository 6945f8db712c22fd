//! Quick perft timing: `cargo run --release --example perft_quick -- 6`.
fn main() {
    let depth: u32 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(6);
    let pos = fanorona_engine::Position::start();
    let t = std::time::Instant::now();
    let n = fanorona_engine::perft(&pos, depth);
    println!("perft {depth} {n} {:?}", t.elapsed());
}
