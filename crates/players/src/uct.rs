//! The MCTS player: plain UCT (the generic search with uniform priors and random rollouts), or
//! the network player when a network is its evaluator.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use fanorona_engine::{Action, Game, Turn};

use fanorona_mcts::{Algorithm, Evaluator, RolloutEvaluator, Search, SearchConfig, derive_seed};

use crate::alphabeta::LeafJudge;
use crate::mix::{LeafMix, Mixed};
use crate::player::{
    Choice, ChoiceInfo, Limit, Player, PlayerError, Score, Stop, check_limit, check_playable,
};
use crate::state::{FanoronaState, SearchTables};

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
    /// Keep the search tree from one turn to the next: when the game handed to
    /// [`Player::choose`] continues the one this player last moved in by one turn of the
    /// opponent, the search starts from the subtree of that reply (its visits and values)
    /// instead of a fresh tree. Anything else (a new game, an undo, a set-up position) starts
    /// afresh.
    pub reuse_across_turns: bool,
    /// Carry proven wins and losses up the tree and play a proven win (MCTS-Solver, see
    /// `SearchConfig::solver`).
    pub solver: bool,
    /// Mix the alpha-beta judge's value into every leaf's value (see [`LeafMix`]); `None`:
    /// the evaluator's value alone.
    pub leaf_mix: Option<LeafMix>,
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
            solver: self.solver,
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
            reuse_across_turns: true,
            solver: true,
            leaf_mix: None,
        }
    }
}

/// MCTS at the step level: one search per step of the turn (the subtree of the step played
/// is kept for the next step), accumulated into a whole turn. With
/// [`MctsConfig::reuse_across_turns`] the tree is also kept across the opponent's reply.
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
    /// The search of the last turn chosen, rooted after it (the opponent to move), for
    /// [`MctsConfig::reuse_across_turns`].
    kept: Option<Search<FanoronaState>>,
    /// Root visits the last turn's search started with (0: a fresh tree).
    reused_visits: u32,
    /// The judge of [`MctsConfig::leaf_mix`], when it is set.
    judge: Option<Mutex<LeafJudge>>,
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
            kept: None,
            reused_visits: 0,
            judge: config.leaf_mix.map(|mix| Mutex::new(mix.judge())),
        }
    }

    /// Has the judge of [`MctsConfig::leaf_mix`] (when it is set) score quiet positions with
    /// `eval` instead of the hand-written evaluation.
    pub fn with_judge_evaluation(mut self, eval: crate::alphabeta::Evaluation) -> Self {
        self.judge = self
            .config
            .leaf_mix
            .map(|mix| Mutex::new(mix.judge().with_evaluation(eval)));
        self
    }

    /// Plays the positions the endgame tables cover perfectly, and ends the search at them.
    pub fn with_tables(mut self, tables: crate::tables::Tables) -> Self {
        self.tables = tables;
        self.kept = None;
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

    /// How many root visits the last turn's search inherited from the turn before (the
    /// subtree of the opponent's reply, see [`MctsConfig::reuse_across_turns`]); 0 when it
    /// started from a fresh tree.
    pub fn reused_visits(&self) -> u32 {
        self.reused_visits
    }
}

/// The kept `search` moved on through the opponent's turn that leads to `game`, or `None` when
/// `game` is not the kept root's game after one legal turn (then the tree is dropped).
fn follow_reply(mut search: Search<FanoronaState>, game: &Game) -> Option<Search<FanoronaState>> {
    let from = *search.root_state().position();
    if search.is_running()
        || !from.is_turn_start()
        || search.root_state().game().outcome().is_some()
    {
        return None;
    }
    let mut reply = None;
    from.for_each_turn(|turn, after| {
        if reply.is_none() && after == game.position() {
            reply = Some(*turn);
        }
    });
    for &step in reply?.steps() {
        search.advance(Action::Step(step));
    }
    if !search.root_state().position().is_turn_start() {
        // the opponent stopped a chain that could have gone on
        search.advance(Action::EndTurn);
    }
    (search.root_state().game() == game).then_some(search)
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
    /// The evaluator the search uses: the player's, its values mixed with the judge's when
    /// [`MctsConfig::leaf_mix`] is set.
    /// With a `deadline` (a timed turn), leaves evaluated after it are not judged.
    fn leaf_evaluator(&self, deadline: Option<Instant>) -> Mixed<'_, E> {
        Mixed {
            inner: &self.evaluator,
            mix: self.config.leaf_mix,
            judge: self.judge.as_ref(),
            tables: self.tables.as_deref(),
            deadline,
        }
    }

    /// The search of this turn: the tree kept from the last turn when it follows on (the same
    /// settings, the opponent's reply found in it), else a new one, its tables waiting for
    /// their distances only without a clock (`deadline`).
    fn search_for(
        &mut self,
        game: &Game,
        simulations: u32,
        deadline: Option<Instant>,
    ) -> Result<Search<FanoronaState>, PlayerError> {
        let config = MctsConfig {
            simulations,
            ..self.config
        }
        .search_config();
        self.turns += 1;
        let kept = self
            .kept
            .take()
            .filter(|kept| self.config.reuse_across_turns && *kept.config() == config)
            .and_then(|kept| follow_reply(kept, game));
        self.reused_visits = kept.as_ref().map_or(0, Search::root_visits);
        Ok(match kept {
            Some(search) => search,
            None => {
                let seed = derive_seed(self.config.seed, self.turns);
                let tables = self.tables.clone().map(|tb| {
                    Arc::new(match deadline {
                        None => SearchTables::new(tb),
                        Some(_) => SearchTables::on_clock(tb),
                    })
                });
                let root = FanoronaState::new(game.clone()).with_search_tables(tables);
                Search::new(root, config, seed)?
            }
        })
    }

    /// Runs simulations on `search` until `step_end`: first one batch, then each chunk as many
    /// simulations as the rate measured so far says fit before the end (at most
    /// [`MctsConfig::TIME_CHUNK`]), so that small budgets are kept too. Returns the last
    /// chunk's result and the simulations of the chunks before it.
    fn run_until(
        &self,
        search: &mut Search<FanoronaState>,
        step_end: Instant,
        deadline: Instant,
    ) -> Result<(Option<fanorona_mcts::SearchResult<Action>>, u64), PlayerError> {
        let batch = self.config.batch_size.clamp(1, MctsConfig::TIME_CHUNK);
        let mut size = batch;
        let mut last: Option<fanorona_mcts::SearchResult<Action>> = None;
        let mut earlier = 0u64;
        loop {
            let chunk_start = Instant::now();
            let stop = || self.stop.is_raised();
            let chunk = search
                .run_until_stopped(&self.leaf_evaluator(Some(deadline)), size, &stop)
                .map_err(|e| PlayerError::Evaluation(e.to_string()))?
                .cloned();
            let Some(chunk) = chunk else { break };
            // No simulation ran: the root is proven (the solver), more time changes nothing.
            let proven = chunk.simulations == 0;
            let ran = chunk.simulations.max(1);
            if let Some(previous) = last.replace(chunk) {
                earlier += u64::from(previous.simulations);
            }
            let now = Instant::now();
            let per_simulation = (now - chunk_start).as_secs_f64() / f64::from(ran);
            let left = step_end.saturating_duration_since(now).as_secs_f64();
            let fit = (left / per_simulation.max(1e-9)).floor();
            if proven || fit < f64::from(batch) || self.stop.is_raised() {
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
        // Without a clock the tables' distances are waited for (the game replays exactly).
        if let Some(choice) = crate::tables::table_choice(&self.tables, game, deadline.is_none()) {
            return Ok(choice);
        }
        let mut search = self.search_for(game, simulations, deadline)?;
        let mut turn = Turn::empty();
        let mut total = 0u64;
        let mut value = None;
        loop {
            let result = match deadline {
                None => search
                    .run_until_stopped(&self.leaf_evaluator(None), simulations, &|| {
                        self.stop.is_raised()
                    })
                    .map_err(|e| PlayerError::Evaluation(e.to_string()))?
                    .cloned(),
                Some(deadline) => {
                    let now = Instant::now();
                    let remaining = deadline.saturating_duration_since(now);
                    let step_end = now + step_share(search.root_state()).of(remaining);
                    let (last, earlier) = self.run_until(&mut search, step_end, deadline)?;
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
                if self.config.reuse_across_turns {
                    self.kept = Some(search);
                }
                break;
            }
        }
        if turn.steps().is_empty() {
            // The tables decide the root, so the search has nothing to search, while
            // `table_choice` on a clock found a successor's distances still being read: wait
            // for them this once.
            return crate::tables::table_choice(&self.tables, game, true)
                .ok_or_else(|| PlayerError::Evaluation("the search found no turn to play".into()));
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

#[cfg(test)]
mod tests {
    use super::*;
    use fanorona_engine::{Position, Rules};

    fn player(reuse: bool) -> MctsPlayer {
        MctsPlayer::new(MctsConfig {
            simulations: 300,
            seed: 7,
            reuse_across_turns: reuse,
            ..MctsConfig::default()
        })
    }

    /// The game after the player's turn and then the opponent's first legal turn.
    fn after_reply(game: &Game, mine: &Turn) -> Game {
        let mut game = game.clone();
        game.play_turn(mine).unwrap();
        let reply = game.position().legal_turns()[0];
        game.play_turn(&reply).unwrap();
        game
    }

    #[test]
    fn the_tree_is_kept_across_the_opponents_reply() {
        let start = Game::new(Rules::default());
        let mut p = player(true);
        let first = p.choose(&start, None).unwrap().turn;
        assert_eq!(p.reused_visits(), 0, "the first turn starts afresh");
        let next = after_reply(&start, &first);
        let second = p.choose(&next, None).unwrap();
        assert!(
            p.reused_visits() > 0,
            "the reply's subtree was searched in the first turn and is kept"
        );
        assert!(
            next.position().try_play_turn(&second.turn).is_ok(),
            "{}",
            second.turn
        );

        // Anything but one legal reply later starts afresh: a new game, the same position
        // again (an undo), two turns later.
        for other in [
            start.clone(),
            next.clone(),
            after_reply(&next, &second.turn),
        ] {
            let mut q = player(true);
            q.choose(&next, None).unwrap();
            q.choose(&other, None).unwrap();
            assert_eq!(q.reused_visits(), 0, "{}", other.position());
        }

        // Off: never kept.
        let mut off = player(false);
        let first = off.choose(&start, None).unwrap().turn;
        off.choose(&after_reply(&start, &first), None).unwrap();
        assert_eq!(off.reused_visits(), 0);
    }

    #[test]
    fn a_reply_that_stops_a_chain_early_is_followed() {
        // White's d3d2w takes d4, and the chain could go on.
        let position: Position = "9/3B5/3W2B2/2B2B1W1/1BBW5 w".parse().unwrap();
        let game = Game::from_position(position, Rules::default());
        let config = player(true).config().search_config();
        let root = FanoronaState::new(game.clone());
        let mut search = Search::new(root, config, 1).unwrap();
        search.run(&RolloutEvaluator::new(1)).unwrap();
        let mut replied = game.clone();
        let short = Turn::from_steps(&["d3d2w".parse().unwrap()]).unwrap();
        replied.play_turn(&short).unwrap();
        assert!(
            position
                .apply("d3d2w".parse::<Action>().unwrap())
                .chain()
                .is_some(),
            "the chain could have gone on"
        );
        let followed = follow_reply(search, &replied).expect("a legal reply is followed");
        assert_eq!(followed.root_state().game(), &replied);
        assert_eq!(
            followed.root_state().position().side_to_move(),
            !position.side_to_move()
        );
    }
}
