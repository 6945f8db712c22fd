//! The registry hands the program's endgame tables to the players it builds, unless their
//! spec says `tb=off`.

use std::sync::Arc;

use fanorona_engine::{Game, Rules, parse_position};
use fanorona_players::Score;
use fanorona_specs::Registry;
use fanorona_tablebase::{Tablebase, build};

fn tables() -> Arc<Tablebase> {
    Arc::new(build::build_in_memory(3, 50, 2, &mut |_| {}).unwrap())
}

/// Two against one: White wins.
const LONG_WIN: &str = "9/9/3B5/9/WW7 w 0 1";

fn game(text: &str) -> Game {
    Game::from_position(parse_position(text).unwrap(), Rules::default())
}

#[test]
fn the_registry_hands_tables_to_players_unless_the_spec_says_tb_off() {
    let registry = Registry::classical().with_tables(Some(tables()));
    let g = game(LONG_WIN);
    let settings = registry.parse("alphabeta:depth=2").unwrap();
    let choice = registry
        .build(&settings, 0)
        .unwrap()
        .choose(&g, None)
        .unwrap();
    assert!(matches!(choice.info.score, Some(Score::Tablebase(_))));
    let settings = registry.parse("alphabeta:depth=2,tb=off").unwrap();
    let choice = registry
        .build(&settings, 0)
        .unwrap()
        .choose(&g, None)
        .unwrap();
    assert!(matches!(choice.info.score, Some(Score::Centistones(_))));
    let err = registry
        .parse("mcts:sims=20,tb=maybe")
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("`tb`") && err.contains("`on` or `off`"),
        "{err}"
    );
}
