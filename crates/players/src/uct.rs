//! The MCTS player: plain UCT (the generic search with uniform priors and random rollouts), or
//! the network player when a network is its evaluator.

use std::time::{Duration, Instant};

use fanorona_engine::{Action, Game, Turn};

use fanorona_mcts::{Algorithm, Evaluator, RolloutEvaluator, Search, SearchConfig, derive_seed};

use crate::player::{
    Choice, ChoiceInfo, Limit, Player, PlayerError, Score, Stop, check_limit, check_playable,
};
use crate::state::FanoronaState;

/// Settings of the MCTS player.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MctsConfig {
    /// Simulations for each decision step (a turn with a capture chain has several steps).
    pub simulations: u32,
    /// If set, think about this many milliseconds per turn instead of a fixed number of
    /// simulations. A step whose every legal action ends the turn gets all the time left, one
    /// after which the chain may go on gets half, a forced step (one legal action) one batch
    /// ([`MctsConfig::batch_size`] simulations); a step runs as many simulations as the
    /// measured rate says fit in its share, looking at the clock at least every
    /// [`MctsConfig::TIME_CHUNK`] simulations.
    pub millis: Option<u64>,
    /// PUCT exploration constant. With uniform priors `1/n` over `n` actions the exploration
    /// term is `c * sqrt(N) / (n (1 + N_a))`, so this is larger than a UCT constant.
    pub c_puct: f32,
    /// Seed of the rollouts.
    pub seed: u64,
    /// Leaves collected (under virtual loss) per evaluator call: 1 for rollouts, more for a
    /// network, whose evaluations are cheaper in batches.
    pub batch_size: u32,
}

impl MctsConfig {
    /// Default simulations per step.
    pub const DEFAULT_SIMULATIONS: u32 = 800;
    /// Default exploration constant.
    pub const DEFAULT_C_PUCT: f32 = 4.0;
    /// Most simulations run between two looks at the clock in timed mode.
    pub const TIME_CHUNK: u32 = 64;

    /// The search settings: PUCT, `batch_size` leaves at a time (1: plain sequential MCTS),
    /// no noise, the most visited action, subtree reuse between the steps of a turn.
    pub fn search_config(&self) -> SearchConfig {
        SearchConfig {
            algorithm: Algorithm::Puct,
            simulations: self.simulations.max(1),
            batch_size: self.batch_size.max(1),
            c_puct: self.c_puct,
            reuse_tree: true,
            ..SearchConfig::default().for_match()
        }
    }
}

impl Default for MctsConfig {
    fn default() -> Self {
        MctsConfig {
            simulations: Self::DEFAULT_SIMULATIONS,
            millis: None,
            c_puct: Self::DEFAULT_C_PUCT,
            seed: 0,
            batch_size: 1,
        }
    }
}

/// MCTS at the step level: one search per step of the turn (the subtree of the step played
/// is kept for the next step), accumulated into a whole turn. A fresh tree is built at every
/// turn start.
///
/// With the default [`RolloutEvaluator`] this is plain UCT (uniform priors, random
/// rollouts); with a network as the evaluator it is the AlphaZero-style player.
#[derive(Debug)]
pub struct MctsPlayer<E: Evaluator<FanoronaState> = RolloutEvaluator> {
    name: String,
    config: MctsConfig,
    evaluator: E,
    turns: u64,
    tables: crate::tables::Tables,
    /// Raised: end the search now with the best turn so far.
    stop: Stop,
}

impl MctsPlayer<RolloutEvaluator> {
    /// Plain UCT with these settings.
    pub fn new(config: MctsConfig) -> Self {
        MctsPlayer::with_evaluator(config, RolloutEvaluator::new(config.seed))
    }
}

impl<E: Evaluator<FanoronaState>> MctsPlayer<E> {
    /// MCTS with `evaluator` giving priors and values.
    pub fn with_evaluator(config: MctsConfig, evaluator: E) -> Self {
        MctsPlayer {
            name: "mcts".into(),
            config,
            evaluator,
            turns: 0,
            tables: None,
            stop: Stop::new(),
        }
    }

    /// Plays the positions the endgame tables cover perfectly, and ends the search at them.
    pub fn with_tables(mut self, tables: crate::tables::Tables) -> Self {
        self.tables = tables;
        self
    }

    /// The evaluator.
    pub fn evaluator(&self) -> &E {
        &self.evaluator
    }

    /// Renames the player (for reports).
    pub fn with_name(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
    }

    /// The settings.
    pub fn config(&self) -> &MctsConfig {
        &self.config
    }
}

/// How much of a turn's remaining time one step decision gets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum StepShare {
    /// One legal action: nothing to think about (one chunk of simulations, for the value).
    Forced,
    /// Every legal action ends the turn: this is the turn's last decision, it gets all of it.
    Last,
    /// The turn may go on after this step: half, the rest kept for the steps after it.
    Open,
}

impl StepShare {
    fn of(self, remaining: Duration) -> Duration {
        match self {
            StepShare::Forced => Duration::ZERO,
            StepShare::Last => remaining,
            StepShare::Open => remaining / 2,
        }
    }
}

/// Whether the step decision at `state` is forced, the turn's last, or may be followed by more.
fn step_share(state: &FanoronaState) -> StepShare {
    let mut legal = Vec::new();
    fanorona_mcts::GameState::legal_actions(state, &mut legal);
    if legal.len() <= 1 {
        return StepShare::Forced;
    }
    let ends_turn = |action: &Action| {
        let mut next = state.clone();
        fanorona_mcts::GameState::apply(&mut next, *action);
        next.position().is_turn_start()
    };
    if legal.iter().all(ends_turn) {
        StepShare::Last
    } else {
        StepShare::Open
    }
}

impl<E: Evaluator<FanoronaState>> MctsPlayer<E> {
    /// Runs simulations on `search` until `step_end`: first one batch, then each chunk as many
    /// simulations as the rate measured so far says fit before the end (at most
    /// [`MctsConfig::TIME_CHUNK`]), so that small budgets are kept too. Returns the last
    /// chunk's result and the simulations of the chunks before it.
    fn run_until(
        &self,
        search: &mut Search<FanoronaState>,
        step_end: Instant,
    ) -> Result<(Option<fanorona_mcts::SearchResult<Action>>, u64), PlayerError> {
        let batch = self.config.batch_size.clamp(1, MctsConfig::TIME_CHUNK);
        let mut size = batch;
        let mut last: Option<fanorona_mcts::SearchResult<Action>> = None;
        let mut earlier = 0u64;
        loop {
            let chunk_start = Instant::now();
            let stop = || self.stop.is_raised();
            let chunk = search
                .run_until_stopped(&self.evaluator, size, &stop)
                .map_err(|e| PlayerError::Evaluation(e.to_string()))?
                .cloned();
            let Some(chunk) = chunk else { break };
            let ran = chunk.simulations.max(1);
            if let Some(previous) = last.replace(chunk) {
                earlier += u64::from(previous.simulations);
            }
            let now = Instant::now();
            let per_simulation = (now - chunk_start).as_secs_f64() / f64::from(ran);
            let left = step_end.saturating_duration_since(now).as_secs_f64();
            let fit = (left / per_simulation.max(1e-9)).floor();
            if fit < f64::from(batch) || self.stop.is_raised() {
                break;
            }
            size = (fit as u32).min(MctsConfig::TIME_CHUNK);
        }
        Ok((last, earlier))
    }
}

impl<E: Evaluator<FanoronaState>> Player for MctsPlayer<E> {
    fn name(&self) -> &str {
        &self.name
    }

    fn choose(&mut self, game: &Game, limit: Option<Limit>) -> Result<Choice, PlayerError> {
        let started = Instant::now();
        check_playable(game)?;
        check_limit(limit)?;
        if let Some(choice) = crate::tables::table_choice(&self.tables, game) {
            return Ok(choice);
        }
        let (simulations, millis) = match limit {
            Some(Limit::Simulations(n)) => (n, None),
            Some(Limit::Millis(ms)) => (self.config.simulations, Some(ms)),
            Some(l @ Limit::Depth(_)) => {
                return Err(PlayerError::UnsupportedLimit {
                    player: self.name.clone(),
                    limit: l,
                });
            }
            None => (self.config.simulations, self.config.millis),
        };
        // A time too far away to represent is no time limit (simulations then decide).
        let deadline = millis.and_then(|ms| started.checked_add(Duration::from_millis(ms)));
        let config = MctsConfig {
            simulations,
            ..self.config
        }
        .search_config();
        self.turns += 1;
        let seed = derive_seed(self.config.seed, self.turns);
        let root = FanoronaState::new(game.clone()).with_tables(self.tables.clone());
        let mut search = Search::new(root, config, seed)?;
        let mut turn = Turn::empty();
        let mut total = 0u64;
        let mut value = None;
        loop {
            let result = match deadline {
                None => search
                    .run_until_stopped(&self.evaluator, simulations, &|| self.stop.is_raised())
                    .map_err(|e| PlayerError::Evaluation(e.to_string()))?
                    .cloned(),
                Some(deadline) => {
                    let now = Instant::now();
                    let remaining = deadline.saturating_duration_since(now);
                    let step_end = now + step_share(search.root_state()).of(remaining);
                    let (last, earlier) = self.run_until(&mut search, step_end)?;
                    // The chunks before the last: the result below adds the last one.
                    total += earlier;
                    last
                }
            };
            let Some(result) = result else { break };
            total += u64::from(result.simulations);
            value.get_or_insert(result.value);
            let action = result.best;
            if let Action::Step(step) = action {
                turn.push(step);
            }
            search.advance(action);
            if search.root_state().position().is_turn_start() {
                break;
            }
        }
        Ok(Choice {
            turn,
            info: ChoiceInfo {
                depth: None,
                score: value.map(Score::Value),
                nodes: total,
                elapsed: started.elapsed(),
            },
        })
    }
    fn set_stop(&mut self, stop: Stop) {
        self.stop = stop;
    }
}
