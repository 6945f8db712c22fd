//! A network-driven MCTS player plays whole legal games, through `net:` specs and exported
//! model files, against the classical players.

use std::path::PathBuf;

use fanorona_testkit::TempDir;

use burn::tensor::Device;
use fanorona_engine::{Game, Rules};
use fanorona_net::{
    ExportMeta, InferenceModel, NetConfig, export_model, net_player_from_spec, player_registry,
};
use fanorona_players::arena::{FactoryError, MatchConfig, play_match};
use fanorona_players::{Player, PlayerSpec, Registry};

/// A tiny random network exported into a fresh directory (kept while the directory lives).
fn temp_model() -> (TempDir, PathBuf) {
    let dir = TempDir::new("net-player");
    let path = dir.join("tiny.fnm");
    let cfg = NetConfig::new().with_blocks(1).with_channels(8);
    let model = InferenceModel::random(&cfg, &Device::flex());
    export_model(&model, &path, &ExportMeta::default()).unwrap();
    (dir, path)
}

#[test]
fn net_player_plays_legal_games_to_the_end() {
    let (_dir, path) = temp_model();
    let spec: PlayerSpec = format!("net:path={},sims=16,batch=4", path.display())
        .parse()
        .unwrap();
    let mut player = net_player_from_spec(&spec, 0).unwrap();
    let mut game = Game::new(Rules::default());
    let greedy: PlayerSpec = "greedy".parse().unwrap();
    let mut opponent = Registry::classical().build(&greedy, 1).unwrap();
    let mut turns = 0;
    while game.outcome().is_none() && turns < 400 {
        let choice = if turns % 2 == 0 {
            player.choose(&game, None).unwrap()
        } else {
            opponent.choose(&game, None).unwrap()
        };
        game.play_turn(&choice.turn)
            .expect("players only play legal turns");
        turns += 1;
    }
    assert!(
        game.outcome().is_some(),
        "the game ends under the no-progress rule at the latest"
    );
    assert!(player.evaluator().evaluations() > 0);
}

#[test]
fn net_spec_errors_name_the_problem() {
    let (_dir, path) = temp_model();
    for (text, needle) in [
        ("net:sims=10".to_string(), "needs `path`"),
        (format!("net:path={},sims=0", path.display()), "sims"),
        (format!("net:path={},depth=3", path.display()), "depth"),
        ("net:path=/nonexistent/model.fnm".to_string(), "nonexistent"),
    ] {
        let spec: PlayerSpec = text.parse().unwrap();
        let err = net_player_from_spec(&spec, 0).expect_err(&text).to_string();
        assert!(err.contains(needle), "{text}: {err}");
    }
}

#[test]
fn net_player_in_a_match() {
    let (_dir, path) = temp_model();
    let spec = format!("net:path={},sims=8,batch=4", path.display());
    let config = MatchConfig {
        games: 2,
        threads: 1,
        seed: 3,
        opening_plies: 1,
        ..MatchConfig::default()
    };
    let a = |stream: u64| -> Result<Box<dyn Player>, FactoryError> {
        let spec: PlayerSpec = spec.parse()?;
        Ok(Box::new(net_player_from_spec(&spec, stream)?))
    };
    let b = |stream: u64| -> Result<Box<dyn Player>, FactoryError> {
        let spec: PlayerSpec = "greedy".parse()?;
        Ok(Registry::classical().build(&spec, stream)?)
    };
    let result = play_match(&config, &a, &b, |_, _| {}).unwrap();
    assert_eq!(result.games.len(), 2);
}

#[test]
fn the_registry_checks_net_specs_without_loading_and_builds_them() {
    let registry = player_registry();
    assert!(registry.names().contains(&"net"));
    // Checking does no I/O: a path that does not exist passes the check, not the build.
    let missing: PlayerSpec = "net:path=/nonexistent/model.fnm".parse().unwrap();
    registry.check(&missing).unwrap();
    let err = registry
        .build(&missing, 0)
        .err()
        .expect("no such model")
        .to_string();
    assert!(err.contains("/nonexistent/model.fnm"), "{err}");
    let err = registry.check(&"net:sims=5".parse().unwrap()).unwrap_err();
    assert!(err.to_string().contains("needs `path`"), "{err}");
    let (_dir, path) = temp_model();
    let spec: PlayerSpec = format!("net:path={},sims=4", path.display())
        .parse()
        .unwrap();
    let mut player = registry.build(&spec, 0).unwrap();
    assert_eq!(player.name(), spec.to_string());
    let game = Game::new(Rules::default());
    let choice = player.choose(&game, None).unwrap();
    assert!(game.position().try_play_turn(&choice.turn).is_ok());
}
