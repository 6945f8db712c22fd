//! A network-driven MCTS player plays whole legal games, through `net:` specs and exported
//! model files, against the classical players.

use std::path::PathBuf;

use fanorona_testkit::TempDir;

use burn::tensor::Device;
use fanorona_arena::arena::{FactoryError, MatchConfig, play_match};
use fanorona_engine::{Game, Rules};
use fanorona_net::{Backend, ExportMeta, InferenceModel, NetConfig, export_model, player_registry};
use fanorona_players::Player;
use fanorona_specs::Registry;

/// A tiny random network exported into a fresh directory (kept while the directory lives).
fn temp_model() -> (TempDir, PathBuf) {
    let dir = TempDir::new("net-player");
    let path = dir.join("tiny.fnm");
    let cfg = NetConfig::new().with_blocks(1).with_channels(8);
    let model = InferenceModel::random(&cfg, &Device::flex());
    export_model(&model, &path, &ExportMeta::default()).unwrap();
    (dir, path)
}

fn build(text: &str, stream: u64) -> Result<Box<dyn Player>, FactoryError> {
    let registry = player_registry(Backend::Native);
    Ok(registry.build(&registry.parse(text)?, stream)?)
}

#[test]
fn net_player_plays_legal_games_to_the_end() {
    let (_dir, path) = temp_model();
    let mut player = build(&format!("net:path={},sims=16,batch=4", path.display()), 0).unwrap();
    let mut game = Game::new(Rules::default());
    let mut opponent = build("greedy", 1).unwrap();
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
}

#[test]
fn net_spec_errors_name_the_problem() {
    let (_dir, path) = temp_model();
    for (text, needle) in [
        ("net:sims=10".to_string(), "needs `path=`"),
        (format!("net:path={},sims=0", path.display()), "sims"),
        (format!("net:path={},depth=3", path.display()), "depth"),
        (
            format!("net:path={},backend=gpu", path.display()),
            "`native`, `int8` or `burn`",
        ),
        ("net:path=/nonexistent/model.fnm".to_string(), "nonexistent"),
    ] {
        let err = build(&text, 0).err().expect(&text).to_string();
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
    let a = |stream: u64| build(&spec, stream);
    let b = |stream: u64| build("greedy", stream);
    let result = play_match(&config, &a, &b, |_, _| {}).unwrap();
    assert_eq!(result.games.len(), 2);
}

#[test]
fn the_registry_checks_net_specs_without_loading_and_builds_them() {
    let registry = player_registry(Backend::Native);
    assert!(registry.kinds().any(|k| k.name == "net"));
    assert!(Registry::classical().kinds().all(|k| k.name != "net"));
    // Checking does no I/O: a path that does not exist passes the check, not the load.
    let missing = registry.parse("net:path=/nonexistent/model.fnm").unwrap();
    let err = registry.load(&missing).unwrap_err().to_string();
    assert!(err.contains("/nonexistent/model.fnm"), "{err}");
    let err = registry.parse("net:sims=5").unwrap_err();
    assert!(err.to_string().contains("needs `path=`"), "{err}");
    let (_dir, path) = temp_model();
    let settings = registry
        .parse(&format!("net:path={},sims=4,backend=burn", path.display()))
        .unwrap();
    registry.load(&settings).unwrap();
    let mut player = registry.build(&settings, 0).unwrap();
    assert_eq!(player.name(), settings.spec().to_string());
    let game = Game::new(Rules::default());
    let choice = player.choose(&game, None).unwrap();
    assert!(game.position().try_play_turn(&choice.turn).is_ok());
    // The identity names the weights, not the file.
    let identity = registry.identity(&settings).unwrap();
    assert!(
        identity.starts_with("net:model=") && identity.ends_with(",sims=4,backend=burn"),
        "{identity}"
    );
    let copy = path.with_file_name("copy.fnm");
    std::fs::copy(&path, &copy).unwrap();
    let moved = registry
        .parse(&format!("net:path={},sims=4,backend=burn", copy.display()))
        .unwrap();
    assert_eq!(registry.identity(&moved).unwrap(), identity);
    // Without `backend=`, a player that does not run in floats says which backend it runs on
    // (the program's default); one in floats keeps the key games were stored under before.
    let spec = format!("net:path={},sims=4", path.display());
    for (backend, suffix) in [
        (Backend::Native, ",sims=4"),
        (Backend::Int8, ",sims=4,backend=int8"),
        (Backend::Burn, ",sims=4,backend=burn"),
    ] {
        let registry = player_registry(backend);
        let settings = registry.parse(&spec).unwrap();
        let identity = registry.identity(&settings).unwrap();
        assert!(identity.ends_with(suffix), "{backend}: {identity}");
    }
    let settings = registry.parse(&format!("{spec},backend=native")).unwrap();
    assert!(
        registry
            .identity(&settings)
            .unwrap()
            .ends_with(",sims=4,backend=native")
    );
}
