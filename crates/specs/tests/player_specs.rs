//! Player specifications: what parses, what builds, and what the errors say.

use fanorona_engine::{Game, Rules};
use fanorona_players::mix::LeafMix;
use fanorona_players::{AlphaBetaConfig, MctsConfig};
use fanorona_specs::{PlayerSettings, PlayerSpec, Registry, SpecError};

fn spec(text: &str) -> PlayerSpec {
    text.parse()
        .unwrap_or_else(|e| panic!("{text:?} should parse: {e}"))
}

#[test]
fn accepted_specs_build_players_that_play() {
    let game = Game::new(Rules::default());
    for text in [
        "random",
        "greedy",
        "greedy:seed=7",
        "alphabeta",
        "alphabeta:depth=2",
        "alphabeta:ms=20",
        "alphabeta:depth=3,ms=50,q=0,tt=1,seed=9",
        "mcts:sims=20",
        "mcts:sims=20,c=1.5,seed=1",
        "mcts:ms=20",
        "mcts:sims=20,mix=0.5,mix_depth=1",
        " alphabeta : depth = 2 ",
    ] {
        let s = spec(text);
        let settings = Registry::classical()
            .settings(&s)
            .unwrap_or_else(|e| panic!("{text:?}: {e}"));
        let mut player = Registry::classical().build(&settings, 0).unwrap();
        let choice = player.choose(&game, None).unwrap();
        assert!(
            game.position().try_play_turn(&choice.turn).is_ok(),
            "{text}"
        );
        assert_eq!(player.name(), s.to_string());
    }
}

fn alphabeta(text: &str) -> AlphaBetaConfig {
    match Registry::classical().parse(text).unwrap().player() {
        PlayerSettings::AlphaBeta(a) => a.search,
        other => panic!("{text}: {other:?}"),
    }
}

fn mcts(text: &str) -> MctsConfig {
    match Registry::classical().parse(text).unwrap().player() {
        PlayerSettings::Mcts(m) => m.search,
        other => panic!("{text}: {other:?}"),
    }
}

#[test]
fn values_land_in_the_configs() {
    let c = alphabeta("alphabeta:depth=6,q=2,tt=8,seed=3");
    assert_eq!(c.depth, Some(6));
    assert_eq!(c.millis, None);
    assert_eq!((c.quiescence, c.tt_mebibytes, c.seed), (2, 8, 3));
    // A time limit alone means no depth limit; nothing at all means the default depth.
    let c = alphabeta("alphabeta:ms=100");
    assert_eq!((c.depth, c.millis), (None, Some(100)));
    assert_eq!(alphabeta("alphabeta"), AlphaBetaConfig::default());
    let m = mcts("mcts:sims=800");
    assert_eq!(m.simulations, 800);
    assert_eq!(m.c_puct, MctsConfig::DEFAULT_C_PUCT);
    assert_eq!(m.leaf_mix, None);
    assert_eq!(mcts("mcts"), MctsConfig::default());
    // The leaf mix: the weight turns it on, scale and depth have defaults, a weight of 0 is off.
    let m = mcts("mcts:mix=0.5,mix_scale=200,mix_depth=1");
    assert_eq!(
        m.leaf_mix,
        Some(LeafMix {
            weight: 0.5,
            scale: 200.0,
            depth: 1
        })
    );
    let m = mcts("mcts:mix=0.25");
    assert_eq!(
        m.leaf_mix,
        Some(LeafMix {
            weight: 0.25,
            scale: LeafMix::DEFAULT_SCALE,
            depth: LeafMix::DEFAULT_DEPTH
        })
    );
    assert_eq!(mcts("mcts:mix=0,mix_depth=2").leaf_mix, None);
    assert!(!mcts("mcts:reuse=off").reuse_across_turns);
    // Seeds: streams differ, the same stream repeats, and `seed=` changes them.
    assert_ne!(PlayerSpec::stream_seed(0, 1), PlayerSpec::stream_seed(0, 2));
    assert_eq!(PlayerSpec::stream_seed(0, 1), PlayerSpec::stream_seed(0, 1));
    assert_ne!(PlayerSpec::stream_seed(0, 1), PlayerSpec::stream_seed(5, 1));
    let a = Registry::classical().parse("random:seed=5").unwrap();
    let b = Registry::classical().parse("random").unwrap();
    assert_ne!(a.player(), b.player());
}

#[test]
fn tables_are_on_unless_the_spec_says_off() {
    for (text, on) in [
        ("alphabeta", true),
        ("alphabeta:tb=off", false),
        ("mcts:tb=on", true),
    ] {
        let tables = match Registry::classical().parse(text).unwrap().player() {
            PlayerSettings::AlphaBeta(a) => a.tables,
            PlayerSettings::Mcts(m) => m.tables,
            other => panic!("{other:?}"),
        };
        assert_eq!(tables, on, "{text}");
    }
}

#[test]
fn syntax_errors_are_caught_by_parsing() {
    type Check = fn(&SpecError) -> bool;
    let cases: [(&str, Check); 8] = [
        ("", |e| matches!(e, SpecError::Empty)),
        ("   ", |e| matches!(e, SpecError::Empty)),
        ("AlphaBeta", |e| matches!(e, SpecError::BadKind(_))),
        (":depth=3", |e| matches!(e, SpecError::BadKind(_))),
        ("alphabeta:", |e| {
            matches!(e, SpecError::BadParameter { .. })
        }),
        ("alphabeta:depth", |e| {
            matches!(e, SpecError::BadParameter { .. })
        }),
        ("mcts:sims=", |e| {
            matches!(e, SpecError::BadParameter { .. })
        }),
        (
            "alphabeta:depth=3,depth=4",
            |e| matches!(e, SpecError::DuplicateKey { key, .. } if key == "depth"),
        ),
    ];
    for (text, expected) in cases {
        let err = text.parse::<PlayerSpec>().unwrap_err();
        assert!(expected(&err), "{text:?}: {err:?}");
        assert!(!err.to_string().is_empty());
    }
}

#[test]
fn unknown_kinds_parse_generically_but_are_not_in_the_classical_registry() {
    let s = spec("net:path=model.fnm,sims=200");
    assert_eq!(s.kind(), "net");
    assert_eq!(s.get("path"), Some("model.fnm"));
    assert_eq!(s.get("sims"), Some("200"));
    assert_eq!(s.to_string(), "net:path=model.fnm,sims=200");
    let err = Registry::classical().settings(&s).unwrap_err();
    assert!(matches!(&err, SpecError::UnknownKind { kind, .. } if kind == "net"));
    assert!(err.to_string().contains("alphabeta"), "{err}");
    assert!(Registry::classical().parse("minimax").is_err());
}

#[test]
fn bad_keys_and_values_are_named() {
    for (text, key, needle) in [
        ("random:depth=3", "depth", "unknown parameter"),
        ("alphabeta:sims=3", "sims", "unknown parameter"),
        ("mcts:depth=3", "depth", "unknown parameter"),
        ("alphabeta:depth=0", "depth", "bad value"),
        ("alphabeta:depth=65", "depth", "bad value"),
        ("alphabeta:depth=four", "depth", "bad value"),
        ("alphabeta:ms=0", "ms", "bad value"),
        ("alphabeta:ms=99999999999", "ms", "bad value"),
        ("mcts:ms=3600001", "ms", "bad value"),
        ("mcts:sims=4294967295", "sims", "bad value"),
        ("alphabeta:q=33", "q", "bad value"),
        ("alphabeta:tt=0", "tt", "bad value"),
        ("mcts:sims=0", "sims", "bad value"),
        ("mcts:sims=-5", "sims", "bad value"),
        ("mcts:c=0", "c", "bad value"),
        ("mcts:c=nan", "c", "bad value"),
        ("mcts:mix=1.5", "mix", "bad value"),
        ("mcts:mix=-0.1", "mix", "bad value"),
        ("mcts:mix_scale=0", "mix_scale", "bad value"),
        ("mcts:mix_depth=4", "mix_depth", "bad value"),
        ("random:seed=-1", "seed", "bad value"),
        ("greedy:seed=x", "seed", "bad value"),
        ("alphabeta:tb=no", "tb", "bad value"),
        ("mcts:batch=8", "batch", "unknown parameter"),
    ] {
        let err = Registry::classical().settings(&spec(text)).unwrap_err();
        let message = err.to_string();
        assert!(message.contains(needle), "{text}: {message}");
        assert!(message.contains(&format!("`{key}`")), "{text}: {message}");
    }
}
