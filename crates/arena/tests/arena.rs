//! Match play: pairing, colours, openings, determinism, bookkeeping.

use fanorona_arena::arena::{
    FactoryError, GameResult, MatchConfig, PlayerFactory, Side, play_match,
};
use fanorona_engine::{Color, Game, Rules, Turn};
use fanorona_players::{Player, random_opening};
use fanorona_specs::Registry;

fn factory(text: &str) -> impl Fn(u64) -> Result<Box<dyn Player>, FactoryError> + Sync {
    let settings = Registry::classical().parse(text).unwrap();
    move |stream| Ok(Registry::classical().build(&settings, stream)?)
}

fn config(games: u32, threads: usize, seed: u64) -> MatchConfig {
    MatchConfig {
        games,
        threads,
        seed,
        opening_plies: 4,
        ..MatchConfig::default()
    }
}

#[test]
fn games_alternate_colours_and_share_openings_in_pairs() {
    let (a, b) = (factory("random"), factory("greedy"));
    let result = play_match(&config(6, 2, 11), &a, &b, |_, _| {}).unwrap();
    assert_eq!(result.games.len(), 6);
    for (i, g) in result.games.iter().enumerate() {
        assert_eq!(g.index as usize, i);
        let expected = if i % 2 == 0 {
            Color::White
        } else {
            Color::Black
        };
        assert_eq!(g.a_color, expected);
        assert_eq!(g.opening_turns, 4);
        assert!(g.outcome().is_some(), "games end by the rules");
    }
    for pair in result.games.chunks(2) {
        assert_eq!(pair[0].turns()[..4], pair[1].turns()[..4], "same opening");
        assert_ne!(pair[0].turns(), pair[1].turns(), "but not the same game");
    }
    assert_ne!(result.games[0].turns()[..4], result.games[2].turns()[..4]);
    let s = result.score;
    assert_eq!(s.games(), 6);
    let draws = result.repetition_draws + result.no_progress_draws + result.turn_limit_draws;
    assert_eq!(draws, s.draws);
    let wins = result
        .games
        .iter()
        .filter(|g| g.result_for_a() == GameResult::Win)
        .count();
    assert_eq!(wins as u32, s.wins);
    assert!(result.average_turns() >= 4.0);
}

#[test]
fn same_seed_same_match_whatever_the_threads() {
    let (a, b) = (factory("alphabeta:depth=1"), factory("random"));
    // Think times are measured, so they are the one thing that may differ.
    let untimed = |mut r: fanorona_arena::arena::MatchResult| {
        r.games.iter_mut().for_each(|g| g.think_ms.clear());
        r
    };
    let one = untimed(play_match(&config(4, 1, 5), &a, &b, |_, _| {}).unwrap());
    let three = untimed(play_match(&config(4, 3, 5), &a, &b, |_, _| {}).unwrap());
    assert_eq!(one, three);
    let other = play_match(&config(4, 1, 6), &a, &b, |_, _| {}).unwrap();
    assert_ne!(one.games, other.games);
}

#[test]
fn game_records_replay_legally() {
    let (a, b) = (factory("greedy"), factory("random"));
    let result = play_match(&config(4, 2, 3), &a, &b, |_, _| {}).unwrap();
    for g in &result.games {
        let mut game = Game::from_position(*g.start(), Rules::default());
        for t in g.turns() {
            game.play_turn(t).unwrap();
        }
        assert_eq!(game.outcome(), g.outcome());
        let line = g.to_line();
        assert!(
            line.starts_with(&format!("{} white=", g.index + 1)),
            "{line}"
        );
        let fields: Vec<&str> = line.split(" | ").collect();
        assert_eq!(fields.len(), 5, "{line}");
        assert_eq!(fields[3], format!("{} {}", g.score(), g.reason()), "{line}");
        let times = g.turns().len() - g.opening_turns as usize;
        assert_eq!(fields[4].split(' ').count(), 1 + times, "{line}");
        assert!(fields[4].starts_with("ms"), "{line}");
    }
}

#[test]
fn openings_never_end_the_game_and_depend_on_the_seed() {
    for seed in 0..20 {
        let turns = random_opening(seed, 12, Rules::default());
        assert_eq!(turns.len(), 12);
        let mut game = Game::new(Rules::default());
        for t in &turns {
            assert!(game.outcome().is_none());
            game.play_turn(t).unwrap();
        }
        assert!(game.outcome().is_none());
    }
    assert_ne!(
        random_opening(1, 6, Rules::default()),
        random_opening(2, 6, Rules::default())
    );
    assert_eq!(random_opening(1, 0, Rules::default()), Vec::<Turn>::new());
}

#[test]
fn progress_is_reported_for_every_game() {
    let (a, b) = (factory("greedy"), factory("greedy"));
    let mut seen = Vec::new();
    let result = play_match(&config(5, 2, 1), &a, &b, |g, totals| {
        seen.push((g.index, totals.games()));
    })
    .unwrap();
    assert_eq!(seen.len(), 5);
    assert_eq!(seen.last().unwrap().1, 5);
    assert_eq!(result.score.games(), 5);
}

#[test]
fn runaway_games_are_stopped_and_counted() {
    let (a, b) = (factory("random"), factory("random"));
    let cfg = MatchConfig {
        max_turns: 6,
        ..config(2, 1, 0)
    };
    let result = play_match(&cfg, &a, &b, |_, _| {}).unwrap();
    for g in &result.games {
        assert!(g.turns().len() <= 6);
        if g.outcome().is_none() {
            assert_eq!(g.score(), "*");
            assert_eq!(g.reason(), "turn-limit");
        }
    }
    assert_eq!(result.turn_limit_draws, 2);
}

#[test]
fn player_errors_stop_the_match() {
    let a = factory("random");
    let failing: &PlayerFactory<'_> = &|_| Err("no such model".into());
    let err = play_match(&config(4, 2, 0), &a, failing, |_, _| {}).unwrap_err();
    let message = err.to_string();
    assert!(message.contains("player B"), "{message}");
    assert!(message.contains("no such model"), "{message}");
    let _ = Side::A;
}

#[test]
fn think_time_statistics_flag_a_player_past_its_budget() {
    use fanorona_arena::arena::ThinkStats;
    let stats = ThinkStats::from_times(&mut [100, 300, 200, 90, 100], Some(100)).unwrap();
    assert_eq!(
        (stats.turns, stats.median_ms, stats.max_ms, stats.over),
        (5, 100, 300, 2)
    );
    assert!((stats.mean_ms - 158.0).abs() < 1e-9);
    assert!(stats.overran());
    assert!(stats.summary().contains("OVERRUN"), "{}", stats.summary());
    // 1 turn in 200 just over: within the 1% share, and the mean is under budget.
    let mut times = vec![95; 199];
    times.push(111);
    let ok = ThinkStats::from_times(&mut times, Some(100)).unwrap();
    assert_eq!(ok.over, 1);
    assert!(!ok.overran(), "{ok:?}");
    // 110 ms on a 100 ms budget is not over (more than 10% is).
    assert_eq!(
        ThinkStats::from_times(&mut [110], Some(100)).unwrap().over,
        0
    );
    assert!(!ThinkStats::from_times(&mut [5000], None).unwrap().overran());
    assert_eq!(ThinkStats::from_times(&mut [], Some(1)), None);
}
