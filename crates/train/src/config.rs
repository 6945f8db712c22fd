//! The training configuration file (TOML).
//!
//! Every section and key is documented where it is declared; unknown keys are rejected and
//! every value is validated, so a typo or a bad value names the key and the problem instead of
//! silently training with a default. Missing keys take the defaults shown in
//! `configs/default.toml`.

use std::path::Path;

use fanorona_mcts::{Algorithm, SearchConfig};
use fanorona_net::NetConfig;
use serde::{Deserialize, Serialize};

/// A configuration problem: the file, the key and what is wrong.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ConfigError {
    /// The file could not be read.
    #[error("cannot read config {path}: {message}")]
    Read {
        /// The file.
        path: String,
        /// The operating system's message.
        message: String,
    },
    /// Not valid TOML, an unknown key, or a value of the wrong type.
    #[error("config {path}: {message}")]
    Parse {
        /// The file.
        path: String,
        /// The parser's message (with line and column).
        message: String,
    },
    /// A value out of range.
    #[error("config {path}: `{key}` = {value}: {problem}")]
    Invalid {
        /// The file.
        path: String,
        /// Dotted key, e.g. `selfplay.concurrent_games`.
        key: String,
        /// The value found.
        value: String,
        /// What it must be.
        problem: String,
    },
}

/// The whole training configuration.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TrainConfig {
    /// Name of the run; `fanorona train` puts it in `runs/<name>` unless `--run-dir` says
    /// otherwise.
    pub name: String,
    /// Master seed. Initial weights, self-play games and sampling all derive from it, so a
    /// run is reproducible on the same machine and thread count.
    #[serde(default = "default_seed")]
    pub seed: u64,
    /// What the run trains: `network` (the policy/value network searched by MCTS, the
    /// default) or `eval` (the alpha-beta player's evaluation, see `[eval]`).
    #[serde(default)]
    pub kind: ModelKind,
    /// The evaluation a `kind = "eval"` run trains, and its self-play.
    #[serde(default)]
    pub eval: EvalSection,
    /// Game rules used in self-play and evaluation.
    #[serde(default)]
    pub rules: RulesSection,
    /// Network shape.
    #[serde(default)]
    pub model: NetConfig,
    /// Search used in self-play (see `fanorona_mcts::SearchConfig`).
    #[serde(default = "default_search")]
    pub search: SearchConfig,
    /// Self-play games.
    #[serde(default)]
    pub selfplay: SelfPlaySection,
    /// The replay window the trainer samples from.
    #[serde(default)]
    pub replay: ReplaySection,
    /// Optimisation.
    #[serde(default)]
    pub training: TrainingSection,
    /// Checkpoint writing and retention.
    #[serde(default)]
    pub checkpoints: CheckpointSection,
    /// Rating the checkpoints against fixed baselines.
    #[serde(default)]
    pub evaluation: EvaluationSection,
    /// Endgame tables in self-play.
    #[serde(default)]
    pub tablebase: TablebaseSection,
    /// The expert that teaches a network run first (expert iteration).
    #[serde(default)]
    pub expert: ExpertSection,
}

/// `[expert]`: the expert phase of a `kind = "network"` run (expert iteration: the apprentice
/// network learns the choices and scores of a stronger search).
///
/// Until the network has trained `until_steps` optimiser steps, a generation's games are
/// played by the alpha-beta player with the evaluation `evaluation`, `depth` turns deep, not by
/// the network's MCTS. Each game starts with `random_opening_turns` random turns, and after
/// them a share `random_turn_share` of the turns is played at random. At every searched turn
/// start the search scores each turn within `3 * temperature` centi-stones of the best exactly;
/// the policy target is the softmax of those scores over `temperature` (whole turns, spread
/// over the steps: a turn start and every state in the middle of the played chain are
/// samples), and the searched value `tanh(score / value_scale)` is the sample's search value,
/// weighted in the value target by `training.search_value_weight` against the game's result.
/// From `until_steps` on, self-play is the network's own, as without the section.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ExpertSection {
    /// Optimiser steps the expert teaches for (0: no expert phase, the default).
    pub until_steps: u64,
    /// The expert's evaluation: `learned` (the one this program ships) or an evaluation file.
    pub evaluation: String,
    /// Whole turns the expert searches (1 to 8).
    pub depth: u32,
    /// Capture turns its quiescence extension plays out below the depth (0 to 32).
    pub quiescence: u32,
    /// Centi-stones of score difference that make one turn e (2.718) times as likely as
    /// another in the policy target (5 to 1000).
    pub temperature: f32,
    /// Centi-stones of the expert's score read as the value `tanh(1)` (10 to 10000).
    pub value_scale: f32,
    /// Random turns from the start position before the expert searches (0 to 64).
    pub random_opening_turns: u32,
    /// Share of the later turns played at random, and not recorded (0 to 0.5).
    pub random_turn_share: f32,
}

impl Default for ExpertSection {
    fn default() -> Self {
        ExpertSection {
            until_steps: 0,
            evaluation: fanorona_specs::SHIPPED_EVAL.to_string(),
            depth: 4,
            quiescence: 4,
            temperature: 40.0,
            value_scale: 300.0,
            random_opening_turns: 4,
            random_turn_share: 0.05,
        }
    }
}

/// What a run trains.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ModelKind {
    /// The policy/value network, searched by MCTS in self-play (AlphaZero's design).
    #[default]
    Network,
    /// The alpha-beta player's evaluation, learned from alpha-beta self-play.
    Eval,
}

/// `[eval]`: the learned evaluation of a `kind = "eval"` run and its self-play.
///
/// Self-play: `selfplay.games_per_generation` games of the alpha-beta player with the current
/// evaluation (random weights at generation 0: it never sees the hand-written evaluation),
/// `depth` turns deep; each game starts with `random_opening_turns` random turns, and after
/// them a share `random_turn_share` of the turns is played at random so that games differ.
/// Every searched position is recorded with the search's score, then the game's result, and
/// the tables' exact result where they cover it; with `tree_positions`, that many nodes of
/// each search's tree too, with their scores and bounds. Training: the target winning chance is
/// `lambda * sigmoid(score / score_scale) + (1 - lambda) * result` (the exact result where the
/// tables know it, 1 or 0 for a forced win or loss), with `[training]`'s batch size,
/// learning rate, steps and device and `[replay]`'s window. Rating: `alphabeta:depth=<depth>`
/// with the new evaluation against `evaluation.baselines` and the previous checkpoint.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct EvalSection {
    /// What the evaluation reads: `"stones"` (each point with the mover's stone or the other
    /// side's, 90 inputs; what `eval=learned` ships) or `"lines"` (the contents of every three
    /// points in a row on a line of the board, 2,268 inputs, 84 on): `fanorona_eval::features`.
    pub inputs: fanorona_eval::Inputs,
    /// Units of the first hidden layer: 32, 64, 128 or 256.
    pub hidden1: usize,
    /// Units of the second hidden layer: 8, 16 or 32.
    pub hidden2: usize,
    /// Whole turns the self-play searches look ahead (1 to 8).
    pub depth: u32,
    /// Capture turns the quiescence extension plays out below the depth (0 to 32).
    pub quiescence: u32,
    /// Random turns from the start position before a self-play game is searched (0 to 64).
    pub random_opening_turns: u32,
    /// Share of the later turns played at random instead of searched (0 to 0.5).
    pub random_turn_share: f32,
    /// Centi-stones that read as one unit of the sigmoid turning a score into a winning chance.
    pub score_scale: f32,
    /// Share of the search score in the target (the rest is the game's result), 0 to 1.
    pub lambda: f32,
    /// Record only positions where the side to move has no capture (quiet positions, where
    /// the evaluation is what the search uses); `false` records every searched position.
    pub quiet_only: bool,
    /// Record, for each searched turn, the end of the search's principal variation instead of
    /// the position played from (TD-Leaf: the quiet position whose evaluation the search
    /// returned, with the root's score from its mover's view and the game's result for that
    /// mover); the position played from where the line cannot be followed back to it.
    pub pv_leaf: bool,
    /// Nodes of each self-play search's tree kept as examples besides the position played
    /// from (0 to 256; 0: the played positions alone). Drawn at random among the nodes of the
    /// search's deepest iteration, each with its score and whether that score is exact or a
    /// bound (TreeStrap: the loss of a bound counts only a prediction on its wrong side).
    pub tree_positions: u32,
    /// The shallowest node kept by `tree_positions`, in turns searched below it (1 to 8): 2
    /// keeps only nodes whose score is itself a search of two turns or more.
    pub tree_min_depth: u32,
    /// The deepest the teacher (the self-play search) grows to, in turns (0 or at most
    /// `depth`: it stays at `depth`). It searches one turn deeper whenever the in-run ratings
    /// against the previous checkpoint flatten (see `deepen_after` and `deepen_below`).
    pub depth_max: u32,
    /// In-run ratings against the previous checkpoint pooled to judge whether learning has
    /// flattened (1 to 100).
    pub deepen_after: u32,
    /// The pooled score against the previous checkpoint below which learning counts as
    /// flattened and the teacher deepens (0.5 to 1; 1 deepens after every `deepen_after`
    /// ratings, whatever they scored).
    pub deepen_below: f32,
    /// Self-play searched by Descent instead of alpha-beta (0: alpha-beta `depth` turns deep):
    /// best-first minimax with completion (`fanorona_players::descent`), at least this many
    /// positions expanded a turn (1 to 1,000,000), one tree for the whole game; every position
    /// the game's tree expanded is an example with its backed-up value (the exact result where
    /// the tree resolved it), the positions played from with the result blended in as usual.
    pub descent_nodes: u32,
    /// Share of the expanded positions of a Descent game kept as examples, drawn at random
    /// (0 to 1; the positions played from are always kept).
    pub descent_keep: f32,
}

impl Default for EvalSection {
    fn default() -> Self {
        EvalSection {
            inputs: fanorona_eval::Inputs::Stones,
            hidden1: 64,
            hidden2: 16,
            depth: 3,
            quiescence: 4,
            random_opening_turns: 6,
            random_turn_share: 0.05,
            score_scale: 200.0,
            lambda: 0.5,
            quiet_only: false,
            pv_leaf: false,
            tree_positions: 0,
            tree_min_depth: 1,
            depth_max: 0,
            deepen_after: 5,
            deepen_below: 0.55,
            descent_nodes: 0,
            descent_keep: 1.0,
        }
    }
}

/// `[tablebase]`: endgame tables in self-play. A game that reaches a position the tables
/// cover ends there with the table's result (every sample of the game gets it as its value
/// target), and the searches of such games score covered positions exactly instead of asking
/// the network.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TablebaseSection {
    /// Directory of the tables (`fanorona tablebase build`); `""` trains without tables.
    /// A relative path is relative to the working directory.
    pub dir: String,
    /// When the directory holds fewer, build every class up to this many stones before the
    /// first self-play (0 = never build; 5 stones take about 15 s and 11 MB).
    pub build_stones: usize,
    /// Share of games that play on past the tables, searched without them, so that the
    /// network keeps learning endgames.
    pub play_on_fraction: f32,
}

impl Default for TablebaseSection {
    fn default() -> Self {
        TablebaseSection {
            dir: "tablebases".into(),
            build_stones: 5,
            play_on_fraction: 0.1,
        }
    }
}

fn default_seed() -> u64 {
    1
}

fn default_search() -> SearchConfig {
    SearchConfig {
        algorithm: Algorithm::Gumbel,
        simulations: 32,
        batch_size: 8,
        ..SearchConfig::default()
    }
}

/// `[rules]`
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RulesSection {
    /// Turns without a capture before the game is drawn (docs/rules.md; 0 = off).
    pub no_progress_limit: u32,
}

impl Default for RulesSection {
    fn default() -> Self {
        RulesSection {
            no_progress_limit: fanorona_engine::DEFAULT_NO_PROGRESS_LIMIT,
        }
    }
}

/// `[selfplay]`
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SelfPlaySection {
    /// Games played at once; their leaf evaluations are batched together.
    pub concurrent_games: usize,
    /// Search threads, each driving its share of the concurrent games, all feeding one
    /// batched network evaluator.
    pub threads: usize,
    /// Games per generation (a generation = these games, then training on them).
    pub games_per_generation: usize,
    /// Playout cap randomisation (KataGo): this share of moves is searched with
    /// `search.simulations` and recorded for training ...
    pub full_search_fraction: f32,
    /// ... the other moves are searched with this many simulations and not recorded.
    pub cheap_simulations: u32,
    /// Resign when the mover's loss probability (root WDL) stays above this for
    /// `resign_consecutive` of its full searches (1.0 = never resign).
    pub resign_threshold: f32,
    /// Consecutive full searches above the threshold before resigning.
    pub resign_consecutive: u32,
    /// Share of games that never resign; they measure how often resigning would have been
    /// wrong (the false-resignation rate in TensorBoard).
    pub no_resign_fraction: f32,
    /// Safety cap on step-level actions per game (the no-progress rule ends real games long
    /// before); a capped game is scored as a draw.
    pub max_actions: u32,
    /// Search positions with a single legal action like any other (and record them) instead of
    /// playing the action at once. Off by default: such a search costs evaluations and its
    /// sample teaches the policy nothing.
    pub search_forced: bool,
    /// The first this many turns of every game are played by sampling the network's own
    /// policy (the root's priors, temperature 1) after a cheap search, and are not recorded:
    /// varied openings instead of the same few (0 = off).
    pub opening_prior_turns: u32,
}

impl Default for SelfPlaySection {
    fn default() -> Self {
        SelfPlaySection {
            concurrent_games: 64,
            threads: 1,
            games_per_generation: 64,
            full_search_fraction: 0.25,
            cheap_simulations: 8,
            resign_threshold: 0.95,
            resign_consecutive: 3,
            no_resign_fraction: 0.1,
            max_actions: 1000,
            search_forced: false,
            opening_prior_turns: 0,
        }
    }
}

/// `[replay]`
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ReplaySection {
    /// Smallest window, in samples; training starts once this many samples exist.
    pub window_min: usize,
    /// Largest window, in samples.
    pub window_max: usize,
    /// The window grows with the data as `window_min * (total / window_min) ^ exponent`,
    /// clamped to `[window_min, window_max]` (1.0 = everything; smaller keeps it fresher).
    pub window_exponent: f64,
    /// How many times each new sample is used for training on average: sets the training
    /// steps of a generation when `training.steps_per_generation` is 0.
    pub sample_reuse: f64,
}

impl Default for ReplaySection {
    fn default() -> Self {
        ReplaySection {
            window_min: 10_000,
            window_max: 400_000,
            window_exponent: 0.75,
            sample_reuse: 4.0,
        }
    }
}

/// Optimiser choice.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OptimizerKind {
    /// SGD with Nesterov-free momentum.
    Sgd,
    /// AdamW.
    Adamw,
}

/// `[training]`
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TrainingSection {
    /// Samples per optimiser step.
    pub batch_size: usize,
    /// `sgd` or `adamw`.
    pub optimizer: OptimizerKind,
    /// SGD momentum (ignored by AdamW).
    pub momentum: f64,
    /// AdamW's first-moment decay (ignored by SGD).
    pub adam_beta1: f32,
    /// AdamW's second-moment decay (ignored by SGD).
    pub adam_beta2: f32,
    /// AdamW's epsilon (ignored by SGD).
    pub adam_epsilon: f32,
    /// Learning rate schedule: `[[step, rate], ...]`, piecewise constant from each step on;
    /// the first entry must be at step 0.
    pub learning_rate: Vec<(u64, f64)>,
    /// L2 weight decay.
    pub weight_decay: f64,
    /// Optimiser steps per generation; 0 derives it from `replay.sample_reuse`.
    pub steps_per_generation: u64,
    /// Train on a random one of the four board symmetries of each sample.
    pub symmetry_augmentation: bool,
    /// Weight `w` of the root search's value in the value target: the target is `(1 - w)`
    /// times the game's result plus `w` times the win/draw/loss the recorded search found at
    /// the sample's position (0 = the result alone, as AlphaZero; samples from shards of
    /// format version 1 have no search value and keep the result alone).
    pub search_value_weight: f32,
    /// A stronger search that teaches the network's value head: `""` (none, the default),
    /// `learned` (the alpha-beta player with the learned evaluation this program ships) or an
    /// evaluation file. When set, every sample is judged as it is ingested by that evaluation's
    /// alpha-beta search (`value_teacher_depth` turns and its capture quiescence), and the
    /// judged value `tanh(score / value_teacher_scale)` takes the place of the recorded
    /// search's value in the value target (weighted by `search_value_weight`).
    pub value_teacher: String,
    /// Whole turns the teacher searches before its quiescence (0 to 3).
    pub value_teacher_depth: u32,
    /// Centi-stones of the teacher's score read as the value `tanh(1)`.
    pub value_teacher_scale: f32,
    /// A model file (`fanorona export`) whose weights a new network run starts from instead
    /// of random ones (`""`, the default: random, a run from zero). Read only when the run
    /// starts; a resumed run goes on from its checkpoints. The optimizer and the step count
    /// start afresh, so `learning_rate` and `expert.until_steps` count from the start.
    pub start_from: String,
    /// Compute device: `cpu` (burn's pure-Rust flex backend), `cuda` or `wgpu` (those need
    /// the binary built with the matching cargo feature).
    pub device: String,
    /// How self-play and rating evaluate the network on the CPU: `native` (this project's
    /// kernels in 32-bit floats), `int8` (the residual tower in 8 bits) or `burn`. Unset:
    /// `int8` on CPUs with AVX2, else `native` (`fanorona_net::Backend::default`). A GPU
    /// `device` always evaluates with burn.
    pub inference: fanorona_net::Backend,
}

impl Default for TrainingSection {
    fn default() -> Self {
        TrainingSection {
            batch_size: 256,
            optimizer: OptimizerKind::Sgd,
            momentum: 0.9,
            adam_beta1: 0.9,
            adam_beta2: 0.999,
            adam_epsilon: 1e-8,
            learning_rate: vec![(0, 0.02)],
            weight_decay: 1e-4,
            steps_per_generation: 0,
            symmetry_augmentation: true,
            search_value_weight: 0.0,
            value_teacher: String::new(),
            value_teacher_depth: 1,
            value_teacher_scale: 200.0,
            start_from: String::new(),
            device: "cpu".into(),
            inference: fanorona_net::Backend::default(),
        }
    }
}

impl TrainingSection {
    /// The learning rate at optimiser step `step`.
    pub fn learning_rate_at(&self, step: u64) -> f64 {
        self.learning_rate
            .iter()
            .take_while(|(from, _)| *from <= step)
            .last()
            .map_or(0.0, |&(_, lr)| lr)
    }
}

/// `[checkpoints]`
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CheckpointSection {
    /// Write a checkpoint every this many optimiser steps (and at the end of every
    /// generation).
    pub every_steps: u64,
    /// Keep this many of the newest checkpoints, plus every checkpoint that was rated.
    pub keep: usize,
}

impl Default for CheckpointSection {
    fn default() -> Self {
        CheckpointSection {
            every_steps: 500,
            keep: 5,
        }
    }
}

/// `[evaluation]`
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct EvaluationSection {
    /// Rate the newest checkpoint every this many generations (0 = never).
    pub every_generations: u64,
    /// Games per opponent (an even number: each opening is played with both colours).
    pub games: u32,
    /// Simulations per move of the network player in rating games.
    pub simulations: u32,
    /// Fixed opponents, as `fanorona pit` player specs.
    pub baselines: Vec<String>,
    /// Also play the previous rated checkpoint.
    pub against_previous: bool,
    /// Random opening turns before each pair of rating games.
    pub opening_plies: u32,
    /// Gating: self-play keeps using the best net unless a new one scores at least
    /// `gating_threshold` against it with at least `gating_min_decisive` decisive games
    /// (draws alone never promote a net). Off: self-play always uses the newest net.
    pub gating: bool,
    /// Score needed to promote a new net when gating.
    pub gating_threshold: f64,
    /// Decisive games needed to promote a new net when gating.
    pub gating_min_decisive: u32,
}

impl Default for EvaluationSection {
    fn default() -> Self {
        EvaluationSection {
            every_generations: 5,
            games: 20,
            simulations: 64,
            baselines: vec!["greedy".into(), "alphabeta:depth=2".into()],
            against_previous: true,
            opening_plies: 2,
            gating: false,
            gating_threshold: 0.55,
            gating_min_decisive: 10,
        }
    }
}

/// Most games per opponent in one rating (`evaluation.games`).
pub const MAX_EVALUATION_GAMES: u32 = 10_000;
/// Most simulations per move in rating games (`evaluation.simulations`): at a few thousand
/// evaluations a second on a CPU, already about half a minute a move.
pub const MAX_EVALUATION_SIMULATIONS: u32 = 100_000;

/// Builds the errors of [`TrainConfig::validate`] for one config file.
struct Checker<'a> {
    origin: &'a str,
}

impl Checker<'_> {
    fn bad(&self, key: &str, value: String, problem: &str) -> ConfigError {
        ConfigError::Invalid {
            path: self.origin.to_string(),
            key: key.to_string(),
            value,
            problem: problem.to_string(),
        }
    }

    fn check(&self, ok: bool, key: &str, value: String, problem: &str) -> Result<(), ConfigError> {
        if ok {
            Ok(())
        } else {
            Err(self.bad(key, value, problem))
        }
    }
}

/// A share in [0, 1].
fn fraction(x: f32) -> bool {
    x.is_finite() && (0.0..=1.0).contains(&x)
}

/// Largest config file read (the shipped ones are a few kilobytes).
pub const MAX_CONFIG_BYTES: u64 = 1 << 20;

impl TrainConfig {
    /// Read, parse and validate a config file.
    pub fn load(path: &Path) -> Result<TrainConfig, ConfigError> {
        let read_error = |message: String| ConfigError::Read {
            path: path.display().to_string(),
            message,
        };
        let bytes = fanorona_data::read_bounded(path, MAX_CONFIG_BYTES)
            .map_err(|e| read_error(e.to_string()))?;
        let text = String::from_utf8(bytes).map_err(|e| {
            read_error(format!(
                "not UTF-8 text (bad byte at {}): is it a config file?",
                e.utf8_error().valid_up_to()
            ))
        })?;
        TrainConfig::parse(&text, &path.display().to_string())
    }

    /// Parse and validate config text; `origin` names it in errors.
    pub fn parse(text: &str, origin: &str) -> Result<TrainConfig, ConfigError> {
        let config: TrainConfig = toml::from_str(text).map_err(|e| ConfigError::Parse {
            path: origin.to_string(),
            message: e.to_string().trim_end().to_string(),
        })?;
        config.validate(origin)?;
        Ok(config)
    }

    /// The config as TOML text (what a run directory archives).
    pub fn to_toml(&self) -> Result<String, ConfigError> {
        toml::to_string_pretty(self).map_err(|e| ConfigError::Parse {
            path: self.name.clone(),
            message: format!("cannot write the config as TOML: {e}"),
        })
    }

    /// Check every value; the error names the first bad key.
    pub fn validate(&self, origin: &str) -> Result<(), ConfigError> {
        let v = Checker { origin };
        self.validate_head(&v)?;
        self.validate_selfplay(&v)?;
        self.validate_replay(&v)?;
        self.validate_training(&v)?;
        self.validate_checkpoints(&v)?;
        self.validate_evaluation(&v)?;
        self.validate_eval(&v)?;
        self.validate_expert(&v)?;
        self.validate_tablebase(&v)
    }

    /// `[expert]`.
    fn validate_expert(&self, v: &Checker<'_>) -> Result<(), ConfigError> {
        let e = &self.expert;
        v.check(
            e.until_steps == 0 || self.kind == ModelKind::Network,
            "expert.until_steps",
            e.until_steps.to_string(),
            "an expert teaches only a network run (kind = \"network\")",
        )?;
        v.check(
            !e.evaluation.trim().is_empty(),
            "expert.evaluation",
            format!("{:?}", e.evaluation),
            "must be \"learned\" or an evaluation file",
        )?;
        v.check(
            (1..=8).contains(&e.depth),
            "expert.depth",
            e.depth.to_string(),
            "must be 1 to 8",
        )?;
        v.check(
            e.quiescence <= 32,
            "expert.quiescence",
            e.quiescence.to_string(),
            "must be 0 to 32",
        )?;
        v.check(
            e.temperature.is_finite() && (5.0..=1000.0).contains(&e.temperature),
            "expert.temperature",
            e.temperature.to_string(),
            "must be 5 to 1000 centi-stones",
        )?;
        v.check(
            e.value_scale.is_finite() && (10.0..=10_000.0).contains(&e.value_scale),
            "expert.value_scale",
            e.value_scale.to_string(),
            "must be 10 to 10000 centi-stones",
        )?;
        v.check(
            e.random_opening_turns <= 64,
            "expert.random_opening_turns",
            e.random_opening_turns.to_string(),
            "must be 0 to 64",
        )?;
        v.check(
            e.random_turn_share.is_finite() && (0.0..=0.5).contains(&e.random_turn_share),
            "expert.random_turn_share",
            e.random_turn_share.to_string(),
            "must be in [0, 0.5]",
        )
    }

    /// `[eval]`.
    fn validate_eval(&self, v: &Checker<'_>) -> Result<(), ConfigError> {
        let e = &self.eval;
        let shape = fanorona_eval::Shape {
            inputs: e.inputs,
            hidden1: e.hidden1,
            hidden2: e.hidden2,
        };
        v.check(
            fanorona_eval::Shape::HIDDEN1.contains(&e.hidden1),
            "eval.hidden1",
            e.hidden1.to_string(),
            "must be 32, 64, 128 or 256",
        )?;
        v.check(
            shape.is_supported(),
            "eval.hidden2",
            e.hidden2.to_string(),
            "must be 8, 16 or 32",
        )?;
        v.check(
            (1..=8).contains(&e.depth),
            "eval.depth",
            e.depth.to_string(),
            "must be 1 to 8",
        )?;
        v.check(
            e.quiescence <= 32,
            "eval.quiescence",
            e.quiescence.to_string(),
            "must be 0 to 32",
        )?;
        v.check(
            e.random_opening_turns <= 64,
            "eval.random_opening_turns",
            e.random_opening_turns.to_string(),
            "must be 0 to 64",
        )?;
        v.check(
            e.random_turn_share.is_finite() && (0.0..=0.5).contains(&e.random_turn_share),
            "eval.random_turn_share",
            e.random_turn_share.to_string(),
            "must be in [0, 0.5]",
        )?;
        v.check(
            e.score_scale.is_finite() && (10.0..=10_000.0).contains(&e.score_scale),
            "eval.score_scale",
            e.score_scale.to_string(),
            "must be 10 to 10000 centi-stones",
        )?;
        v.check(
            fraction(e.lambda),
            "eval.lambda",
            e.lambda.to_string(),
            "must be in [0, 1]",
        )?;
        v.check(
            e.tree_positions <= 256,
            "eval.tree_positions",
            e.tree_positions.to_string(),
            "must be 0 to 256",
        )?;
        v.check(
            (1..=8).contains(&e.tree_min_depth),
            "eval.tree_min_depth",
            e.tree_min_depth.to_string(),
            "must be 1 to 8",
        )?;
        v.check(
            e.depth_max <= 8,
            "eval.depth_max",
            e.depth_max.to_string(),
            "must be 0 to 8",
        )?;
        v.check(
            (1..=100).contains(&e.deepen_after),
            "eval.deepen_after",
            e.deepen_after.to_string(),
            "must be 1 to 100",
        )?;
        v.check(
            e.deepen_below.is_finite() && (0.5..=1.0).contains(&e.deepen_below),
            "eval.deepen_below",
            e.deepen_below.to_string(),
            "must be in [0.5, 1]",
        )?;
        Self::validate_descent(e, v)
    }

    /// `[eval]`'s Descent self-play.
    fn validate_descent(e: &EvalSection, v: &Checker<'_>) -> Result<(), ConfigError> {
        v.check(
            e.descent_nodes <= 1_000_000,
            "eval.descent_nodes",
            e.descent_nodes.to_string(),
            "must be 0 to 1000000",
        )?;
        v.check(
            e.descent_nodes == 0 || (e.tree_positions == 0 && !e.pv_leaf),
            "eval.descent_nodes",
            e.descent_nodes.to_string(),
            "Descent self-play records its own tree: tree_positions and pv_leaf are for alpha-beta self-play",
        )?;
        v.check(
            fraction(e.descent_keep),
            "eval.descent_keep",
            e.descent_keep.to_string(),
            "must be in [0, 1]",
        )?;
        Ok(())
    }

    /// `[tablebase]`.
    fn validate_tablebase(&self, v: &Checker<'_>) -> Result<(), ConfigError> {
        let t = &self.tablebase;
        v.check(
            t.build_stones == 0 || (2..=6).contains(&t.build_stones),
            "tablebase.build_stones",
            t.build_stones.to_string(),
            "must be 0 (never build) or 2 to 6",
        )?;
        v.check(
            fraction(t.play_on_fraction),
            "tablebase.play_on_fraction",
            t.play_on_fraction.to_string(),
            "must be in [0, 1]",
        )?;
        let limit = self.rules.no_progress_limit;
        v.check(
            t.dir.is_empty() || (1..=fanorona_tablebase::MAX_LIMIT).contains(&limit),
            "tablebase.dir",
            format!("{:?}", t.dir),
            &format!(
                "must be \"\" when rules.no_progress_limit is {limit}: tables exist for limits 1 to {}",
                fanorona_tablebase::MAX_LIMIT
            ),
        )?;
        Ok(())
    }

    /// The name, `[model]` and `[search]`.
    fn validate_head(&self, v: &Checker<'_>) -> Result<(), ConfigError> {
        // The name becomes a folder under runs/: `..` or `.` would put the run elsewhere.
        let name_ok = !self.name.is_empty()
            && !self.name.starts_with('.')
            && self.name.len() <= 100
            && self
                .name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c));
        v.check(
            name_ok,
            "name",
            format!("{:?}", self.name),
            "must be 1 to 100 letters, digits, '-', '_' or '.', not starting with '.'",
        )?;
        self.model.validate().map_err(|e| {
            v.bad(
                &format!("model.{}", e.field),
                e.value.to_string(),
                &format!("must be {}", e.requirement),
            )
        })?;
        self.search
            .validate()
            .map_err(|e| v.bad(&format!("search.{}", e.field), e.value, e.requirement))?;
        Ok(())
    }

    /// `[selfplay]`.
    fn validate_selfplay(&self, v: &Checker<'_>) -> Result<(), ConfigError> {
        let s = &self.selfplay;
        v.check(
            (1..=4096).contains(&s.concurrent_games),
            "selfplay.concurrent_games",
            s.concurrent_games.to_string(),
            "must be 1 to 4096",
        )?;
        v.check(
            (1..=256).contains(&s.threads),
            "selfplay.threads",
            s.threads.to_string(),
            "must be 1 to 256",
        )?;
        v.check(
            s.threads <= s.concurrent_games,
            "selfplay.threads",
            s.threads.to_string(),
            "must not exceed selfplay.concurrent_games",
        )?;
        v.check(
            s.games_per_generation >= 1,
            "selfplay.games_per_generation",
            s.games_per_generation.to_string(),
            "must be at least 1",
        )?;
        v.check(
            fraction(s.full_search_fraction) && s.full_search_fraction > 0.0,
            "selfplay.full_search_fraction",
            s.full_search_fraction.to_string(),
            "must be in (0, 1]",
        )?;
        v.check(
            s.cheap_simulations >= 1 && s.cheap_simulations <= self.search.simulations,
            "selfplay.cheap_simulations",
            s.cheap_simulations.to_string(),
            "must be 1 to search.simulations",
        )?;
        v.check(
            fraction(s.resign_threshold) && s.resign_threshold >= 0.5,
            "selfplay.resign_threshold",
            s.resign_threshold.to_string(),
            "must be in [0.5, 1] (1 = never resign)",
        )?;
        v.check(
            s.resign_consecutive >= 1,
            "selfplay.resign_consecutive",
            s.resign_consecutive.to_string(),
            "must be at least 1",
        )?;
        v.check(
            fraction(s.no_resign_fraction),
            "selfplay.no_resign_fraction",
            s.no_resign_fraction.to_string(),
            "must be in [0, 1]",
        )?;
        v.check(
            s.max_actions >= 10,
            "selfplay.max_actions",
            s.max_actions.to_string(),
            "must be at least 10",
        )?;
        v.check(
            s.opening_prior_turns <= 64,
            "selfplay.opening_prior_turns",
            s.opening_prior_turns.to_string(),
            "must be at most 64",
        )?;
        Ok(())
    }

    /// `[replay]`.
    fn validate_replay(&self, v: &Checker<'_>) -> Result<(), ConfigError> {
        let r = &self.replay;
        v.check(
            r.window_min >= 1,
            "replay.window_min",
            r.window_min.to_string(),
            "must be at least 1",
        )?;
        v.check(
            r.window_max >= r.window_min,
            "replay.window_max",
            r.window_max.to_string(),
            "must be at least replay.window_min",
        )?;
        v.check(
            r.window_exponent.is_finite() && r.window_exponent > 0.0 && r.window_exponent <= 1.0,
            "replay.window_exponent",
            r.window_exponent.to_string(),
            "must be in (0, 1]",
        )?;
        v.check(
            r.sample_reuse.is_finite() && r.sample_reuse > 0.0 && r.sample_reuse <= 100.0,
            "replay.sample_reuse",
            r.sample_reuse.to_string(),
            "must be in (0, 100]",
        )?;
        Ok(())
    }

    /// `[training]`.
    fn validate_training(&self, v: &Checker<'_>) -> Result<(), ConfigError> {
        let t = &self.training;
        v.check(
            (1..=65536).contains(&t.batch_size),
            "training.batch_size",
            t.batch_size.to_string(),
            "must be 1 to 65536",
        )?;
        for (key, beta) in [
            ("training.adam_beta1", t.adam_beta1),
            ("training.adam_beta2", t.adam_beta2),
        ] {
            v.check(
                beta.is_finite() && (0.0..1.0).contains(&beta),
                key,
                beta.to_string(),
                "must be in [0, 1)",
            )?;
        }
        v.check(
            t.search_value_weight.is_finite() && (0.0..=1.0).contains(&t.search_value_weight),
            "training.search_value_weight",
            t.search_value_weight.to_string(),
            "must be in [0, 1]",
        )?;
        v.check(
            t.value_teacher_depth <= 3,
            "training.value_teacher_depth",
            t.value_teacher_depth.to_string(),
            "must be 0 to 3",
        )?;
        v.check(
            t.value_teacher_scale.is_finite() && t.value_teacher_scale > 0.0,
            "training.value_teacher_scale",
            t.value_teacher_scale.to_string(),
            "must be a positive number of centi-stones",
        )?;
        v.check(
            t.start_from.is_empty() || self.kind == ModelKind::Network,
            "training.start_from",
            t.start_from.clone(),
            "is for network runs (kind = \"network\"); an evaluation run starts from random weights",
        )?;
        v.check(
            t.adam_epsilon.is_finite() && t.adam_epsilon > 0.0 && t.adam_epsilon < 1.0,
            "training.adam_epsilon",
            t.adam_epsilon.to_string(),
            "must be in (0, 1)",
        )?;
        v.check(
            t.momentum.is_finite() && (0.0..1.0).contains(&t.momentum),
            "training.momentum",
            t.momentum.to_string(),
            "must be in [0, 1)",
        )?;
        v.check(
            t.learning_rate.first().is_some_and(|&(s, _)| s == 0),
            "training.learning_rate",
            format!("{:?}", t.learning_rate),
            "must start with an entry at step 0, like [[0, 0.02]]",
        )?;
        v.check(
            t.learning_rate.windows(2).all(|w| w[0].0 < w[1].0),
            "training.learning_rate",
            format!("{:?}", t.learning_rate),
            "steps must increase",
        )?;
        v.check(
            t.learning_rate
                .iter()
                .all(|&(_, lr)| lr.is_finite() && lr > 0.0 && lr < 10.0),
            "training.learning_rate",
            format!("{:?}", t.learning_rate),
            "rates must be in (0, 10)",
        )?;
        v.check(
            t.weight_decay.is_finite() && (0.0..1.0).contains(&t.weight_decay),
            "training.weight_decay",
            t.weight_decay.to_string(),
            "must be in [0, 1)",
        )?;
        v.check(
            ["cpu", "cuda", "wgpu"].contains(&t.device.as_str()),
            "training.device",
            format!("{:?}", t.device),
            "must be \"cpu\", \"cuda\" or \"wgpu\"",
        )?;
        Ok(())
    }

    /// `[checkpoints]`.
    fn validate_checkpoints(&self, v: &Checker<'_>) -> Result<(), ConfigError> {
        let c = &self.checkpoints;
        v.check(
            c.every_steps >= 1,
            "checkpoints.every_steps",
            c.every_steps.to_string(),
            "must be at least 1",
        )?;
        v.check(
            c.keep >= 1,
            "checkpoints.keep",
            c.keep.to_string(),
            "must be at least 1",
        )?;
        Ok(())
    }

    /// `[evaluation]`.
    fn validate_evaluation(&self, v: &Checker<'_>) -> Result<(), ConfigError> {
        let e = &self.evaluation;
        v.check(
            e.games.is_multiple_of(2) && (2..=MAX_EVALUATION_GAMES).contains(&e.games),
            "evaluation.games",
            e.games.to_string(),
            "must be even, 2 to 10000 (each opening is played with both colours; \
             evaluation.every_generations = 0 turns rating off)",
        )?;
        v.check(
            (1..=MAX_EVALUATION_SIMULATIONS).contains(&e.simulations),
            "evaluation.simulations",
            e.simulations.to_string(),
            "must be 1 to 100000",
        )?;
        v.check(
            e.opening_plies <= fanorona_arena::arena::MatchConfig::MAX_OPENING_PLIES,
            "evaluation.opening_plies",
            e.opening_plies.to_string(),
            "must be 0 to 64",
        )?;
        v.check(
            (0.5..=1.0).contains(&e.gating_threshold),
            "evaluation.gating_threshold",
            e.gating_threshold.to_string(),
            "must be in [0.5, 1]",
        )?;
        for (i, spec) in e.baselines.iter().enumerate() {
            fanorona_net::player_registry(fanorona_net::Backend::Native)
                .parse(spec)
                .map_err(|err| {
                    v.bad(
                        &format!("evaluation.baselines[{i}]"),
                        format!("{spec:?}"),
                        &err.to_string(),
                    )
                })?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<TrainConfig, ConfigError> {
        TrainConfig::parse(text, "test.toml")
    }

    #[test]
    fn minimal_config_takes_defaults() {
        let c = parse("name = \"x\"").unwrap();
        assert_eq!(c.model, NetConfig::default());
        assert_eq!(c.search.algorithm, Algorithm::Gumbel);
        assert_eq!(c.training.learning_rate_at(123), 0.02);
    }

    #[test]
    fn unknown_keys_are_rejected_with_their_name() {
        let e = parse("name = \"x\"\n[selfplay]\nconcurent_games = 3\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("concurent_games"), "{e}");
        let e = parse("name = \"x\"\n[search]\nsimulation = 3\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("simulation"), "{e}");
        let e = parse("name = \"x\"\n[nonsense]\n").unwrap_err().to_string();
        assert!(e.contains("nonsense"), "{e}");
    }

    #[test]
    fn bad_values_name_the_key() {
        let cases = [
            ("[model]\nblocks = 0", "model.blocks"),
            (
                "[selfplay]\nconcurrent_games = 0",
                "selfplay.concurrent_games",
            ),
            (
                "[selfplay]\nresign_threshold = 2.0",
                "selfplay.resign_threshold",
            ),
            (
                "[training]\nlearning_rate = [[5, 0.1]]",
                "training.learning_rate",
            ),
            ("[training]\ndevice = \"tpu\"", "training.device"),
            (
                "[training]\nsearch_value_weight = 1.5",
                "training.search_value_weight",
            ),
            ("[expert]\ndepth = 0", "expert.depth"),
            ("[expert]\ntemperature = 0.5", "expert.temperature"),
            ("[expert]\nevaluation = \" \"", "expert.evaluation"),
            ("[expert]\nvalue_scale = inf", "expert.value_scale"),
            (
                "[expert]\nrandom_turn_share = 0.9",
                "expert.random_turn_share",
            ),
            (
                "kind = \"eval\"\n[expert]\nuntil_steps = 10",
                "expert.until_steps",
            ),
            ("[evaluation]\ngames = 3", "evaluation.games"),
            ("[evaluation]\ngames = 0", "evaluation.games"),
            (
                "[evaluation]\nsimulations = 4294967295",
                "evaluation.simulations",
            ),
            (
                "[evaluation]\nopening_plies = 65",
                "evaluation.opening_plies",
            ),
            (
                "[evaluation]\nbaselines = [\"alphabeta:ms=99999999999\"]",
                "evaluation.baselines[0]",
            ),
            ("[search]\nsimulations = 4294967295", "search.simulations"),
            (
                "[evaluation]\nbaselines = [\"alphabeta:depht=2\"]",
                "evaluation.baselines[0]",
            ),
            ("[search]\nsimulations = 0", "search.simulations"),
            (
                "[replay]\nwindow_min = 10\nwindow_max = 5",
                "replay.window_max",
            ),
        ];
        for (body, key) in cases {
            let e = parse(&format!("name = \"x\"\n{body}\n"))
                .unwrap_err()
                .to_string();
            assert!(e.contains(key), "{body}: {e}");
        }
        let e = parse("name = 3").unwrap_err().to_string();
        assert!(e.contains("name"), "{e}");
        // A name is a folder under runs/: none that leaves it.
        for name in ["..", ".", ".hidden", "a/b", ""] {
            let e = parse(&format!("name = {name:?}")).unwrap_err().to_string();
            assert!(e.contains("`name`") || e.contains("name"), "{name}: {e}");
        }
        assert!(parse("name = \"run.2\"").is_ok());
    }

    #[test]
    fn learning_rate_schedule_is_piecewise_constant() {
        let c = parse(
            "name = \"x\"\n[training]\nlearning_rate = [[0, 0.1], [100, 0.01], [200, 0.001]]\n",
        )
        .unwrap();
        assert_eq!(c.training.learning_rate_at(0), 0.1);
        assert_eq!(c.training.learning_rate_at(99), 0.1);
        assert_eq!(c.training.learning_rate_at(100), 0.01);
        assert_eq!(c.training.learning_rate_at(5000), 0.001);
    }

    #[test]
    fn archived_config_round_trips() {
        let c = parse("name = \"x\"\nseed = 9\n[model]\nblocks = 2\n").unwrap();
        let again = parse(&c.to_toml().unwrap()).unwrap();
        assert_eq!(c, again);
    }

    #[test]
    fn shipped_configs_are_valid() {
        // Every config the project ships, read from the folders (a list by hand fell behind
        // the ablations).
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../configs");
        let mut names = Vec::new();
        for sub in ["", "ablations"] {
            for entry in std::fs::read_dir(dir.join(sub)).unwrap() {
                let path = entry.unwrap().path();
                if path.extension().is_some_and(|e| e == "toml") {
                    names.push(path);
                }
            }
        }
        assert!(names.len() >= 30, "{} configs found", names.len());
        for path in &names {
            TrainConfig::load(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        }
    }

    /// Fuzz target: mutations of the shipped configs are accepted or refused with an error,
    /// never a panic, and whatever is accepted passes validation again after a round trip.
    #[test]
    fn fuzz_mutated_config_files_never_panic() {
        let seeds: Vec<Vec<u8>> = ["default.toml", "tiny.toml", "gpu.toml"]
            .iter()
            .map(|name| {
                let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                    .join("../../configs")
                    .join(name);
                std::fs::read(path).unwrap()
            })
            .collect();
        let tokens: [&[u8]; 8] = [
            b"= 4294967295",
            b"= -1",
            b"= nan",
            b"= inf",
            b"[[0, 9.9]]",
            b"\"..\"",
            b"\n[model]\n",
            b"= 1e309",
        ];
        fanorona_testkit::fuzz::run("config", &seeds, &tokens, 1500, |bytes| {
            let Ok(text) = std::str::from_utf8(bytes) else {
                return;
            };
            if let Ok(config) = parse(text) {
                let again = config.to_toml().expect("an accepted config prints");
                parse(&again).expect("and parses again");
            }
        });
    }
}
