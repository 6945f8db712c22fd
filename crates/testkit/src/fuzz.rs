//! Mutation fuzzing on stable Rust, inside the normal test command: each target takes valid
//! inputs (its seeds), mutates them a bounded number of times (flipped, inserted, deleted and
//! repeated bytes, spliced tokens of the input's own language, truncations) and checks that the
//! code under test answers every one without panicking.
//!
//! The number of cases is `FANORONA_FUZZ_CASES` when set (`scripts/fuzz.sh` runs many), and
//! otherwise the target's own small default, so the whole suite stays quick. A failing case
//! names the target, the case's seed and the input, so it can be replayed with
//! `FANORONA_FUZZ_SEED`.

use std::panic::{AssertUnwindSafe, catch_unwind};

use crate::Rng;

/// How many cases a target runs: `FANORONA_FUZZ_CASES`, or `default`.
pub fn cases(default: u64) -> u64 {
    std::env::var("FANORONA_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// A mutation of `input`: one to eight edits, each a byte flipped, set to an interesting
/// value, inserted, deleted or repeated, a token of `dictionary` spliced in, or a cut.
pub fn mutate(rng: &mut Rng, input: &[u8], dictionary: &[&[u8]]) -> Vec<u8> {
    const INTERESTING: [u8; 10] = [0, 1, 0x7f, 0x80, 0xff, b'\n', b' ', b'9', b'-', b','];
    let mut out = input.to_vec();
    for _ in 0..1 + rng.below(8) {
        let at = rng.below(out.len() + 1);
        match rng.below(7) {
            0 if at < out.len() => out[at] ^= 1 << rng.below(8),
            1 if at < out.len() => out[at] = INTERESTING[rng.below(INTERESTING.len())],
            2 => out.insert(at, rng.next_u64() as u8),
            3 if at < out.len() => {
                out.remove(at);
            }
            4 if at < out.len() => {
                // Repeat a piece: long runs find limits that single bytes do not.
                let end = (at + 1 + rng.below(16)).min(out.len());
                let piece = out[at..end].to_vec();
                for _ in 0..1 + rng.below(64) {
                    out.splice(at..at, piece.iter().copied());
                }
            }
            5 if !dictionary.is_empty() => {
                let token = dictionary[rng.below(dictionary.len())];
                out.splice(at..at, token.iter().copied());
            }
            _ => out.truncate(at),
        }
    }
    out
}

/// Runs `check` on `cases(default_cases)` mutations of `seeds` (each seed itself first), and
/// panics naming the target, the case and the input if one of them panics.
pub fn run(
    target: &str,
    seeds: &[Vec<u8>],
    dictionary: &[&[u8]],
    default_cases: u64,
    check: impl Fn(&[u8]),
) {
    assert!(!seeds.is_empty(), "{target}: a fuzz target needs seeds");
    let base: u64 = std::env::var("FANORONA_FUZZ_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    let total = cases(default_cases);
    for seed in seeds {
        report(target, "seed input", seed, &check);
    }
    for case in 0..total {
        let mut rng = Rng::new(base.wrapping_add(case));
        let seed = &seeds[rng.below(seeds.len())];
        let input = mutate(&mut rng, seed, dictionary);
        report(
            target,
            &format!("case {case} (seed {})", base + case),
            &input,
            &check,
        );
    }
}

fn report(target: &str, which: &str, input: &[u8], check: &impl Fn(&[u8])) {
    if catch_unwind(AssertUnwindSafe(|| check(input))).is_err() {
        let shown: String = String::from_utf8_lossy(input).chars().take(400).collect();
        panic!(
            "fuzz target {target}: {which} panicked on {} bytes: {shown:?}",
            input.len()
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mutations_change_inputs_and_stay_deterministic() {
        let input = b"position startpos moves d2e3a";
        let a: Vec<Vec<u8>> = (0..50)
            .map(|i| mutate(&mut Rng::new(i), input, &[b"go"]))
            .collect();
        let b: Vec<Vec<u8>> = (0..50)
            .map(|i| mutate(&mut Rng::new(i), input, &[b"go"]))
            .collect();
        assert_eq!(a, b);
        assert!(a.iter().filter(|m| m.as_slice() != input).count() > 40);
    }

    #[test]
    fn a_panicking_target_is_reported_with_its_input() {
        let caught = catch_unwind(|| {
            run("demo", &[b"abc".to_vec()], &[], 500, |bytes| {
                assert!(!bytes.contains(&b'\n'), "no newlines");
            })
        });
        assert!(caught.is_err(), "some mutation adds a newline");
    }
}
