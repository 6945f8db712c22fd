//! The network as the engine of the play page and the terminal game: [`NetChooser`] plays a
//! [`Level`] with MCTS guided by an exported model, and [`chooser_for`] is the one place that
//! decides which engine answers (`--model <file>` or the classical players).

use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use fanorona_engine::Game;
use fanorona_players::mix::LeafMix;
use fanorona_players::{Choice, Evaluation, MctsConfig, Player, Stop};
use fanorona_session::levels::{
    ChooseError, ClassicalChooser, Level, LevelStrength, TurnChooser, check_choosable,
};
use fanorona_specs::NetSettings;

use crate::checkpoint::load_exported;
use crate::error::NetError;
use crate::inference::{Backend, InferenceModel};
use crate::player::net_player;

/// The network with MCTS (see [`Level`] for the simulations of each level). A fresh player
/// per request; the network itself is shared.
#[derive(Debug, Clone)]
pub struct NetChooser {
    model: InferenceModel,
    tables: fanorona_players::tables::Tables,
    judge: Option<(LeafMix, Evaluation)>,
}

impl NetChooser {
    /// The judge [`chooser_for`] gives the network at the two strongest levels: every leaf
    /// valued by a one-turn alpha-beta and its capture quiescence alone (`mix=1,mix_depth=1`),
    /// the strongest setting measured at 500 ms (docs/learning.md, "Ninth round": +50 Elo
    /// over the network's own values, level with `alphabeta:ms=500`).
    pub const JUDGE: LeafMix = LeafMix {
        weight: 1.0,
        scale: LeafMix::DEFAULT_SCALE,
        depth: 1,
    };

    /// Play with `model`, its own values at every leaf.
    pub fn new(model: InferenceModel) -> NetChooser {
        NetChooser {
            model,
            tables: None,
            judge: None,
        }
    }

    /// At the two strongest levels, mix the leaves' values with an alpha-beta judge scoring
    /// quiet positions with `eval` (see [`fanorona_players::mix`]).
    pub fn with_judge(mut self, mix: LeafMix, eval: Evaluation) -> NetChooser {
        self.judge = Some((mix, eval));
        self
    }

    /// The judge at `level`, if it has one.
    fn judge_at(&self, level: Level) -> Option<&(LeafMix, Evaluation)> {
        self.judge
            .as_ref()
            .filter(|_| matches!(level, Level::Medium | Level::Hard))
    }

    /// Also play with these endgame tables (from every level but the beginner's).
    pub fn with_tables(mut self, tables: fanorona_players::tables::Tables) -> NetChooser {
        self.tables = tables;
        self
    }
}

impl TurnChooser for NetChooser {
    fn name(&self) -> &str {
        "net"
    }

    fn level_strength(&self, level: Level) -> LevelStrength {
        let description = match level.simulations() {
            Some(n) if n < 10 => format!("the network's instinct: {n} simulations a step"),
            Some(n) => format!("the network reading {n} positions a step"),
            None => "the network searching for up to three seconds".to_string(),
        };
        let description = match self.judge_at(level) {
            Some((mix, _)) => format!(
                "{description}, each position it reaches judged by a {}-turn alpha-beta",
                mix.depth
            ),
            None => description,
        };
        LevelStrength {
            description,
            depth: None,
            simulations: level.simulations(),
        }
    }

    fn think(
        &self,
        game: &Game,
        level: Level,
        deadline: Instant,
        stop: &Stop,
    ) -> Result<Choice, ChooseError> {
        check_choosable(game)?;
        let left = deadline
            .saturating_duration_since(Instant::now())
            .min(level.think_time());
        let config = MctsConfig {
            millis: level
                .simulations()
                .is_none()
                .then(|| left.as_millis().max(1) as u64),
            // a fresh player answers each request: there is no earlier tree to keep
            reuse_across_turns: false,
            ..NetSettings::search_with(
                level
                    .simulations()
                    .unwrap_or(MctsConfig::DEFAULT_SIMULATIONS),
                game.position().hash(),
            )
        };
        let judge = self.judge_at(level);
        let config = MctsConfig {
            leaf_mix: judge.map(|(mix, _)| *mix),
            ..config
        };
        let mut player = net_player(self.model.clone(), config, "net");
        if let Some((_, eval)) = judge {
            player = player.with_judge_evaluation(eval.clone());
        }
        if level != Level::Beginner {
            player = player.with_tables(self.tables.clone());
        }
        player.set_stop(stop.clone());
        Ok(player.choose(game, None)?)
    }

    fn tables(&self) -> Option<&fanorona_tablebase::Tablebase> {
        self.tables.as_deref()
    }
}

/// The engine to play with: the classical players without a model file (their strongest
/// levels with the learned evaluation this program ships, the hand-written one when it ships
/// none), the network with MCTS with one (an exported model, `fanorona export`, evaluated by
/// `backend`; at its two strongest levels with the alpha-beta judge [`NetChooser::JUDGE`] at
/// its leaves, scoring with the same evaluation).
///
/// This is the one place that decides which engine answers (`--model <file>`).
pub fn chooser_for(
    model: Option<&Path>,
    tables: fanorona_players::tables::Tables,
    backend: Backend,
) -> Result<Arc<dyn TurnChooser>, NetError> {
    match model {
        None => Ok(Arc::new(
            ClassicalChooser::with_tables(tables).with_evaluation(strongest_evaluation()),
        )),
        Some(path) => {
            let (model, _) = load_exported(path, backend)?;
            Ok(Arc::new(
                NetChooser::new(model)
                    .with_tables(tables)
                    .with_judge(NetChooser::JUDGE, strongest_evaluation()),
            ))
        }
    }
}

/// The learned evaluation this program ships, the hand-written one when it ships none.
fn strongest_evaluation() -> Evaluation {
    fanorona_specs::shipped_evaluation().map_or(Evaluation::Handwritten, Evaluation::Learned)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bad_model_file_is_refused_clearly() {
        let e = chooser_for(Some(Path::new("no-such-net.fnm")), None, Backend::Native)
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("no-such-net.fnm"), "{e}");
    }

    #[test]
    fn levels_are_described_for_the_engine_that_plays_them() {
        let cfg = crate::NetConfig::new().with_blocks(1).with_channels(8);
        let net = NetChooser::new(InferenceModel::random(&cfg, &crate::Device::flex()));
        for level in Level::ALL {
            let classical = ClassicalChooser::default().level_strength(level);
            assert_eq!(classical.description, level.description());
            assert_eq!(
                (classical.depth, classical.simulations),
                (level.depth(), None)
            );
            let network = net.level_strength(level);
            assert_eq!(
                (network.depth, network.simulations),
                (None, level.simulations())
            );
            assert!(network.description.contains("network"), "{level}");
            assert_ne!(network.description, classical.description);
        }
        assert!(
            net.level_strength(Level::Medium)
                .description
                .contains("160")
        );
    }

    #[test]
    fn a_network_plays_a_legal_turn_at_every_level() {
        let cfg = crate::NetConfig::new().with_blocks(1).with_channels(8);
        let model = InferenceModel::random(&cfg, &crate::Device::flex());
        let chooser = NetChooser::new(model);
        let game = Game::new(fanorona_engine::Rules::default());
        for level in [Level::Beginner, Level::Easy] {
            let turn = chooser
                .choose(
                    &game,
                    level,
                    Instant::now() + level.think_time(),
                    &Stop::new(),
                )
                .unwrap();
            assert!(
                game.position().try_play_turn(&turn).is_ok(),
                "{level}: {turn}"
            );
        }
    }

    #[test]
    fn the_judge_plays_at_the_two_strongest_levels_only() {
        let cfg = crate::NetConfig::new().with_blocks(1).with_channels(8);
        let model = InferenceModel::random(&cfg, &crate::Device::flex());
        let plain = NetChooser::new(model.clone());
        let judged = NetChooser::new(model).with_judge(NetChooser::JUDGE, Evaluation::Handwritten);
        assert!(
            judged
                .level_strength(Level::Medium)
                .description
                .contains("alpha-beta")
        );
        assert!(
            !judged
                .level_strength(Level::Easy)
                .description
                .contains("alpha-beta")
        );
        // Positions from arbitrary games, where a random network and the judge disagree.
        let (mut differ, mut positions) = (0, 0);
        for g in 0..6usize {
            let mut game = Game::new(fanorona_engine::Rules::default());
            for ply in 0..2 + 2 * g {
                let turns = game.position().legal_turns();
                if turns.is_empty() || game.outcome().is_some() {
                    break;
                }
                let turn = turns[(g * 7 + ply * 3) % turns.len()];
                game.play_turn(&turn).unwrap();
            }
            if game.outcome().is_some() || game.position().legal_turns().len() < 2 {
                continue;
            }
            positions += 1;
            let choose = |chooser: &NetChooser, level: Level| {
                chooser
                    .choose(
                        &game,
                        level,
                        Instant::now() + level.think_time(),
                        &Stop::new(),
                    )
                    .unwrap()
            };
            assert_eq!(choose(&plain, Level::Easy), choose(&judged, Level::Easy));
            let turn = choose(&judged, Level::Medium);
            assert!(game.position().try_play_turn(&turn).is_ok(), "{turn}");
            differ += usize::from(turn != choose(&plain, Level::Medium));
        }
        assert!(positions >= 4, "{positions}");
        assert!(differ > 0, "the judge changed none of {positions} choices");
    }
}
