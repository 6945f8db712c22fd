//! The joint Elo fit (`fanorona_arena::rating`): it recovers known rating gaps from games
//! drawn under its own model, its intervals cover the truth about as often as they claim, and
//! it agrees with closed forms where there is one.

use fanorona_arena::elo::MatchScore;
use fanorona_arena::rating::{FitError, FitOptions, Pairing, fit, outcome_probabilities};
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};

/// `games` games of a player `d` Elo stronger, drawn from the model with draw Elo `delta`.
fn simulate(rng: &mut SmallRng, d: f64, delta: f64, games: u32) -> MatchScore {
    let (win, draw, _) = outcome_probabilities(d, delta);
    let mut score = MatchScore::default();
    for _ in 0..games {
        let u: f64 = rng.random();
        if u < win {
            score.wins += 1;
        } else if u < win + draw {
            score.draws += 1;
        } else {
            score.losses += 1;
        }
    }
    score
}

/// Every listed pair plays `games` games under the model.
fn table(
    rng: &mut SmallRng,
    truth: &[f64],
    pairs: &[(usize, usize)],
    delta: f64,
    games: u32,
) -> Vec<Pairing> {
    pairs
        .iter()
        .map(|&(a, b)| Pairing {
            a,
            b,
            score: simulate(rng, truth[a] - truth[b], delta, games),
        })
        .collect()
}

fn all_pairs(n: usize) -> Vec<(usize, usize)> {
    (0..n)
        .flat_map(|a| (a + 1..n).map(move |b| (a, b)))
        .collect()
}

#[test]
fn a_round_robin_recovers_known_ratings_and_the_draw_elo() {
    let truth = [0.0, 150.0, -100.0, 320.0, 40.0];
    let mut rng = SmallRng::seed_from_u64(11);
    let pairings = table(&mut rng, &truth, &all_pairs(truth.len()), 120.0, 400);
    let f = fit(truth.len(), &pairings, &FitOptions::anchored(0)).unwrap();
    assert_eq!(f.elo[0], 0.0);
    assert_eq!(f.sd[0], 0.0);
    for (i, true_elo) in truth.iter().enumerate().skip(1) {
        let error = (f.elo[i] - true_elo).abs();
        assert!(
            error < 3.0 * f.sd[i],
            "player {i}: fit {} truth {true_elo} sd {}",
            f.elo[i],
            f.sd[i]
        );
        assert!(f.sd[i] > 5.0 && f.sd[i] < 30.0, "sd {}", f.sd[i]);
    }
    assert!((f.draw_elo - 120.0).abs() < 20.0, "draw Elo {}", f.draw_elo);
}

#[test]
fn a_panel_design_places_players_that_never_met() {
    // Players 3 and 4 meet only the panel 0..3, the panel meets itself: the design of
    // `fanorona rate`. The gap between 3 and 4 is still recovered.
    let truth = [0.0, -250.0, 180.0, 60.0, 260.0];
    let pairs = [
        (0, 1),
        (0, 2),
        (1, 2),
        (3, 0),
        (3, 1),
        (3, 2),
        (4, 0),
        (4, 1),
        (4, 2),
    ];
    let mut rng = SmallRng::seed_from_u64(5);
    let pairings = table(&mut rng, &truth, &pairs, 80.0, 600);
    let f = fit(truth.len(), &pairings, &FitOptions::anchored(0)).unwrap();
    let gap = f.elo[4] - f.elo[3];
    assert!(
        (gap - 200.0).abs() < 3.0 * f.difference_sd(3, 4),
        "gap {gap} sd {}",
        f.difference_sd(3, 4)
    );
}

#[test]
fn the_95_percent_intervals_cover_the_truth_about_95_percent_of_the_time() {
    let truth = [0.0, 90.0, -60.0];
    let mut covered = 0;
    let trials = 300;
    for seed in 0..trials {
        let mut rng = SmallRng::seed_from_u64(1000 + seed);
        let pairings = table(&mut rng, &truth, &all_pairs(3), 100.0, 100);
        let f = fit(3, &pairings, &FitOptions::anchored(0)).unwrap();
        let (lo, hi) = f.interval(1);
        if lo <= truth[1] && truth[1] <= hi {
            covered += 1;
        }
    }
    let rate = f64::from(covered) / trials as f64;
    assert!((0.90..=0.985).contains(&rate), "coverage {rate}");
}

#[test]
fn two_players_without_a_prior_match_the_closed_form() {
    // With two players the model is saturated: F(d - δ) = W/n and F(-d - δ) = L/n, so
    // d = 200 (log10(W/(n-W)) - log10(L/(n-L))) and δ = -200 (log10(W/(n-W)) + log10(L/(n-L))).
    let (w, dr, l) = (50u32, 30u32, 20u32);
    let n = f64::from(w + dr + l);
    let lw = (f64::from(w) / (n - f64::from(w))).log10();
    let ll = (f64::from(l) / (n - f64::from(l))).log10();
    let options = FitOptions {
        anchor: 1,
        prior_games: 0.0,
        draw_elo: None,
    };
    let pairings = [Pairing {
        a: 0,
        b: 1,
        score: MatchScore::new(w, dr, l),
    }];
    let f = fit(2, &pairings, &options).unwrap();
    assert!((f.elo[0] - 200.0 * (lw - ll)).abs() < 0.05, "{}", f.elo[0]);
    assert!(
        (f.draw_elo - (-200.0 * (lw + ll))).abs() < 0.05,
        "{}",
        f.draw_elo
    );
    // The same games given from the other side give the same answer.
    let flipped = [Pairing {
        a: 1,
        b: 0,
        score: MatchScore::new(l, dr, w),
    }];
    let g = fit(2, &flipped, &options).unwrap();
    assert!((g.elo[0] - f.elo[0]).abs() < 1e-6);
}

#[test]
fn the_anchor_sets_the_zero_and_nothing_else() {
    let truth = [0.0, 120.0, -80.0];
    let mut rng = SmallRng::seed_from_u64(3);
    let pairings = table(&mut rng, &truth, &all_pairs(3), 60.0, 200);
    let a = fit(3, &pairings, &FitOptions::anchored(0)).unwrap();
    let b = fit(3, &pairings, &FitOptions::anchored(2)).unwrap();
    assert_eq!(b.elo[2], 0.0);
    for i in 0..3 {
        assert!((a.elo[i] - a.elo[2] - b.elo[i]).abs() < 1e-4, "{i}");
    }
    assert!((a.draw_elo - b.draw_elo).abs() < 0.05);
}

#[test]
fn a_perfect_score_is_finite_with_the_prior_and_refused_without() {
    let pairings = [
        Pairing {
            a: 0,
            b: 1,
            score: MatchScore::new(100, 0, 0),
        },
        Pairing {
            a: 1,
            b: 2,
            score: MatchScore::new(30, 40, 30),
        },
    ];
    let f = fit(3, &pairings, &FitOptions::anchored(1)).unwrap();
    assert!(f.elo[0] > 400.0 && f.elo[0] < 1500.0, "{}", f.elo[0]);
    assert!(f.elo[2].abs() < 30.0, "{}", f.elo[2]);
    let plain = FitOptions {
        prior_games: 0.0,
        ..FitOptions::anchored(1)
    };
    // No wins and no draws at all: the draw Elo stays finite and the gap large but finite.
    let lopsided = [Pairing {
        a: 0,
        b: 1,
        score: MatchScore::new(0, 2, 6),
    }];
    let g = fit(2, &lopsided, &FitOptions::anchored(1)).unwrap();
    assert!(g.draw_elo < 600.0, "draw Elo {}", g.draw_elo);
    assert!(g.elo[0] < -100.0 && g.elo[0] > -700.0, "{}", g.elo[0]);
    assert_eq!(
        fit(3, &pairings, &plain).unwrap_err(),
        FitError::Unbounded(0)
    );
}

#[test]
fn bad_tables_are_refused_with_what_is_wrong() {
    let one = |a, b| Pairing {
        a,
        b,
        score: MatchScore::new(1, 1, 1),
    };
    assert_eq!(
        fit(3, &[one(0, 1)], &FitOptions::anchored(0)).unwrap_err(),
        FitError::NotConnected(vec![2])
    );
    assert!(matches!(
        fit(2, &[one(0, 2)], &FitOptions::anchored(0)).unwrap_err(),
        FitError::BadPairing {
            index: 0,
            a: 0,
            b: 2,
            players: 2
        }
    ));
    assert!(matches!(
        fit(2, &[one(1, 1)], &FitOptions::anchored(0)),
        Err(FitError::BadPairing { .. })
    ));
    assert!(matches!(
        fit(2, &[one(0, 1)], &FitOptions::anchored(5)),
        Err(FitError::BadAnchor { .. })
    ));
    let fixed = FitOptions {
        draw_elo: Some(f64::NAN),
        ..FitOptions::anchored(0)
    };
    assert!(matches!(
        fit(2, &[one(0, 1)], &fixed),
        Err(FitError::BadDrawElo(_))
    ));
    let err = fit(3, &[one(0, 1)], &FitOptions::anchored(0))
        .unwrap_err()
        .to_string();
    assert!(err.contains("[2]") && err.contains("anchor"), "{err}");
}
