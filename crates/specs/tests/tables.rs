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

#[test]
fn tb_stones_limits_a_player_to_the_smaller_classes() {
    let registry = Registry::classical().with_tables(Some(tables()));
    let g = game(LONG_WIN); // three stones
    let score = |spec: &str| {
        let settings = registry.parse(spec).unwrap();
        registry
            .build(&settings, 0)
            .unwrap()
            .choose(&g, None)
            .unwrap()
            .info
            .score
    };
    for kind in ["alphabeta:depth=2", "mcts:sims=20"] {
        assert!(
            matches!(
                score(&format!("{kind},tb_stones=3")),
                Some(Score::Tablebase(_))
            ),
            "{kind}"
        );
        assert!(
            !matches!(
                score(&format!("{kind},tb_stones=2")),
                Some(Score::Tablebase(_))
            ),
            "{kind}: the three-stone class is not used"
        );
    }
    let err = registry
        .parse("alphabeta:tb_stones=1")
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("`tb_stones`") && err.contains("2 to 8"),
        "{err}"
    );
}
