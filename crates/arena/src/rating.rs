//! One Elo scale from many matches: a maximum-likelihood fit over the whole result table.
//!
//! Pairwise Elo ([`crate::elo`]) answers "how much stronger is A than B" from one match. To
//! place many players on one scale from every game they played against anybody, [`fit`] takes
//! the table of results and finds the ratings under which those results are most likely, the
//! way BayesElo and Ordo do. The model is BayesElo's: with `d` the rating difference of A over
//! B and `δ` (the *draw Elo*) one number for the whole table,
//!
//! ```text
//! P(A wins)  = F(d - δ)        P(B wins) = F(-d - δ)        P(draw) = 1 - P(A wins) - P(B wins)
//! F(x) = 1 / (1 + 10^(-x / 400))
//! ```
//!
//! so two equal players draw with probability `1 - 2 F(-δ)`, and a larger `δ` means more draws.
//! `δ` is estimated from the games (the likelihood is maximised over it too), unless fixed.
//! Colours are not modelled: the rating harness plays every opening with both colour
//! assignments, so a first-move advantage cancels.
//!
//! **Prior.** Each pair of players that met gets [`FitOptions::prior_games`] virtual games
//! (default 2), scored a quarter as wins, half as draws and a quarter as losses: a prior of
//! even strength, like BayesElo's virtual draws, that also keeps the draw Elo finite (with
//! draws alone, a pair with no win would let `δ` grow without bound). It keeps a perfect score
//! finite (about +500 to +800 for 100 straight wins, where the plain estimate is infinite) and
//! barely moves anything else.
//!
//! **Anchor.** Ratings are defined up to a constant; the anchor player is fixed at 0 and every
//! other rating is relative to it.
//!
//! **Intervals.** The covariance of the ratings is the inverse of the observed information (the
//! negative Hessian of the log-likelihood at the optimum, with `δ` held at its estimate); a
//! player's 95% interval is `elo ± 1.96 sd`, relative to the anchor. The covariance is returned
//! too, so the interval of any difference `e_i - e_j` can be computed
//! ([`Fit::difference_sd`]).
//!
//! The fit is Newton's method with step halving on a concave log-likelihood (every term is
//! log-concave in the rating difference), then a golden-section search over `δ`.

use crate::elo::{MatchScore, Z_95};

/// Games between two players, from the first one's side.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pairing {
    /// Index of player A.
    pub a: usize,
    /// Index of player B.
    pub b: usize,
    /// A's wins, draws and losses against B.
    pub score: MatchScore,
}

/// How to fit.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FitOptions {
    /// The player whose rating is 0.
    pub anchor: usize,
    /// Virtual games added to every pair that played, a quarter won, half drawn, a quarter
    /// lost (0 for the plain maximum likelihood).
    pub prior_games: f64,
    /// The draw Elo `δ`; `None` estimates it from the games.
    pub draw_elo: Option<f64>,
}

impl FitOptions {
    /// The default prior: two virtual games per pair that met.
    pub const DEFAULT_PRIOR_GAMES: f64 = 2.0;
    /// Largest draw Elo the estimate considers (a draw rate of 99.5% between equals).
    pub const MAX_DRAW_ELO: f64 = 1_200.0;

    /// Anchored at player `anchor`, the default prior, `δ` estimated.
    pub fn anchored(anchor: usize) -> FitOptions {
        FitOptions {
            anchor,
            prior_games: Self::DEFAULT_PRIOR_GAMES,
            draw_elo: None,
        }
    }
}

/// Why a table of results could not be fitted.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum FitError {
    /// A pairing names a player that does not exist, or a player against itself.
    #[error(
        "pairing {index}: players {a} and {b} (there are {players}; a player cannot meet itself)"
    )]
    BadPairing {
        /// Index of the pairing.
        index: usize,
        /// Its player A.
        a: usize,
        /// Its player B.
        b: usize,
        /// How many players there are.
        players: usize,
    },
    /// The anchor is not a player.
    #[error("the anchor {anchor} is not one of the {players} players")]
    BadAnchor {
        /// The anchor given.
        anchor: usize,
        /// How many players there are.
        players: usize,
    },
    /// Some players are not linked to the anchor by any chain of games.
    #[error(
        "players {0:?} have no chain of games to the anchor, so they cannot be placed on its scale"
    )]
    NotConnected(Vec<usize>),
    /// A fixed draw Elo that is negative, too large or not a number.
    #[error("the draw Elo must be a number from 0 to 1200, got {0}")]
    BadDrawElo(f64),
    /// A player has no result but wins (or none but losses) and there is no prior: its
    /// maximum-likelihood rating is infinite.
    #[error(
        "player {0} has only wins or only losses: its rating is infinite without a prior (use prior games > 0)"
    )]
    Unbounded(usize),
}

/// The fitted ratings.
#[derive(Clone, Debug, PartialEq)]
pub struct Fit {
    /// Rating of each player, the anchor at 0.
    pub elo: Vec<f64>,
    /// Standard deviation of each rating relative to the anchor (0 for the anchor).
    pub sd: Vec<f64>,
    /// Covariance of the ratings (row and column of the anchor are 0).
    pub covariance: Vec<Vec<f64>>,
    /// The draw Elo used (estimated or fixed).
    pub draw_elo: f64,
    /// Log-likelihood of the games (prior included) at the fit.
    pub log_likelihood: f64,
}

impl Fit {
    /// The 95% interval of player `i`'s rating: `(lower, upper)`.
    pub fn interval(&self, i: usize) -> (f64, f64) {
        (
            self.elo[i] - Z_95 * self.sd[i],
            self.elo[i] + Z_95 * self.sd[i],
        )
    }

    /// Standard deviation of `elo[i] - elo[j]`.
    pub fn difference_sd(&self, i: usize, j: usize) -> f64 {
        let c = &self.covariance;
        (c[i][i] + c[j][j] - 2.0 * c[i][j]).max(0.0).sqrt()
    }

    /// The expected score of player `i` against player `j` under the fit (draws count half).
    pub fn expected_score(&self, i: usize, j: usize) -> f64 {
        let (win, draw, _) = outcome_probabilities(self.elo[i] - self.elo[j], self.draw_elo);
        win + draw / 2.0
    }
}

/// Probabilities of a win, a draw and a loss for a player `d` Elo stronger, with draw Elo
/// `draw_elo` (the model of the [module docs](self)).
pub fn outcome_probabilities(d: f64, draw_elo: f64) -> (f64, f64, f64) {
    let win = logistic(K * (d - draw_elo));
    let loss = logistic(K * (-d - draw_elo));
    (win, (1.0 - win - loss).max(0.0), loss)
}

/// Natural units per Elo point: `F(x) = logistic(K x)`.
const K: f64 = std::f64::consts::LN_10 / 400.0;

fn logistic(x: f64) -> f64 {
    if x >= 0.0 {
        1.0 / (1.0 + (-x).exp())
    } else {
        let e = x.exp();
        e / (1.0 + e)
    }
}

/// `ln logistic(x)`, accurate far into both tails.
fn ln_logistic(x: f64) -> f64 {
    if x >= 0.0 {
        -(-x).exp().ln_1p()
    } else {
        x - x.exp().ln_1p()
    }
}

/// Counts of one pair with the prior added: (wins, draws, losses) of A.
#[derive(Clone, Copy, Debug)]
struct Counts {
    a: usize,
    b: usize,
    wins: f64,
    draws: f64,
    losses: f64,
}

/// Log-likelihood of one pair's counts at rating difference `x` (natural units) and draw
/// parameter `t` (natural units), with its first and second derivatives in `x`.
fn pair_terms(c: &Counts, x: f64, t: f64) -> (f64, f64, f64) {
    let (mut value, mut first, mut second) = (0.0, 0.0, 0.0);
    if c.wins > 0.0 {
        // ln F(x - t): derivative F(t - x), second -F(x - t) F(t - x).
        value += c.wins * ln_logistic(x - t);
        first += c.wins * logistic(t - x);
        second -= c.wins * logistic(x - t) * logistic(t - x);
    }
    if c.losses > 0.0 {
        // ln F(-x - t): derivative -F(x + t), second -F(x + t) F(-x - t).
        value += c.losses * ln_logistic(-x - t);
        first -= c.losses * logistic(x + t);
        second -= c.losses * logistic(x + t) * logistic(-x - t);
    }
    if c.draws > 0.0 {
        // D = F(t - x) - F(-t - x), the probability that a logistic variable falls in
        // [x - t, x + t] shifted: log-concave in x.
        let (u, v) = (t - x, -t - x);
        let density = |z: f64| logistic(z) * logistic(-z);
        let slope = |z: f64| density(z) * (1.0 - 2.0 * logistic(z));
        let d = (logistic(u) - logistic(v)).max(f64::MIN_POSITIVE);
        let d1 = -density(u) + density(v);
        let d2 = slope(u) - slope(v);
        let g1 = d1 / d;
        value += c.draws * d.ln();
        first += c.draws * g1;
        second += c.draws * (d2 / d - g1 * g1);
    }
    (value, first, second)
}

/// Places every player on one scale from `pairings` (see the [module docs](self)).
/// `players` is the number of players; every one must be linked to the anchor by games.
pub fn fit(players: usize, pairings: &[Pairing], options: &FitOptions) -> Result<Fit, FitError> {
    if options.anchor >= players {
        return Err(FitError::BadAnchor {
            anchor: options.anchor,
            players,
        });
    }
    let counts = collect_counts(players, pairings, options.prior_games)?;
    check_connected(players, &counts, options.anchor)?;
    if options.prior_games <= 0.0 {
        check_bounded(players, &counts)?;
    }
    let solve =
        |draw_elo: f64, start: &[f64]| newton(players, &counts, options.anchor, draw_elo, start);
    let zeros = vec![0.0; players];
    let draw_elo = match options.draw_elo {
        Some(d) if d.is_finite() && (0.0..=FitOptions::MAX_DRAW_ELO).contains(&d) => d,
        Some(d) => return Err(FitError::BadDrawElo(d)),
        None => {
            let any_draws = counts.iter().any(|c| c.draws > 0.0);
            if any_draws {
                golden_section(0.0, FitOptions::MAX_DRAW_ELO, |d| solve(d, &zeros).1)
            } else {
                0.0
            }
        }
    };
    let (elo, log_likelihood) = solve(draw_elo, &zeros);
    let covariance = covariance(players, &counts, options.anchor, draw_elo, &elo);
    let sd = (0..players)
        .map(|i| covariance[i][i].max(0.0).sqrt())
        .collect();
    Ok(Fit {
        elo,
        sd,
        covariance,
        draw_elo,
        log_likelihood,
    })
}

/// Merges the pairings into one count per unordered pair, with the prior games.
fn collect_counts(
    players: usize,
    pairings: &[Pairing],
    prior_games: f64,
) -> Result<Vec<Counts>, FitError> {
    let prior = prior_games.max(0.0);
    let mut counts: Vec<Counts> = Vec::new();
    for (index, p) in pairings.iter().enumerate() {
        if p.a >= players || p.b >= players || p.a == p.b {
            return Err(FitError::BadPairing {
                index,
                a: p.a,
                b: p.b,
                players,
            });
        }
        if p.score.games() == 0 {
            continue;
        }
        let (a, b, wins, losses) = if p.a < p.b {
            (p.a, p.b, p.score.wins, p.score.losses)
        } else {
            (p.b, p.a, p.score.losses, p.score.wins)
        };
        let entry = match counts.iter_mut().find(|c| c.a == a && c.b == b) {
            Some(entry) => entry,
            None => {
                counts.push(Counts {
                    a,
                    b,
                    wins: prior / 4.0,
                    draws: prior / 2.0,
                    losses: prior / 4.0,
                });
                counts.last_mut().expect("just pushed")
            }
        };
        entry.wins += f64::from(wins);
        entry.draws += f64::from(p.score.draws);
        entry.losses += f64::from(losses);
    }
    Ok(counts)
}

fn check_connected(players: usize, counts: &[Counts], anchor: usize) -> Result<(), FitError> {
    let mut reached = vec![false; players];
    reached[anchor] = true;
    let mut stack = vec![anchor];
    while let Some(p) = stack.pop() {
        for c in counts {
            let other = if c.a == p {
                c.b
            } else if c.b == p {
                c.a
            } else {
                continue;
            };
            if !reached[other] {
                reached[other] = true;
                stack.push(other);
            }
        }
    }
    let missing: Vec<usize> = (0..players).filter(|&p| !reached[p]).collect();
    if missing.is_empty() {
        Ok(())
    } else {
        Err(FitError::NotConnected(missing))
    }
}

/// Without a prior, a player with only wins or only losses has no finite estimate.
fn check_bounded(players: usize, counts: &[Counts]) -> Result<(), FitError> {
    for p in 0..players {
        let (mut up, mut down) = (0.0, 0.0);
        for c in counts {
            if c.a == p {
                up += c.wins;
                down += c.losses;
            } else if c.b == p {
                up += c.losses;
                down += c.wins;
            } else {
                continue;
            }
            // A draw bounds the rating from both sides.
            up += c.draws;
            down += c.draws;
        }
        if up == 0.0 || down == 0.0 {
            return Err(FitError::Unbounded(p));
        }
    }
    Ok(())
}

/// Log-likelihood, gradient and Hessian (in Elo units) at ratings `elo`.
fn derivatives(
    players: usize,
    counts: &[Counts],
    draw_elo: f64,
    elo: &[f64],
) -> (f64, Vec<f64>, Vec<Vec<f64>>) {
    let mut value = 0.0;
    let mut gradient = vec![0.0; players];
    let mut hessian = vec![vec![0.0; players]; players];
    let t = K * draw_elo;
    for c in counts {
        let (v, g, h) = pair_terms(c, K * (elo[c.a] - elo[c.b]), t);
        value += v;
        gradient[c.a] += K * g;
        gradient[c.b] -= K * g;
        let h = K * K * h;
        hessian[c.a][c.a] += h;
        hessian[c.b][c.b] += h;
        hessian[c.a][c.b] -= h;
        hessian[c.b][c.a] -= h;
    }
    (value, gradient, hessian)
}

fn log_likelihood(counts: &[Counts], draw_elo: f64, elo: &[f64]) -> f64 {
    let t = K * draw_elo;
    counts
        .iter()
        .map(|c| pair_terms(c, K * (elo[c.a] - elo[c.b]), t).0)
        .sum()
}

/// The free players: everyone but the anchor.
fn free(players: usize, anchor: usize) -> Vec<usize> {
    (0..players).filter(|&p| p != anchor).collect()
}

/// Maximises the log-likelihood over the ratings at a fixed draw Elo, from `start`.
fn newton(
    players: usize,
    counts: &[Counts],
    anchor: usize,
    draw_elo: f64,
    start: &[f64],
) -> (Vec<f64>, f64) {
    let free = free(players, anchor);
    let mut elo = start.to_vec();
    elo[anchor] = 0.0;
    let mut value = log_likelihood(counts, draw_elo, &elo);
    for _ in 0..200 {
        let (_, gradient, hessian) = derivatives(players, counts, draw_elo, &elo);
        // Solve (-H) step = g over the free players.
        let matrix: Vec<Vec<f64>> = free
            .iter()
            .map(|&i| free.iter().map(|&j| -hessian[i][j]).collect())
            .collect();
        let rhs: Vec<f64> = free.iter().map(|&i| gradient[i]).collect();
        let Some(step) = solve_linear(matrix, rhs) else {
            break;
        };
        let mut scale = 1.0;
        let mut improved = false;
        for _ in 0..40 {
            let mut trial = elo.clone();
            for (k, &i) in free.iter().enumerate() {
                trial[i] += scale * step[k];
            }
            let trial_value = log_likelihood(counts, draw_elo, &trial);
            if trial_value >= value {
                elo = trial;
                value = trial_value;
                improved = true;
                break;
            }
            scale /= 2.0;
        }
        let size = step.iter().fold(0.0f64, |m, s| m.max(s.abs())) * scale;
        if !improved || size < 1e-7 {
            break;
        }
    }
    (elo, value)
}

/// The inverse of the observed information over the free players, embedded in a full matrix.
fn covariance(
    players: usize,
    counts: &[Counts],
    anchor: usize,
    draw_elo: f64,
    elo: &[f64],
) -> Vec<Vec<f64>> {
    let free = free(players, anchor);
    let (_, _, hessian) = derivatives(players, counts, draw_elo, elo);
    let mut full = vec![vec![0.0; players]; players];
    for (col, &j) in free.iter().enumerate() {
        let matrix: Vec<Vec<f64>> = free
            .iter()
            .map(|&r| free.iter().map(|&c| -hessian[r][c]).collect())
            .collect();
        let mut unit = vec![0.0; free.len()];
        unit[col] = 1.0;
        let column = solve_linear(matrix, unit).unwrap_or_else(|| vec![f64::INFINITY; free.len()]);
        for (row, &i) in free.iter().enumerate() {
            full[i][j] = column[row];
        }
    }
    full
}

/// Solves `m x = rhs` by Gaussian elimination with partial pivoting; `None` when singular.
fn solve_linear(mut m: Vec<Vec<f64>>, mut rhs: Vec<f64>) -> Option<Vec<f64>> {
    let n = rhs.len();
    for col in 0..n {
        let pivot = (col..n).max_by(|&a, &b| m[a][col].abs().total_cmp(&m[b][col].abs()))?;
        if m[pivot][col].abs() < 1e-300 || !m[pivot][col].is_finite() {
            return None;
        }
        m.swap(col, pivot);
        rhs.swap(col, pivot);
        let (upper, lower) = m.split_at_mut(col + 1);
        let pivot_row = &upper[col];
        for (offset, row) in lower.iter_mut().enumerate() {
            let factor = row[col] / pivot_row[col];
            if factor != 0.0 {
                for (x, p) in row[col..].iter_mut().zip(&pivot_row[col..]) {
                    *x -= factor * p;
                }
                rhs[col + 1 + offset] -= factor * rhs[col];
            }
        }
    }
    let mut x = vec![0.0; n];
    for row in (0..n).rev() {
        let tail: f64 = (row + 1..n).map(|k| m[row][k] * x[k]).sum();
        x[row] = (rhs[row] - tail) / m[row][row];
    }
    x.iter().all(|v| v.is_finite()).then_some(x)
}

/// The `x` in `[lo, hi]` maximising a unimodal `f`, to within 0.01.
fn golden_section(mut lo: f64, mut hi: f64, f: impl Fn(f64) -> f64) -> f64 {
    let ratio = (5f64.sqrt() - 1.0) / 2.0;
    let mut x1 = hi - ratio * (hi - lo);
    let mut x2 = lo + ratio * (hi - lo);
    let (mut f1, mut f2) = (f(x1), f(x2));
    while hi - lo > 0.01 {
        if f1 < f2 {
            lo = x1;
            x1 = x2;
            f1 = f2;
            x2 = lo + ratio * (hi - lo);
            f2 = f(x2);
        } else {
            hi = x2;
            x2 = x1;
            f2 = f1;
            x1 = hi - ratio * (hi - lo);
            f1 = f(x1);
        }
    }
    (lo + hi) / 2.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn derivatives_match_finite_differences() {
        let c = Counts {
            a: 0,
            b: 1,
            wins: 7.0,
            draws: 5.0,
            losses: 3.0,
        };
        let t = K * 80.0;
        for x in [-3.0, -0.4, 0.0, 0.3, 2.5] {
            let h = 1e-5;
            let (v, g, s) = pair_terms(&c, x, t);
            let (vp, gp, _) = pair_terms(&c, x + h, t);
            let (vm, gm, _) = pair_terms(&c, x - h, t);
            assert!((g - (vp - vm) / (2.0 * h)).abs() < 1e-5, "x {x}: {g}");
            assert!((s - (gp - gm) / (2.0 * h)).abs() < 1e-5, "x {x}: {s}");
            assert!(v.is_finite() && s < 0.0);
        }
    }

    #[test]
    fn linear_solver_and_golden_section() {
        let x = solve_linear(vec![vec![2.0, 1.0], vec![1.0, 3.0]], vec![3.0, 5.0]).unwrap();
        assert!(
            (x[0] - 0.8).abs() < 1e-12 && (x[1] - 1.4).abs() < 1e-12,
            "{x:?}"
        );
        assert!(solve_linear(vec![vec![1.0, 2.0], vec![2.0, 4.0]], vec![1.0, 1.0]).is_none());
        let best = golden_section(0.0, 10.0, |x| -(x - 3.7) * (x - 3.7));
        assert!((best - 3.7).abs() < 0.01, "{best}");
    }

    #[test]
    fn probabilities_sum_to_one_and_favour_the_stronger() {
        for (d, delta) in [(0.0, 0.0), (100.0, 50.0), (-300.0, 200.0)] {
            let (w, dr, l) = outcome_probabilities(d, delta);
            assert!((w + dr + l - 1.0).abs() < 1e-12);
            assert_eq!(w > l, d > 0.0, "{d}");
        }
        let (w, dr, l) = outcome_probabilities(0.0, 0.0);
        assert!((w - 0.5).abs() < 1e-12 && dr.abs() < 1e-12 && (l - 0.5).abs() < 1e-12);
    }
}
