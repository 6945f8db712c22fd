//! The nodes an alpha-beta search records for learning (TreeStrap's examples): every node of
//! the deepest iteration below the root, each with a score that a fresh search of that node
//! alone confirms (equal where exact, on the right side where a bound). And the end of its
//! principal variation (TD-Leaf's training position): a position reached from the root by the
//! chosen turn, the other turns of the search's depth and captures, whose evaluation is the
//! root's score for its own mover.

use std::collections::HashSet;

use fanorona_engine::{Game, Position, Rules, Turn};
use fanorona_players::{
    AlphaBetaConfig, AlphaBetaPlayer, Player, Score, ScoreBound, SearchedNode, evaluate,
    random_opening,
};

fn player(depth: u32, record: bool) -> AlphaBetaPlayer {
    AlphaBetaPlayer::new(AlphaBetaConfig {
        depth: Some(depth),
        millis: None,
        quiescence: 4,
        tt_mebibytes: 1,
        seed: 7,
    })
    .record_nodes(record)
}

/// A game after `turns` random opening turns, its history forgotten (a fresh start there).
fn midgame(seed: u64, turns: u32) -> Game {
    let rules = Rules::default();
    let mut game = Game::new(rules);
    for turn in random_opening(seed, turns, rules) {
        game.play_turn(&turn).unwrap();
    }
    Game::from_position(*game.position(), rules)
}

/// A score on one line: forced results beyond every evaluation.
fn rank(score: Score) -> i64 {
    match score {
        Score::Centistones(cs) => i64::from(cs),
        Score::WinIn(n) => 1_000_000 - i64::from(n),
        Score::LossIn(n) => -1_000_000 + i64::from(n),
        other => panic!("unexpected score {other:?}"),
    }
}

/// The score a fresh search of `pos` alone, `depth` turns deep, gives (none for a forced
/// turn, which the player plays unsearched).
fn fresh_score(pos: &Position, depth: u32) -> Option<Score> {
    let game = Game::from_position(*pos, Rules::default());
    let choice = player(depth, false).choose(&game, None).unwrap();
    choice.info.score
}

fn check(node: &SearchedNode) -> Result<(), String> {
    let Some(fresh) = fresh_score(&node.position, node.depth) else {
        return Ok(());
    };
    let fresh = rank(fresh);
    let recorded = rank(node.score);
    let forced = |s: i64| s.abs() >= 900_000;
    if forced(fresh) || forced(recorded) {
        // Forced results count their distance from different roots: only the sign compares.
        return if fresh.signum() == recorded.signum() || node.bound != ScoreBound::Exact {
            Ok(())
        } else {
            Err(format!("forced results differ: {fresh} and {recorded}"))
        };
    }
    let holds = match node.bound {
        ScoreBound::Exact => fresh == recorded,
        ScoreBound::Lower => fresh >= recorded,
        ScoreBound::Upper => fresh <= recorded,
    };
    if holds {
        Ok(())
    } else {
        Err(format!(
            "{:?} {recorded} at depth {}, a fresh search says {fresh}",
            node.bound, node.depth
        ))
    }
}

#[test]
fn recorded_scores_and_bounds_hold_for_a_fresh_search_of_the_node() {
    let mut checked = [0usize; 3];
    let mut failures = Vec::new();
    for seed in 0..6u64 {
        let game = midgame(seed, 8);
        if game.outcome().is_some() || game.position().legal_turns().len() < 2 {
            continue;
        }
        let mut p = player(3, true);
        p.choose(&game, None).unwrap();
        let nodes = p.take_nodes();
        assert!(
            !nodes.is_empty(),
            "seed {seed}: a depth-3 search records nodes"
        );
        assert!(
            p.take_nodes().is_empty(),
            "taking the nodes empties the record"
        );
        for node in nodes.iter().step_by(7).take(25) {
            assert!((1..=2).contains(&node.depth), "{node:?}");
            assert!(node.position.is_turn_start());
            checked[node.bound as usize] += 1;
            if let Err(e) = check(node) {
                failures.push(format!("seed {seed}: {e}"));
            }
        }
    }
    // Transpositions reached along different paths may see a repetition one way and not the
    // other: allow a few, never many.
    let total: usize = checked.iter().sum();
    assert!(
        failures.len() * 20 <= total,
        "{} of {total} nodes disagree: {failures:#?}",
        failures.len()
    );
    assert!(
        checked.iter().all(|&c| c > 0),
        "exact nodes and both kinds of bound are recorded: {checked:?}"
    );
}

#[test]
fn nothing_is_recorded_unless_asked_or_against_a_clock() {
    let game = midgame(3, 8);
    let mut p = player(3, false);
    p.choose(&game, None).unwrap();
    assert!(p.take_nodes().is_empty());
    let mut timed = player(3, true);
    timed
        .choose(&game, Some(fanorona_players::Limit::Millis(50)))
        .unwrap();
    assert!(
        timed.take_nodes().is_empty(),
        "a timed search records nothing"
    );
}

#[test]
fn recording_does_not_change_the_search() {
    for seed in 0..4u64 {
        let game = midgame(seed, 6);
        if game.outcome().is_some() {
            continue;
        }
        let a = player(3, false).choose(&game, None).unwrap();
        let b = player(3, true).choose(&game, None).unwrap();
        assert_eq!(a.turn, b.turn);
        assert_eq!(a.info.score, b.info.score);
        assert_eq!(a.info.nodes, b.info.nodes);
    }
}

/// Every position reached from `root` by `turn`, then any `more` turns, then up to
/// `captures` turns each played where the mover has a capture (every turn then captures).
fn reachable(root: &Position, turn: &Turn, more: u32, captures: u32) -> HashSet<Position> {
    let mut frontier = vec![root.try_play_turn(turn).unwrap()];
    for _ in 0..more {
        let mut next = Vec::new();
        for pos in &frontier {
            pos.for_each_turn(|_, child| next.push(*child));
        }
        frontier = next;
    }
    let mut all: HashSet<Position> = frontier.iter().copied().collect();
    for _ in 0..captures {
        let mut next = Vec::new();
        for pos in frontier.iter().filter(|p| p.has_capture()) {
            pos.for_each_turn(|_, child| next.push(*child));
        }
        all.extend(next.iter().copied());
        frontier = next;
    }
    all
}

#[test]
fn the_leaf_follows_the_chosen_turn_and_its_evaluation_is_the_root_score() {
    let (mut searched, mut found) = (0, 0);
    for seed in 0..40u64 {
        let game = midgame(seed, 4 + (seed % 12) as u32);
        if game.outcome().is_some() {
            continue;
        }
        let root = *game.position();
        let mut p = player(2, false).record_leaf(true);
        let choice = p.choose(&game, None).unwrap();
        let leaf = p.take_leaf();
        assert_eq!(p.take_leaf(), None, "a leaf is taken once");
        let Some(Score::Centistones(score)) = choice.info.score else {
            // A forced turn (unsearched) or a forced result: no leaf.
            assert_eq!(leaf, None, "seed {seed}: {:?}", choice.info.score);
            continue;
        };
        searched += 1;
        let Some((leaf, value)) = leaf else { continue };
        found += 1;
        let ours = leaf.side_to_move() == root.side_to_move();
        assert_eq!(value, if ours { score } else { -score }, "seed {seed}");
        assert_eq!(evaluate(&leaf), value, "seed {seed}");
        assert!(
            reachable(&root, &choice.turn, 1, 4).contains(&leaf),
            "seed {seed}: the leaf is not below the chosen turn"
        );
    }
    assert!(searched >= 25, "{searched}");
    assert!(
        found * 10 >= searched * 8,
        "the leaf was found for {found} of {searched} searches"
    );
}

#[test]
fn no_pv_leaf_unless_asked_or_against_a_clock() {
    let game = midgame(3, 8);
    let mut plain = player(3, false);
    plain.choose(&game, None).unwrap();
    assert_eq!(plain.take_leaf(), None);
    let mut timed = player(3, false).record_leaf(true);
    timed
        .choose(&game, Some(fanorona_players::Limit::Millis(50)))
        .unwrap();
    assert_eq!(timed.take_leaf(), None, "a timed search keeps no leaf");
    let mut fixed = player(3, false).record_leaf(true);
    let a = fixed.choose(&game, None).unwrap();
    let b = player(3, false).choose(&game, None).unwrap();
    assert_eq!(
        (a.turn, a.info.nodes),
        (b.turn, b.info.nodes),
        "the search is unchanged"
    );
}
