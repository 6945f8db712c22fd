//! Elo differences from match results, with confidence intervals.
//!
//! The score is `s = (W + D/2) / n`, the Elo difference `-400 log10(1/s - 1)`. The interval maps
//! the normal interval of the score, `s ± z * sigma / sqrt(n)`, through the same function (the
//! usual cutechess/fishtest formula), where `sigma^2` is the trinomial per-game variance
//! `(W (1-s)^2 + D (1/2-s)^2 + L s^2) / n`. Mapping the score interval rather than using the delta
//! method keeps the interval asymmetric, as it should be far from 50%.
//!
//! Perfect scores: at 100% the estimate and the upper bound are `+inf` (Elo is unbounded), and
//! since the trinomial variance is then zero the lower bound uses the exact one-sided binomial
//! (Clopper-Pearson) bound instead: the score `p` with `p^n = (1 - confidence) / 2`. A 0% score
//! is the mirror image. A bound whose score interval leaves [0, 1] is infinite.

/// A match result from one side's point of view.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MatchScore {
    /// Games won.
    pub wins: u32,
    /// Games drawn.
    pub draws: u32,
    /// Games lost.
    pub losses: u32,
}

/// An Elo difference with a confidence interval.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EloEstimate {
    /// Point estimate.
    pub elo: f64,
    /// Lower bound of the interval.
    pub lower: f64,
    /// Upper bound of the interval.
    pub upper: f64,
}

/// Two-sided 95% normal quantile.
pub const Z_95: f64 = 1.959_963_984_540_054;

impl MatchScore {
    /// A result of `wins`, `draws` and `losses`.
    pub fn new(wins: u32, draws: u32, losses: u32) -> Self {
        MatchScore {
            wins,
            draws,
            losses,
        }
    }

    /// Games played.
    pub fn games(&self) -> u32 {
        self.wins + self.draws + self.losses
    }

    /// Mean score in [0, 1], `None` with no games.
    pub fn score(&self) -> Option<f64> {
        let n = f64::from(self.games());
        (n > 0.0).then(|| (f64::from(self.wins) + 0.5 * f64::from(self.draws)) / n)
    }

    /// Elo difference with a 95% confidence interval; `None` with no games.
    pub fn elo(&self) -> Option<EloEstimate> {
        self.elo_with_z(Z_95)
    }

    /// Elo difference with the interval `s ± z * standard error`; `None` with no games.
    pub fn elo_with_z(&self, z: f64) -> Option<EloEstimate> {
        let s = self.score()?;
        let n = f64::from(self.games());
        let (w, d, l) = (
            f64::from(self.wins),
            f64::from(self.draws),
            f64::from(self.losses),
        );
        let variance = (w * (1.0 - s).powi(2) + d * (0.5 - s).powi(2) + l * s.powi(2)) / n;
        let margin = z * (variance / n).sqrt();
        // Tail probability of one side of the interval, for the exact bound at 0% or 100%.
        let tail = 1.0 - normal_cdf(z);
        let (lower, upper) = if self.losses == 0 && self.draws == 0 {
            (tail.powf(1.0 / n), 1.0)
        } else if self.wins == 0 && self.draws == 0 {
            (0.0, 1.0 - tail.powf(1.0 / n))
        } else {
            (s - margin, s + margin)
        };
        Some(EloEstimate {
            elo: elo_from_score(s),
            lower: elo_from_score(lower),
            upper: elo_from_score(upper),
        })
    }

    /// Likelihood of superiority: see [`likelihood_of_superiority`].
    pub fn los(&self) -> f64 {
        likelihood_of_superiority(self.wins, self.losses)
    }
}

impl std::fmt::Display for EloEstimate {
    /// `+123 (95% CI +50 to +200)`; infinite values print as `+inf` and `-inf`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} (95% CI {} to {})",
            elo_text(self.elo, 0),
            elo_text(self.lower, 0),
            elo_text(self.upper, 0)
        )
    }
}

/// An Elo value as text with `decimals` decimals and a sign: `+123`, `-45.5`, `+inf`, `-inf`.
pub fn elo_text(x: f64, decimals: usize) -> String {
    if x.is_nan() {
        "nan".into()
    } else if x.is_infinite() {
        if x > 0.0 { "+inf" } else { "-inf" }.into()
    } else {
        format!("{x:+.decimals$}")
    }
}

/// An Elo value for JSON and other number-only formats: rounded to a tenth, `None` when
/// infinite (or not a number).
pub fn elo_number(x: f64) -> Option<f64> {
    x.is_finite().then(|| (x * 10.0).round() / 10.0)
}

/// Elo difference for an expected score `s`: `-400 log10(1/s - 1)`; `±inf` at or beyond 0 and 1.
pub fn elo_from_score(s: f64) -> f64 {
    if s <= 0.0 {
        f64::NEG_INFINITY
    } else if s >= 1.0 {
        f64::INFINITY
    } else {
        -400.0 * (1.0 / s - 1.0).log10()
    }
}

/// Expected score of a player `elo` points stronger: `1 / (1 + 10^(-elo/400))`.
pub fn score_from_elo(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// Probability that the first player is the stronger one, from wins and losses (draws carry no
/// information): `(1 + erf((W - L) / sqrt(2 (W + L)))) / 2`. 0.5 with no decisive game.
pub fn likelihood_of_superiority(wins: u32, losses: u32) -> f64 {
    let decisive = f64::from(wins) + f64::from(losses);
    if decisive == 0.0 {
        return 0.5;
    }
    0.5 * (1.0 + erf((f64::from(wins) - f64::from(losses)) / (2.0 * decisive).sqrt()))
}

/// Standard normal cumulative distribution.
fn normal_cdf(x: f64) -> f64 {
    0.5 * (1.0 + erf(x / std::f64::consts::SQRT_2))
}

/// Error function (Numerical Recipes `erfc` Chebyshev fit, relative error below 1.2e-7).
fn erf(x: f64) -> f64 {
    let t = 1.0 / (1.0 + 0.5 * x.abs());
    let poly = -x * x - 1.265_512_23
        + t * (1.000_023_68
            + t * (0.374_091_96
                + t * (0.096_784_18
                    + t * (-0.186_288_06
                        + t * (0.278_868_07
                            + t * (-1.135_203_98
                                + t * (1.488_515_87 + t * (-0.822_152_23 + t * 0.170_872_77))))))));
    let erfc = t * poly.exp();
    if x >= 0.0 { 1.0 - erfc } else { erfc - 1.0 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elo_values_print_with_signs_and_infinities() {
        assert_eq!(elo_text(f64::INFINITY, 0), "+inf");
        assert_eq!(elo_text(f64::NEG_INFINITY, 1), "-inf");
        assert_eq!(elo_text(12.4, 0), "+12");
        assert_eq!(elo_text(-3.6, 0), "-4");
        assert_eq!(elo_text(-3.66, 1), "-3.7");
        assert_eq!(elo_number(f64::INFINITY), None);
        assert_eq!(elo_number(147.19), Some(147.2));
        let e = EloEstimate {
            elo: 50.4,
            lower: -10.0,
            upper: f64::INFINITY,
        };
        assert_eq!(e.to_string(), "+50 (95% CI -10 to +inf)");
    }

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    #[test]
    fn erf_matches_known_values() {
        assert!(close(erf(0.0), 0.0, 1e-7));
        assert!(close(erf(0.5), 0.520_499_877_8, 1e-6));
        assert!(close(erf(1.0), 0.842_700_792_9, 1e-6));
        assert!(close(erf(-1.0), -0.842_700_792_9, 1e-6));
        assert!(close(erf(2.0), 0.995_322_265_0, 1e-6));
        assert!(close(normal_cdf(Z_95), 0.975, 1e-6));
    }

    #[test]
    fn sixty_twenty_twenty() {
        // s = (60 + 10) / 100 = 0.7; Elo = -400 log10(3/7) = 147.19.
        // Per-game variance 0.6*0.09 + 0.2*0.04 + 0.2*0.49 = 0.16, standard error 0.04,
        // score interval 0.7 ± 0.0784 = [0.6216, 0.7784] -> [86.23, 218.25] Elo.
        let e = MatchScore::new(60, 20, 20).elo().unwrap();
        assert!(close(e.elo, 147.19, 0.01), "{e:?}");
        assert!(close(e.lower, 86.23, 0.05), "{e:?}");
        assert!(close(e.upper, 218.25, 0.05), "{e:?}");
    }

    #[test]
    fn even_score_is_zero_with_a_symmetric_interval() {
        // 40-20-40: s = 0.5, variance (40*0.25 + 0 + 40*0.25)/100 = 0.2, se = 0.04472,
        // interval [0.41235, 0.58765] -> ±61.54 Elo.
        let e = MatchScore::new(40, 20, 40).elo().unwrap();
        assert!(close(e.elo, 0.0, 1e-9));
        assert!(close(e.upper, 61.54, 0.05), "{e:?}");
        assert!(close(e.lower, -e.upper, 1e-9), "{e:?}");
    }

    #[test]
    fn perfect_scores_are_infinite_with_an_exact_finite_bound() {
        // 100 wins: lower score bound 0.025^(1/100) = 0.963783 -> 570.0 Elo.
        let e = MatchScore::new(100, 0, 0).elo().unwrap();
        assert_eq!(e.elo, f64::INFINITY);
        assert_eq!(e.upper, f64::INFINITY);
        assert!(close(e.lower, 570.0, 0.5), "{e:?}");
        let e = MatchScore::new(0, 0, 100).elo().unwrap();
        assert_eq!(e.elo, f64::NEG_INFINITY);
        assert_eq!(e.lower, f64::NEG_INFINITY);
        assert!(close(e.upper, -570.0, 0.5), "{e:?}");
        // Wins and draws only: the normal interval runs past 100%, so the upper bound is +inf.
        let e = MatchScore::new(9, 1, 0).elo().unwrap();
        assert!(e.elo.is_finite() && e.lower.is_finite());
        assert_eq!(e.upper, f64::INFINITY);
    }

    #[test]
    fn no_games_has_no_estimate() {
        assert_eq!(MatchScore::default().elo(), None);
        assert_eq!(MatchScore::default().los(), 0.5);
    }

    #[test]
    fn elo_and_score_are_inverse() {
        for elo in [-800.0, -100.0, 0.0, 35.0, 400.0] {
            assert!(close(elo_from_score(score_from_elo(elo)), elo, 1e-9));
        }
        assert!(close(score_from_elo(400.0), 10.0 / 11.0, 1e-12));
    }

    #[test]
    fn likelihood_of_superiority_hand_cases() {
        assert!(close(likelihood_of_superiority(30, 30), 0.5, 1e-7));
        // 10-5: erf(5 / sqrt(30)) = erf(0.912871) = 0.803294 -> 0.901647.
        assert!(close(likelihood_of_superiority(10, 5), 0.901_647, 1e-5));
        assert!(close(
            likelihood_of_superiority(5, 10),
            1.0 - 0.901_647,
            1e-5
        ));
        assert!(likelihood_of_superiority(60, 20) > 0.9999);
    }
}
