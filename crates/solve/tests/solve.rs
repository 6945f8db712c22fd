//! The solver against what is known: the endgame tables' values, rule cases drawn as pictures,
//! the no-progress counter, certificates checked and tampered with, a stopped search resumed.

use std::sync::{Arc, OnceLock};

use fanorona_data::container::{self, SectionWriter, Sections};
use fanorona_engine::{Color, Position, Rules, Setup, parse_position};
use fanorona_solve::certificate::{CERTIFICATE_MAGIC, CERTIFICATE_VERSION};
use fanorona_solve::check::{CheckError, check, check_with};
use fanorona_solve::state::{Saved, StateHead};
use fanorona_solve::{
    Certificate, Goal, Prover, SolveError, SolveOptions, StrategyError, Verdict, solve, solve_with,
};
use fanorona_tablebase::{Tablebase, Wdl, build};
use fanorona_testkit::{Rng, TempDir, board, random_position};

fn tables() -> Arc<Tablebase> {
    static TB: OnceLock<Arc<Tablebase>> = OnceLock::new();
    TB.get_or_init(|| Arc::new(build::build_in_memory(4, 50, 2, &mut |_| {}).unwrap()))
        .clone()
}

fn options() -> SolveOptions {
    SolveOptions {
        table_bytes: 8 << 20,
        ..SolveOptions::default()
    }
}

fn at_counter(pos: Position, counter: u32) -> Position {
    let mut setup: Setup = pos.to_setup();
    setup.no_capture_turns = counter;
    Position::from_setup(&setup).unwrap()
}

/// Two against one: a win whose next capture is 28 turns away with best defence, a draw from
/// counter 23 on (docs/tablebase.md).
const LONG_WIN: &str = "9/9/3B5/9/WW7 w 0 1";

#[test]
fn values_agree_with_the_tables_on_random_positions() {
    let tb = tables();
    let mut rng = Rng::new(44);
    let mut seen = [0usize; 3];
    for n in 0..24 {
        let (white, black) = [(2, 1), (1, 2), (2, 2), (3, 1), (1, 3)][n % 5];
        let side = if rng.below(2) == 0 {
            Color::White
        } else {
            Color::Black
        };
        let counter = [0, 10, 30, 45][rng.below(4)];
        let pos = at_counter(random_position(&mut rng, white, black, side), counter);
        let expected = tb.probe(&pos).unwrap().wdl;
        // The search gets the tables of fewer stones only: it has to find the value itself.
        let below = Arc::new(tb.up_to(white + black - 1));
        let solution = solve(&pos, Some(Arc::clone(&below)), &options()).unwrap();
        let text = fanorona_engine::format_position(&pos);
        assert_eq!(solution.value, Some(expected), "{text}");
        let certificate = solution.certificate.expect("a certificate");
        assert_eq!(certificate.table_stones, white + black - 1);
        let report = check(&certificate, Some(&tb)).unwrap();
        assert_eq!(report.value, Some(expected), "{text}");
        seen[(expected.sign() + 1) as usize] += 1;
    }
    // The sample holds all three results.
    assert!(seen.iter().all(|&n| n > 0), "{seen:?}");
}

#[test]
fn the_long_win_is_found_without_tables_and_the_counter_turns_it_into_a_draw() {
    let pos = parse_position(LONG_WIN).unwrap();
    let won = solve(&pos, None, &options()).unwrap();
    assert_eq!(won.value, Some(Wdl::Win));
    let cert = won.certificate.unwrap();
    assert_eq!(cert.claims.len(), 1);
    assert_eq!(
        (cert.claims[0].side, cert.claims[0].at_least),
        (Color::White, Wdl::Win)
    );
    assert_eq!(check(&cert, None).unwrap().value, Some(Wdl::Win));
    // 28 turns to the capture: from counter 22 there is just time, from 23 there is not.
    let late = solve(&at_counter(pos, 22), None, &options()).unwrap();
    assert_eq!(late.value, Some(Wdl::Win));
    let too_late = solve(&at_counter(pos, 23), None, &options()).unwrap();
    assert_eq!(too_late.value, Some(Wdl::Draw));
    let cert = too_late.certificate.unwrap();
    assert_eq!(cert.claims.len(), 2, "both sides' draws");
    assert_eq!(check(&cert, None).unwrap().value, Some(Wdl::Draw));
}

#[test]
fn forced_wins_drawn_as_pictures() {
    // White's stone on e3 withdraws from d3 to f3, then approaches f1 from f3 to f2: both
    // stones in one turn of two steps (any other turn leaves Black a stone).
    let chain = board(
        "
        . . . . . . . . .
        . . . . . . . . .
        . . . B W . . . .
        . . . . . . . . .
        . . . . . B . . .",
        Color::White,
    );
    let solution = solve(&chain, None, &options()).unwrap();
    assert_eq!(solution.value, Some(Wdl::Win));
    let cert = solution.certificate.unwrap();
    let root_turn = cert.claims[0].turns.turn(&chain).unwrap();
    let after = chain.try_play_turn(&root_turn).unwrap();
    assert!(
        after.stones(Color::Black).is_empty(),
        "the proof's turn takes both stones: {root_turn}"
    );
    // Black to move, walled in: no legal move is a loss, proven at the root itself.
    let stuck = board(
        "
        B W . . . . . . .
        W W . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . W",
        Color::Black,
    );
    let solution = solve(&stuck, None, &options()).unwrap();
    assert_eq!(solution.value, Some(Wdl::Loss));
    assert_eq!(
        check(&solution.certificate.unwrap(), None).unwrap().value,
        Some(Wdl::Loss)
    );
}

#[test]
fn a_tampered_certificate_is_refused() {
    let pos = at_counter(parse_position(LONG_WIN).unwrap(), 23);
    let cert = solve(&pos, None, &options()).unwrap().certificate.unwrap();
    check(&cert, None).unwrap();
    // A turn missing.
    let mut missing = cert.clone();
    assert!(missing.claims[0].turns.remove(&pos));
    assert!(matches!(
        check(&missing, None),
        Err(CheckError::MissingTurn { claim: 0, .. })
    ));
    // Found by threads sharing the walk as well, which stop there.
    assert!(matches!(
        check_with(&missing, None, 2),
        Err(CheckError::MissingTurn { claim: 0, .. })
    ));
    // A turn of another position: a strategy cannot hold it.
    let mut foreign = cert.clone();
    let other: fanorona_engine::Turn = "i5h5".parse().unwrap();
    let root_claim = foreign
        .claims
        .iter_mut()
        .find(|c| c.side == pos.side_to_move())
        .unwrap();
    assert!(matches!(
        root_claim.turns.insert(&pos, &other),
        Err(StrategyError::NotATurn { .. })
    ));
    // Another of the root's turns in place of the proof's: the check finds where it falls
    // short (a position its strategy does not cover, or a worse result).
    let proof_turn = root_claim.turns.turn(&pos).unwrap();
    let mut wrong = 0;
    for (turn, _) in after_each_turn(&pos) {
        if turn == proof_turn {
            continue;
        }
        let mut swapped = cert.clone();
        let claim = swapped
            .claims
            .iter_mut()
            .find(|c| c.side == pos.side_to_move())
            .unwrap();
        claim.turns.insert(&pos, &turn).unwrap();
        if check(&swapped, None).is_err() {
            wrong += 1;
        }
    }
    assert!(
        wrong > 0,
        "some other turn of the root does not keep the draw"
    );
    // A draw claimed as a win: refused where the game ends short of it, or, since a draw's
    // strategy holds turns at the lowest counters a placement is met at and a win needs them
    // at the highest, at a position its strategy has no turn for.
    let mut greedy = cert.clone();
    greedy.claims[0].at_least = Wdl::Win;
    for threads in [1, 3] {
        assert!(matches!(
            check_with(&greedy, None, threads),
            Err(CheckError::FallsShort { .. } | CheckError::MissingTurn { .. })
        ));
    }
    // One turn before the no-progress draw, White's turn ends the game drawn: claimed as a
    // win, it falls short there.
    let last = at_counter(parse_position(LONG_WIN).unwrap(), 49);
    let mut short = solve(&last, None, &options()).unwrap().certificate.unwrap();
    let white = short
        .claims
        .iter_mut()
        .find(|c| c.side == Color::White)
        .unwrap();
    assert_eq!(white.at_least, Wdl::Draw);
    white.at_least = Wdl::Win;
    for threads in [1, 3] {
        assert!(matches!(
            check_with(&short, None, threads),
            Err(CheckError::FallsShort { .. })
        ));
    }
    // Tables it leans on but the check lacks.
    let mut leaning = cert.clone();
    leaning.table_stones = 3;
    assert_eq!(
        check(&leaning, None),
        Err(CheckError::NeedsTables { needed: 3 })
    );
    // The file: written, read back equal, and a flipped byte refused.
    let dir = TempDir::new("solve-cert");
    let path = dir.join("c.fnproof");
    cert.save(&path).unwrap();
    assert_eq!(Certificate::load(&path).unwrap(), cert);
    let mut bytes = std::fs::read(&path).unwrap();
    let n = bytes.len();
    bytes[n - 3] ^= 0x10;
    std::fs::write(&path, &bytes).unwrap();
    let err = Certificate::load(&path).unwrap_err().to_string();
    assert!(err.contains("c.fnproof"), "{err}");
    // Version 1 (a turn at every counter) is read as it is; a version to come is refused by
    // its number.
    cert.save(&path).unwrap();
    let payload = container::read(&path, &CERTIFICATE_MAGIC, CERTIFICATE_VERSION).unwrap();
    container::write_atomic(&path, &CERTIFICATE_MAGIC, 1, &payload).unwrap();
    assert_eq!(Certificate::load(&path).unwrap(), cert);
    container::write_atomic(&path, &CERTIFICATE_MAGIC, 3, &payload).unwrap();
    let err = Certificate::load(&path).unwrap_err().to_string();
    assert!(err.contains("version"), "{err}");
    // A file whose entry names a turn the position does not have: refused when read, with
    // the entry and the turn.
    cert.save(&path).unwrap();
    let payload = container::read(&path, &CERTIFICATE_MAGIC, CERTIFICATE_VERSION).unwrap();
    let sections = Sections::parse(&path, &payload).unwrap();
    let claim0 = sections.require("claim0").unwrap();
    let len = usize::from(claim0[19]);
    let mut tampered = claim0[..19].to_vec();
    tampered.push(4);
    tampered.extend_from_slice(b"i5h5");
    tampered.extend_from_slice(&claim0[20 + len..]);
    let mut writer = SectionWriter::new().section("head", sections.require("head").unwrap());
    writer = writer.section("claim0", &tampered);
    for i in 1..cert.claims.len() {
        let name = format!("claim{i}");
        writer = writer.section(&name, sections.require(&name).unwrap());
    }
    container::write_atomic(
        &path,
        &CERTIFICATE_MAGIC,
        CERTIFICATE_VERSION,
        &writer.finish(),
    )
    .unwrap();
    let err = Certificate::load(&path).unwrap_err().to_string();
    assert!(
        err.contains("entry 0") && err.contains("i5h5 is not a turn of"),
        "{err}"
    );
}

#[test]
fn a_stopped_search_resumes_from_what_it_saved() {
    let pos = parse_position(LONG_WIN).unwrap();
    let fresh = solve(&pos, None, &options()).unwrap();
    let stopped_opts = SolveOptions {
        max_nodes: Some(fresh.nodes / 4),
        ..options()
    };
    let (stopped, saved) = solve_with(&pos, None, &stopped_opts, &Saved::default(), None).unwrap();
    assert_eq!(stopped.value, None);
    assert!(!saved.is_empty());
    let dir = TempDir::new("solve-state");
    let path = dir.join("s.fnsv");
    let head = StateHead {
        position: LONG_WIN.into(),
        no_progress_limit: 50,
        table_stones: 0,
    };
    saved.save(&path, &head).unwrap();
    let (found, loaded) = Saved::load(&path).unwrap();
    assert_eq!((found, &loaded), (head, &saved));
    let (resumed, _) = solve_with(&pos, None, &options(), &loaded, None).unwrap();
    assert_eq!(resumed.value, Some(Wdl::Win));
    assert!(
        resumed.nodes < fresh.nodes,
        "resumed {} nodes, fresh {}",
        resumed.nodes,
        fresh.nodes
    );
}

#[test]
fn a_mid_chain_position_and_rules_without_a_limit_are_refused() {
    let start = Position::start();
    let walk = fanorona_testkit::random_walk(&mut Rng::new(3), start, 400);
    let mid = walk
        .iter()
        .find(|p| !p.is_turn_start())
        .expect("a random game goes through a chain");
    let mut p = Prover::new(None, Goal::Win, options());
    assert_eq!(p.prove(mid), Err(SolveError::MidChain));
    let no_limit = SolveOptions {
        rules: Rules {
            no_progress_limit: 0,
        },
        ..options()
    };
    let mut p = Prover::new(None, Goal::Win, no_limit);
    assert_eq!(p.prove(&start), Err(SolveError::NoLimit));
}

/// The positions after each of `pos`'s turns, with the turn.
fn after_each_turn(pos: &Position) -> Vec<(fanorona_engine::Turn, Position)> {
    let mut out = Vec::new();
    pos.for_each_turn(|t, after| out.push((*t, *after)));
    out
}

fn only(goal: Goal) -> SolveOptions {
    SolveOptions {
        only: Some(goal),
        ..options()
    }
}

#[test]
fn a_proof_split_over_the_first_turns_joins_into_the_whole() {
    use fanorona_solve::join::{JoinError, join};
    // A draw: White does not lose (asked of the position), Black does not lose after each of
    // White's turns (asked of each of them), joined and checked.
    let drawn = at_counter(parse_position(LONG_WIN).unwrap(), 23);
    let own = solve(&drawn, None, &only(Goal::NotLose)).unwrap();
    assert_eq!((own.win, own.not_lose), (Verdict::Unknown, Verdict::Proven));
    assert_eq!(own.value, None, "one question does not decide a draw");
    let mut parts = vec![own.certificate.unwrap()];
    let children = after_each_turn(&drawn);
    assert!(children.len() > 3);
    for (_, child) in &children {
        let part = solve(child, None, &only(Goal::NotLose)).unwrap();
        assert_eq!(part.not_lose, Verdict::Proven);
        parts.push(part.certificate.unwrap());
    }
    let whole = join(&drawn, &parts).unwrap();
    assert_eq!(whole.claims.len(), 2);
    assert_eq!(check(&whole, None).unwrap().value, Some(Wdl::Draw));
    // Without one turn's part, Black's half is not proven: the error names the turn.
    let (missing_turn, _) = children[1];
    let mut fewer = parts.clone();
    fewer.remove(2);
    match join(&drawn, &fewer) {
        Err(JoinError::Nothing { missing, .. }) => assert_eq!(missing, missing_turn.to_string()),
        other => panic!("{other:?}"),
    }
    // A part of another position is refused.
    let stranger = solve(&parse_position(LONG_WIN).unwrap(), None, &options()).unwrap();
    let mut wrong = parts.clone();
    wrong.push(stranger.certificate.unwrap());
    assert!(matches!(
        join(&drawn, &wrong),
        Err(JoinError::NotAPart { part, .. }) if part == parts.len() + 1
    ));

    // A win: one turn after which Black loses is enough, and the joined strategy starts with it.
    let won = parse_position(LONG_WIN).unwrap();
    let (turn, after) = after_each_turn(&won)
        .into_iter()
        .find(|(_, child)| solve(child, None, &options()).unwrap().value == Some(Wdl::Loss))
        .expect("a winning turn");
    let lost = solve(&after, None, &only(Goal::NotLose)).unwrap();
    assert_eq!(lost.not_lose, Verdict::Disproven);
    let whole = join(&won, &[lost.certificate.unwrap()]).unwrap();
    assert_eq!(whole.claims[0].turns.turn(&won), Some(turn));
    assert_eq!(check(&whole, None).unwrap().value, Some(Wdl::Win));
}

#[test]
fn a_saved_search_seeds_a_search_of_a_position_after_it() {
    // The whole of the long win's search, saved for White, seen from Black after each turn:
    // the same values as fresh searches, found with no more nodes.
    let pos = parse_position(LONG_WIN).unwrap();
    let (_, saved) = solve_with(&pos, None, &options(), &Saved::default(), None).unwrap();
    let seeded = saved.seen_by(Color::White, Color::Black);
    let (mut fresh_nodes, mut seeded_nodes) = (0, 0);
    for (turn, child) in after_each_turn(&pos) {
        let fresh = solve(&child, None, &options()).unwrap();
        let (again, _) = solve_with(&child, None, &options(), &seeded, None).unwrap();
        assert_eq!(again.value, fresh.value, "after {turn}");
        fresh_nodes += fresh.nodes;
        seeded_nodes += again.nodes;
        if let Some(cert) = again.certificate {
            assert_eq!(
                check(&cert, None).unwrap().value,
                fresh.value,
                "after {turn}"
            );
        }
    }
    // Here: 1.81 M nodes fresh, 1.18 M seeded (a search may take another road with the seed,
    // so single positions can cost a little more).
    assert!(
        seeded_nodes * 4 < fresh_nodes * 3,
        "fresh {fresh_nodes} nodes, seeded {seeded_nodes}"
    );
}

/// What a walk of a claim's strategy met.
struct Walked {
    /// Positions visited.
    visited: usize,
    /// The strategy's entries played at their own position.
    played: std::collections::HashSet<(u64, u64, bool, u32)>,
    /// Positions played with the turn of the same placement at another counter.
    borrowed: usize,
}

/// A claim's strategy walked by the rule the checker states, written here from it: depth
/// first, the turns in the engine's order (as the checker on one thread), a position visited
/// unless its placement (stones, side to move) was visited at a counter that covers its own
/// (`by_counter`: a draw claimed holds at every higher counter once it holds at one, a win at
/// every lower one); where the strategy has no turn at a position's counter, the nearest
/// covering counter's. Without `by_counter`, every counter on its own.
fn walk_the_claim(
    cert: &Certificate,
    claim: usize,
    tb: Option<&Tablebase>,
    by_counter: bool,
) -> Walked {
    let claim = &cert.claims[claim];
    let win = claim.at_least == Wdl::Win;
    let covered = |met: u32, counter: u32| if win { counter <= met } else { counter >= met };
    let placement = |pos: &Position| {
        (
            pos.stones(Color::White).0,
            pos.stones(Color::Black).0,
            pos.side_to_move() == Color::White,
        )
    };
    // Each placement's counters visited.
    let mut met: std::collections::HashMap<_, Vec<u32>> = std::collections::HashMap::new();
    let mut first_time = |pos: &Position| {
        let counters = met.entry(placement(pos)).or_default();
        let c = pos.no_capture_turns();
        let skip = if by_counter {
            counters.iter().any(|&m| covered(m, c))
        } else {
            counters.contains(&c)
        };
        if !skip {
            counters.push(c);
        }
        !skip
    };
    let mut walked = Walked {
        visited: 0,
        played: std::collections::HashSet::new(),
        borrowed: 0,
    };
    let mut stack = vec![cert.position];
    first_time(&cert.position);
    while let Some(pos) = stack.pop() {
        walked.visited += 1;
        if fanorona_solve::check::decided(&pos, cert.rules, tb)
            .unwrap()
            .is_some()
        {
            continue;
        }
        let mut next = Vec::new();
        if pos.side_to_move() == claim.side {
            let c = pos.no_capture_turns();
            let limit = cert.rules.no_progress_limit;
            let nearest: Vec<u32> = if win {
                (c..=limit).collect()
            } else {
                (0..=c).rev().collect()
            };
            let (at, turn) = nearest
                .into_iter()
                .find_map(|at| {
                    claim
                        .turns
                        .turn(&at_counter(pos, at))
                        .map(|turn| (at, turn))
                })
                .expect("a turn of the strategy");
            if at == c {
                let (w, b, s) = placement(&pos);
                walked.played.insert((w, b, s, c));
            } else {
                walked.borrowed += 1;
            }
            pos.for_each_turn(|t, child| {
                if *t == turn {
                    next.push(*child);
                }
            });
        } else {
            pos.for_each_turn(|_, child| next.push(*child));
        }
        for child in next {
            if first_time(&child) {
                stack.push(child);
            }
        }
    }
    walked
}

#[test]
fn the_check_visits_a_placement_once_for_the_counters_it_covers() {
    let tb = tables();
    let mut rng = Rng::new(45);
    let mut certificates = vec![(
        solve(&parse_position(LONG_WIN).unwrap(), None, &options())
            .unwrap()
            .certificate
            .unwrap(),
        None,
    )];
    for n in 0..12 {
        let (white, black) = [(2, 2), (3, 1), (1, 3), (2, 1)][n % 4];
        let pos = at_counter(random_position(&mut rng, white, black, Color::White), 30);
        let below = Arc::new(tb.up_to(white + black - 1));
        let solution = solve(&pos, Some(Arc::clone(&below)), &options()).unwrap();
        certificates.push((solution.certificate.unwrap(), Some(below)));
    }
    let (mut largest, mut by_counter_total, mut every_total) = (0, 0, 0);
    for (cert, tables) in &certificates {
        let shown = fanorona_engine::format_position(&cert.position);
        let report = check(cert, tables.as_deref()).unwrap();
        for (i, (_, _, visited)) in report.claims.iter().enumerate() {
            let walked = walk_the_claim(cert, i, tables.as_deref(), true);
            assert_eq!(*visited, walked.visited, "{shown}");
            // The strategy read after the search walks the same way: it holds a turn exactly
            // where its walk went, so the check plays each and borrows none on one thread.
            assert_eq!(walked.played.len(), cert.claims[i].turns.len(), "{shown}");
            assert_eq!(walked.borrowed, 0, "{shown}");
            let every = walk_the_claim(cert, i, tables.as_deref(), false).visited;
            assert!(walked.visited <= every, "{shown}");
            largest = largest.max(walked.visited);
            by_counter_total += walked.visited;
            every_total += every;
        }
        // Shared between threads, the walk may meet a placement first at another counter (and
        // visit a little more than on one thread); the verdict is the same.
        for threads in [2, 3] {
            let shared = check_with(cert, tables.as_deref(), threads).unwrap();
            assert_eq!(shared.value, report.value, "{threads} threads, {shown}");
            for (i, (a, b)) in shared.claims.iter().zip(&report.claims).enumerate() {
                assert_eq!((a.0, a.1), (b.0, b.1), "{threads} threads, {shown}");
                let every = walk_the_claim(cert, i, tables.as_deref(), false).visited;
                assert!(a.2 <= every, "{threads} threads, {shown}");
            }
        }
    }
    assert!(largest > 1_000, "{largest}");
    // The counter's order saves visits on these certificates.
    assert!(
        by_counter_total * 10 < every_total * 9,
        "{by_counter_total} against {every_total}"
    );
}
