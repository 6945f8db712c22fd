//! A network-driven MCTS player plays whole legal games, through `net:` specs and exported
//! model files, against the classical players.

use std::path::PathBuf;

use burn::tensor::Device;
use fanorona_engine::{Game, Rules};
use fanorona_net::{ExportMeta, InferenceModel, NetConfig, export_model, net_player_from_spec};
use fanorona_search::arena::FactoryError;
use fanorona_search::players::{Player, PlayerSpec};
use fanorona_search::{MatchConfig, play_match};

fn temp_model() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("fanorona-net-player-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("tiny.fnm");
    let cfg = NetConfig::new().with_blocks(1).with_channels(8);
    let model = InferenceModel::random(&cfg, &Device::flex());
    export_model(&model, &path, &ExportMeta::default()).unwrap();
    path
}

#[test]
fn net_player_plays_legal_games_to_the_end() {
    let path = temp_model();
    let spec: PlayerSpec = format!("net:path={},sims=16,batch=4", path.display())
        .parse()
        .unwrap();
    let mut player = net_player_from_spec(&spec, 0).unwrap();
    let mut game = Game::new(Rules::default());
    let greedy: PlayerSpec = "greedy".parse().unwrap();
    let mut opponent = greedy.build(1).unwrap();
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
    let path = temp_model();
    for (text, needle) in [
        ("net:sims=10".to_string(), "needs a model file"),
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
    let path = temp_model();
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
        Ok(spec.build(stream)?)
    };
    let result = play_match(&config, &a, &b, |_, _| {}).unwrap();
    assert_eq!(result.games.len(), 2);
}
