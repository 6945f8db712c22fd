//! The network as the engine of the play page and the terminal game: [`NetChooser`] plays a
//! [`Level`] with MCTS guided by an exported model, and [`chooser_for`] is the one place that
//! decides which engine answers (`--model <file>` or the classical players).

use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use fanorona_engine::Game;
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
}

impl NetChooser {
    /// Play with `model`.
    pub fn new(model: InferenceModel) -> NetChooser {
        NetChooser {
            model,
            tables: None,
        }
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
        let mut player = net_player(self.model.clone(), config, "net");
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
/// `backend`).
///
/// This is the one place that decides which engine answers (`--model <file>`).
pub fn chooser_for(
    model: Option<&Path>,
    tables: fanorona_players::tables::Tables,
    backend: Backend,
) -> Result<Arc<dyn TurnChooser>, NetError> {
    match model {
        None => {
            let eval = fanorona_specs::shipped_evaluation()
                .map_or(Evaluation::Handwritten, Evaluation::Learned);
            Ok(Arc::new(
                ClassicalChooser::with_tables(tables).with_evaluation(eval),
            ))
        }
        Some(path) => {
            let (model, _) = load_exported(path, backend)?;
            Ok(Arc::new(NetChooser::new(model).with_tables(tables)))
        }
    }
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
}
