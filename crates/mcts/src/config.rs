//! Search parameters. [`SearchConfig`] is embedded in the training config file, so every field
//! has a default and a serde name; missing fields take their [`Default`] value.

use serde::{Deserialize, Serialize};

/// Which root algorithm the search runs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Algorithm {
    /// AlphaZero PUCT everywhere, with Dirichlet noise at the root and a visit-count policy target.
    #[default]
    Puct,
    /// Gumbel root search (Danihelka et al. 2022): Gumbel-top-k sampling and sequential halving at
    /// the root, deterministic improved-policy selection below it, and the completed-Q improved
    /// policy as the training target. Built for small budgets (8 to 32 simulations).
    Gumbel,
}

/// Temperature used to pick the move to play from the PUCT visit counts.
///
/// Plies count actions applied through [`Search::advance`](crate::Search::advance) since the search
/// was created, so one Fanorona turn with a capture chain counts several plies. Ignored by the
/// Gumbel algorithm, whose move is the sequential-halving winner (its Gumbel noise already
/// explores).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TemperatureSchedule {
    /// Temperature for the first `opening_plies` plies. 1 samples in proportion to visits.
    pub opening: f32,
    /// How many plies use the `opening` temperature.
    pub opening_plies: u32,
    /// Temperature afterwards. 0 (or anything below 1e-3) plays the most visited action.
    pub later: f32,
}

impl Default for TemperatureSchedule {
    fn default() -> Self {
        TemperatureSchedule {
            opening: 1.0,
            opening_plies: 20,
            later: 0.0,
        }
    }
}

impl TemperatureSchedule {
    /// The temperature to use at the given ply.
    pub fn at(&self, ply: u32) -> f32 {
        if ply < self.opening_plies {
            self.opening
        } else {
            self.later
        }
    }

    /// Always play the most visited action.
    pub fn greedy() -> Self {
        TemperatureSchedule {
            opening: 0.0,
            opening_plies: 0,
            later: 0.0,
        }
    }
}

/// Parameters of the Gumbel root search (only read when `algorithm` is `gumbel`).
///
/// `sigma(q) = (c_visit + max_b N(b)) * c_scale * q`, where `q` is a completed Q-value (the mixed
/// value approximation stands in for unvisited actions), min-max rescaled to [0, 1] over the
/// node's children when `rescale_values` is on. The defaults are those of DeepMind's `mctx`
/// (`c_visit` 50, `c_scale` 0.1, rescaling on); the paper's Go runs used `c_scale` 1.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct GumbelConfig {
    /// Number of root actions sampled without replacement (Gumbel-top-k) and then halved; the
    /// paper's `m`. Capped by the number of legal actions.
    pub max_considered_actions: u32,
    /// `c_visit` of sigma: the larger, the more the Q-values outweigh the prior from the start.
    pub c_visit: f32,
    /// `c_scale` of sigma.
    pub c_scale: f32,
    /// Min-max rescale completed Q-values to [0, 1] over the children before applying sigma.
    pub rescale_values: bool,
    /// Add Gumbel(0, 1) noise to the root logits. On for self-play; off gives a deterministic
    /// search for evaluation matches.
    pub noise: bool,
}

impl Default for GumbelConfig {
    fn default() -> Self {
        GumbelConfig {
            max_considered_actions: 16,
            c_visit: 50.0,
            c_scale: 0.1,
            rescale_values: true,
            noise: true,
        }
    }
}

/// Every parameter of one search. The defaults are self-play settings (root noise and an opening
/// temperature); [`SearchConfig::for_match`] turns the randomness off for evaluation games.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SearchConfig {
    /// PUCT or Gumbel root search.
    pub algorithm: Algorithm,
    /// Simulations (leaf evaluations or terminal visits) added by one search. The evaluation of a
    /// fresh root counts as one. Visits kept by tree reuse do not count.
    pub simulations: u32,
    /// Most leaves one search collects (under virtual loss) before asking for evaluations. 1 gives
    /// plain sequential MCTS; larger values trade a little search quality for bigger batches.
    pub batch_size: u32,
    /// Most selections per batch that end on a leaf already waiting for its evaluation. Such
    /// collisions add no visits; their virtual loss steers the next selections elsewhere until
    /// the batch is evaluated. When the limit is hit the batch is sent as it is.
    pub max_collisions: u32,
    /// Exploration constant of PUCT: `U = c_puct * P * sqrt(N_parent) / (1 + N_child)`, with
    /// values on the [-1, 1] scale.
    pub c_puct: f32,
    /// First-play urgency below the root: an unvisited child is valued at the parent's value
    /// minus `fpu_reduction * sqrt(sum of the priors of the visited children)`.
    pub fpu_reduction: f32,
    /// The same reduction at the root (usually smaller, so noise-boosted moves get tried).
    pub root_fpu_reduction: f32,
    /// Virtual loss: each selection still waiting for its evaluation counts as this many visits
    /// valued as losses for the player choosing at each node of its path.
    pub virtual_loss: f32,
    /// Concentration of the symmetric Dirichlet noise mixed into the root priors (per action).
    pub dirichlet_alpha: f32,
    /// Weight of that noise: `P = (1 - w) * P + w * noise`. 0 turns it off. PUCT only.
    pub dirichlet_weight: f32,
    /// Keep the subtree of the played action between searches.
    pub reuse_tree: bool,
    /// MCTS-Solver: results proven in the tree (terminal wins, and the endgame tables' where
    /// the state reports them as terminal) are carried up, a proven node is valued exactly, a
    /// proven root ends the search, and the move played is a proven win where there is one
    /// and never a proven loss where another move is not.
    pub solver: bool,
    /// Temperature used to pick the move from PUCT visit counts.
    pub temperature: TemperatureSchedule,
    /// Gumbel root search parameters.
    pub gumbel: GumbelConfig,
}

impl Default for SearchConfig {
    fn default() -> Self {
        SearchConfig {
            algorithm: Algorithm::Puct,
            simulations: 200,
            batch_size: 8,
            max_collisions: 8,
            c_puct: 1.25,
            fpu_reduction: 0.2,
            root_fpu_reduction: 0.1,
            virtual_loss: 1.0,
            dirichlet_alpha: 0.3,
            dirichlet_weight: 0.25,
            reuse_tree: true,
            solver: true,
            temperature: TemperatureSchedule::default(),
            gumbel: GumbelConfig::default(),
        }
    }
}

/// A search parameter out of its range.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("search config: `{field}` is {value}, but it {requirement}")]
pub struct ConfigError {
    /// The offending field, as named in the config file.
    pub field: &'static str,
    /// Its value, printed.
    pub value: String,
    /// What it must satisfy.
    pub requirement: &'static str,
}

impl SearchConfig {
    /// This configuration with all randomness off: no Dirichlet or Gumbel noise, greedy move
    /// choice. For evaluation matches and analysis.
    pub fn for_match(mut self) -> Self {
        self.dirichlet_weight = 0.0;
        self.gumbel.noise = false;
        self.temperature = TemperatureSchedule::greedy();
        self
    }

    /// Most simulations one search may be asked for (beyond it a tree would not fit in memory).
    pub const MAX_SIMULATIONS: u32 = 10_000_000;
    /// Most leaves one search collects per evaluator call.
    pub const MAX_BATCH_SIZE: u32 = 4096;

    /// Checks every field's range.
    pub fn validate(&self) -> Result<(), ConfigError> {
        let bad = |field, value: &dyn ToString, requirement| ConfigError {
            field,
            value: value.to_string(),
            requirement,
        };
        if !(1..=Self::MAX_SIMULATIONS).contains(&self.simulations) {
            return Err(bad(
                "simulations",
                &self.simulations,
                "must be 1 to 10000000",
            ));
        }
        if !(1..=Self::MAX_BATCH_SIZE).contains(&self.batch_size) {
            return Err(bad("batch_size", &self.batch_size, "must be 1 to 4096"));
        }
        if self.gumbel.max_considered_actions < 1 {
            let m = self.gumbel.max_considered_actions;
            return Err(bad(
                "gumbel.max_considered_actions",
                &m,
                "must be at least 1",
            ));
        }
        if !(0.0..=1.0).contains(&self.dirichlet_weight) {
            let w = self.dirichlet_weight;
            return Err(bad("dirichlet_weight", &w, "must lie in [0, 1]"));
        }
        let alpha = self.dirichlet_alpha;
        if self.dirichlet_weight != 0.0 && !(alpha.is_finite() && alpha > 0.0) {
            let requirement = "must be finite and > 0 when dirichlet_weight > 0";
            return Err(bad("dirichlet_alpha", &alpha, requirement));
        }
        let non_negative = [
            ("c_puct", self.c_puct),
            ("fpu_reduction", self.fpu_reduction),
            ("root_fpu_reduction", self.root_fpu_reduction),
            ("virtual_loss", self.virtual_loss),
            ("temperature.opening", self.temperature.opening),
            ("temperature.later", self.temperature.later),
            ("gumbel.c_visit", self.gumbel.c_visit),
            ("gumbel.c_scale", self.gumbel.c_scale),
        ];
        match non_negative
            .into_iter()
            .find(|(_, x)| !(x.is_finite() && *x >= 0.0))
        {
            Some((field, x)) => Err(bad(field, &x, "must be finite and >= 0")),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_is_valid_and_match_config_has_no_randomness() {
        SearchConfig::default().validate().unwrap();
        let m = SearchConfig::default().for_match();
        m.validate().unwrap();
        assert_eq!(m.dirichlet_weight, 0.0);
        assert!(!m.gumbel.noise);
        assert_eq!(m.temperature.at(0), 0.0);
    }

    #[test]
    fn validation_names_the_field() {
        let cfg = SearchConfig {
            batch_size: 0,
            ..SearchConfig::default()
        };
        let err = cfg.validate().unwrap_err();
        assert_eq!(err.field, "batch_size");
        assert!(err.to_string().contains("batch_size"));
        let cfg = SearchConfig {
            dirichlet_weight: 1.5,
            ..SearchConfig::default()
        };
        assert_eq!(cfg.validate().unwrap_err().field, "dirichlet_weight");
    }

    #[test]
    fn temperature_schedule_switches_after_opening() {
        let t = TemperatureSchedule {
            opening: 1.0,
            opening_plies: 3,
            later: 0.25,
        };
        assert_eq!(t.at(0), 1.0);
        assert_eq!(t.at(2), 1.0);
        assert_eq!(t.at(3), 0.25);
    }

    #[test]
    fn partial_config_files_take_defaults() {
        let cfg: SearchConfig = serde_json::from_str(
            r#"{"algorithm": "gumbel", "simulations": 16, "gumbel": {"c_scale": 1.0}}"#,
        )
        .unwrap();
        assert_eq!(cfg.algorithm, Algorithm::Gumbel);
        assert_eq!(cfg.simulations, 16);
        assert_eq!(cfg.gumbel.c_scale, 1.0);
        assert_eq!(cfg.gumbel.c_visit, GumbelConfig::default().c_visit);
        assert_eq!(cfg.batch_size, SearchConfig::default().batch_size);
        let round_trip: SearchConfig =
            serde_json::from_str(&serde_json::to_string(&cfg).unwrap()).unwrap();
        assert_eq!(round_trip, cfg);
        assert!(serde_json::from_str::<SearchConfig>(r#"{"simulation": 16}"#).is_err());
    }
}
