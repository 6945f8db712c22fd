//! Runs the perft suite in `tests/data/perft.txt` (one generic runner for every line).

use fanorona_engine::{Position, parse_position, perft, perft_divide, perft_slow};

struct Case {
    line: usize,
    position: Position,
    counts: Vec<u64>,
}

fn suite() -> Vec<Case> {
    let text = include_str!("data/perft.txt");
    let mut cases = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (fen, counts) = line
            .split_once(';')
            .unwrap_or_else(|| panic!("line {}: no ';'", i + 1));
        let position = parse_position(fen.trim()).unwrap_or_else(|e| panic!("line {}: {e}", i + 1));
        let counts = counts
            .split_whitespace()
            .map(|c| {
                c.parse()
                    .unwrap_or_else(|e| panic!("line {}: {c:?}: {e}", i + 1))
            })
            .collect();
        cases.push(Case {
            line: i + 1,
            position,
            counts,
        });
    }
    assert!(cases.len() >= 10, "the suite has {} positions", cases.len());
    cases
}

fn run(limit: u64) -> usize {
    let mut checked = 0;
    for case in suite() {
        for (d, &want) in case.counts.iter().enumerate() {
            if want > limit {
                break;
            }
            let depth = d as u32 + 1;
            assert_eq!(
                perft(&case.position, depth),
                want,
                "line {} depth {depth}",
                case.line
            );
            checked += 1;
        }
    }
    checked
}

#[test]
fn perft_suite() {
    assert!(run(2_500_000) > 50);
}

#[test]
fn start_position_to_depth_five() {
    let start = Position::start();
    let counts: Vec<u64> = (1..=5).map(|d| perft(&start, d)).collect();
    assert_eq!(counts, vec![5, 39, 724, 18026, 431852]);
}

#[test]
#[ignore = "deep: about ten seconds in the dev profile; run with --ignored"]
fn perft_suite_deep() {
    run(u64::MAX);
}

#[test]
fn full_position_perft_agrees_with_bitboard_perft() {
    for case in suite() {
        for depth in 1..=3u32.min(case.counts.len() as u32) {
            assert_eq!(
                perft_slow(&case.position, depth),
                perft(&case.position, depth),
                "line {}",
                case.line
            );
        }
    }
}

#[test]
fn divide_sums_to_perft() {
    for case in suite().iter().take(8) {
        let parts = perft_divide(&case.position, 3);
        assert_eq!(
            parts.iter().map(|(_, n)| n).sum::<u64>(),
            case.counts[2],
            "line {}",
            case.line
        );
        assert_eq!(parts.len() as u64, case.counts[0]);
    }
}
