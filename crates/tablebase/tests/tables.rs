//! Named endgames, symmetry, the table files (resume, damage, other rules) and verification.

mod common;

use std::sync::OnceLock;

use fanorona_data::container;
use fanorona_engine::{Color, Position, Rules, Setup, Symmetry, parse_position};
use fanorona_tablebase::build::{self, Progress};
use fanorona_tablebase::{MAGIC, Probe, ProbeError, TableError, Tablebase, VERSION, Wdl};
use fanorona_testkit::{Rng, TempDir, board};
use proptest::prelude::*;

/// Every class up to 4 stones for the default no-progress limit of 50.
fn tables() -> &'static Tablebase {
    static TB: OnceLock<Tablebase> = OnceLock::new();
    TB.get_or_init(|| build::build_in_memory(4, 50, 2, &mut |_| {}).unwrap())
}

fn with_counter(pos: &Position, counter: u32) -> Position {
    common::at_counter(pos, counter)
}

#[test]
fn a_stone_with_no_free_neighbour_has_lost_even_at_the_limit() {
    // Black's corner stone cannot move: White has won by blockade. The loss comes before the
    // no-progress draw, so it holds at the limit too.
    let pos = board(
        "
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        W W . . . . . . .
        B W . . . . . . .",
        Color::Black,
    );
    for counter in [0, 49, 50, 80] {
        let probe = tables().probe(&with_counter(&pos, counter)).unwrap();
        assert_eq!(
            probe,
            Probe {
                wdl: Wdl::Loss,
                dtz: 0
            },
            "counter {counter}"
        );
    }
}

#[test]
fn a_lone_stone_far_from_the_other_cannot_be_caught() {
    let pos = board(
        "
        . . . . . . . . B
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        W . . . . . . . .",
        Color::White,
    );
    assert_eq!(tables().probe(&pos).unwrap(), Probe::DRAW);
    assert_eq!(
        tables().probe(&with_counter(&pos, 30)).unwrap(),
        Probe::DRAW
    );
}

#[test]
fn the_longest_two_against_one_win_is_a_draw_once_the_counter_leaves_too_little_time() {
    // Two stones hunt one: White wins, but the next capture is 28 turns away with best
    // defence. With 23 turns already played without a capture, only 27 remain: a draw.
    let pos = board(
        "
        . . . . . . . . .
        . . . . . . . . .
        . . . B . . . . .
        . . . . . . . . .
        W W . . . . . . .",
        Color::White,
    );
    let tb = tables();
    assert_eq!(
        tb.probe(&pos).unwrap(),
        Probe {
            wdl: Wdl::Win,
            dtz: 28
        }
    );
    assert_eq!(
        tb.probe(&with_counter(&pos, 22)).unwrap(),
        Probe {
            wdl: Wdl::Win,
            dtz: 28
        }
    );
    assert_eq!(tb.probe(&with_counter(&pos, 23)).unwrap(), Probe::DRAW);
    // the only winning turn, and the table's choice
    let ranked = tb.rank_turns(&pos).unwrap();
    assert_eq!(ranked[0].0.to_string(), "a1b2");
    assert_eq!(
        ranked[0].1,
        Probe {
            wdl: Wdl::Win,
            dtz: 28
        }
    );
    assert!(ranked[1..].iter().all(|(_, p)| p.wdl != Wdl::Win));
}

#[test]
fn playing_the_best_turns_wins_within_the_limit() {
    // From the long win above, the table's turns for White and for Black make the capture
    // happen exactly when the distance says: on turn 28, Black's, forced to take a stone into
    // a lost one-against-one.
    let mut pos = parse_position("9/9/3B5/9/WW7 w 0 1").unwrap();
    let tb = tables();
    for played in 1..=28 {
        let (turn, result) = tb.best_turn(&pos).unwrap().unwrap();
        pos = pos.try_play_turn(&turn).unwrap();
        if played < 28 {
            assert!(!turn.is_capture(), "turn {played} {turn} captured early");
            assert_eq!(result.dtz, 29 - played);
        } else {
            assert!(turn.is_capture(), "turn 28 must capture");
        }
    }
    assert_eq!(pos.side_to_move(), Color::White);
    assert_eq!(pos.stones(Color::White).count(), 1);
    assert_eq!(tb.probe(&pos).unwrap().wdl, Wdl::Win);
}

#[test]
fn probing_refuses_chains_and_uncovered_material() {
    let tb = tables();
    let start = Position::start();
    assert!(matches!(
        tb.probe(&start),
        Err(ProbeError::NotCovered {
            own: 22,
            other: 22,
            max: 4
        })
    ));
    let five = parse_position("9/9/9/9/WWW4BB w 0 1").unwrap();
    let err = tb.probe(&five).unwrap_err();
    assert!(err.to_string().contains("up to 4 stones"), "{err}");
    // a chain in progress
    let chain_start = parse_position("9/9/9/1B7/WW1B5 w 0 1").unwrap();
    let mut mid = None;
    chain_start.for_each_turn(|_, _| {});
    for &a in chain_start.legal_actions().iter() {
        let next = chain_start.apply(a);
        if next.chain().is_some() {
            mid = Some(next);
        }
    }
    if let Some(mid) = mid {
        assert_eq!(tb.probe(&mid), Err(ProbeError::MidChain));
    }
}

fn random_small(rng: &mut Rng) -> Position {
    let stones = 2 + rng.below(3);
    let own = 1 + rng.below(stones - 1);
    let side = if rng.below(2) == 0 {
        Color::White
    } else {
        Color::Black
    };
    let pos = fanorona_testkit::random_position(rng, own, stones - own, side);
    with_counter(&pos, rng.below(55) as u32)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]
    #[test]
    fn symmetric_and_colour_swapped_positions_probe_equal(seed in any::<u64>()) {
        let mut rng = Rng::new(seed);
        let pos = random_small(&mut rng);
        let tb = tables();
        let probe = tb.probe(&pos).unwrap();
        for s in Symmetry::ALL {
            prop_assert_eq!(tb.probe(&s.position(&pos)).unwrap(), probe);
        }
        let us = pos.side_to_move();
        let swapped = Position::from_setup(&Setup {
            stones: fanorona_engine::ByColor([pos.stones(Color::Black), pos.stones(Color::White)]),
            side_to_move: !us,
            ..pos.to_setup()
        }).unwrap();
        prop_assert_eq!(tb.probe(&swapped).unwrap(), probe);
    }
}

#[test]
fn a_build_into_a_directory_resumes_and_reads_back_the_same_results() {
    let dir = TempDir::new("tablebase-files");
    let mut solved = 0;
    let built = build::build_dir(&dir, 3, 50, 2, &mut |p| {
        if matches!(p, Progress::Solved(_)) {
            solved += 1;
        }
    })
    .unwrap();
    assert_eq!(solved, 3);
    // an interrupted build: one class gone
    std::fs::remove_file(dir.join("1v2.fntb")).unwrap();
    let (mut loaded, mut solved) = (0, 0);
    build::build_dir(&dir, 3, 50, 2, &mut |p| match p {
        Progress::Loaded(_) => loaded += 1,
        Progress::Solved(_) => solved += 1,
        Progress::Plan { .. } => {}
    })
    .unwrap();
    assert_eq!(
        (loaded, solved),
        (1, 2),
        "1v1 loaded, the pair 1v2/2v1 solved again"
    );
    let opened = Tablebase::open(&dir, Rules::default()).unwrap();
    assert_eq!(opened.max_stones(), 3);
    let mut rng = Rng::new(7);
    for _ in 0..500 {
        let stones = 2 + rng.below(2);
        let own = 1 + rng.below(stones - 1);
        let pos = fanorona_testkit::random_position(&mut rng, own, stones - own, Color::White);
        assert_eq!(opened.probe(&pos), built.probe(&pos));
    }
}

fn built_dir(name: &str) -> TempDir {
    let dir = TempDir::new(name);
    build::build_dir(&dir, 3, 50, 1, &mut |_| {}).unwrap();
    dir
}

#[test]
fn a_damaged_or_truncated_file_is_rejected_with_its_name() {
    let dir = built_dir("tablebase-damaged");
    // A damaged results file: the tables do not open.
    let wdl = dir.join("2v1.fnwdl");
    let good_wdl = std::fs::read(&wdl).unwrap();
    let mut bytes = good_wdl.clone();
    let last = bytes.len() - 1;
    bytes[last] ^= 0x40;
    std::fs::write(&wdl, &bytes).unwrap();
    let err = Tablebase::open(&dir, Rules::default())
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("2v1.fnwdl") && err.contains("checksum"),
        "{err}"
    );
    std::fs::write(&wdl, &good_wdl).unwrap();

    // A damaged distance file opens (its head is sound; the body is read when a distance is
    // first needed), and the probe that needs it says which file is damaged; draws, which
    // need no distance, still answer.
    let path = dir.join("2v1.fntb");
    let mut bytes = std::fs::read(&path).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0x40;
    std::fs::write(&path, &bytes).unwrap();
    let tb = Tablebase::open(&dir, Rules::default()).unwrap();
    let won = parse_position("9/9/3B5/9/WW7 w 0 1").unwrap();
    let err = tb.probe(&won).unwrap_err().to_string();
    assert!(
        err.contains("2v1.fntb") && err.contains("checksum"),
        "{err}"
    );
    let err = build::verify(&tb, 1, &mut |_| {}).unwrap_err().to_string();
    assert!(err.contains("2v1.fntb"), "{err}");
    // cut short, it does not even open
    std::fs::write(&path, &bytes[..bytes.len() / 2]).unwrap();
    let err = Tablebase::open(&dir, Rules::default())
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("2v1.fntb") && err.contains("truncated"),
        "{err}"
    );
    // a damaged class is rebuilt by the next build
    build::build_dir(&dir, 3, 50, 1, &mut |_| {}).unwrap();
    let tb = Tablebase::open(&dir, Rules::default()).unwrap();
    assert_eq!(tb.probe(&won).unwrap().dtz, 28);
}

#[test]
fn a_results_file_is_written_again_beside_its_distances_and_distances_alone_still_open() {
    let dir = built_dir("tablebase-wdl-again");
    let before = Tablebase::open(&dir, Rules::default()).unwrap();
    // tables from before results files existed: distance files only
    for (a, b) in [(1, 1), (1, 2), (2, 1)] {
        std::fs::remove_file(dir.join(fanorona_tablebase::wdl_file_name(a, b))).unwrap();
    }
    let old = Tablebase::open(&dir, Rules::default()).unwrap();
    // a results file alone is refused
    let lonely = TempDir::new("tablebase-wdl-alone");
    std::fs::copy(dir.join("1v1.fntb"), lonely.join("1v1.fntb")).unwrap();
    build::build_dir(&lonely, 2, 50, 1, &mut |_| {}).unwrap();
    std::fs::remove_file(lonely.join("1v1.fntb")).unwrap();
    let err = Tablebase::open(&lonely, Rules::default())
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("1v1.fnwdl") && err.contains("1v1.fntb is missing"),
        "{err}"
    );
    // the next build writes the results files again, solving nothing
    let mut solved = 0;
    build::build_dir(&dir, 3, 50, 1, &mut |p| {
        solved += matches!(p, Progress::Solved(_)) as usize
    })
    .unwrap();
    assert_eq!(solved, 0);
    assert!(dir.join("2v1.fnwdl").exists());
    let again = Tablebase::open(&dir, Rules::default()).unwrap();
    let mut rng = Rng::new(11);
    for _ in 0..500 {
        let stones = 2 + rng.below(2);
        let own = 1 + rng.below(stones - 1);
        let pos = fanorona_testkit::random_position(&mut rng, own, stones - own, Color::White);
        let pos = with_counter(&pos, rng.below(51) as u32);
        assert_eq!(old.probe(&pos), before.probe(&pos));
        assert_eq!(again.probe(&pos), before.probe(&pos));
    }
}

#[test]
fn tables_for_other_rules_are_not_used() {
    let dir = built_dir("tablebase-rules");
    let err = Tablebase::open(
        &dir,
        Rules {
            no_progress_limit: 40,
        },
    )
    .unwrap_err();
    assert!(
        matches!(
            err,
            TableError::Rules {
                file: 50,
                wanted: 40,
                ..
            }
        ),
        "{err}"
    );
    assert!(err.to_string().contains("1v1.fnwdl"), "{err}");
    // and a build for other rules refuses to mix them into the directory
    let err = build::build_dir(&dir, 3, 40, 1, &mut |_| {}).unwrap_err();
    assert!(matches!(err, TableError::Rules { .. }), "{err}");
    assert!(matches!(
        Tablebase::open(
            &dir,
            Rules {
                no_progress_limit: 0
            }
        ),
        Err(TableError::Limit(0))
    ));
}

#[test]
fn a_misnamed_table_and_a_wrong_entry_are_caught() {
    let dir = built_dir("tablebase-misnamed");
    std::fs::copy(dir.join("1v2.fntb"), dir.join("2v1.fntb")).unwrap();
    let err = Tablebase::open(&dir, Rules::default())
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("2v1.fntb") && err.contains("holds class 1v2"),
        "{err}"
    );

    // A well-formed file whose content is wrong: one result changed, checksum redone. Opening
    // accepts it (it is a table), verification does not.
    let dir = built_dir("tablebase-wrong-entry");
    let path = dir.join("2v1.fntb");
    let mut payload = container::read(&path, MAGIC, VERSION).unwrap();
    let tb = Tablebase::open(&dir, Rules::default()).unwrap();
    assert!(build::verify(&tb, 2, &mut |_| {}).is_ok());
    let i = 16 + payload[16..].iter().position(|&e| e == 1).unwrap(); // a win in 1
    payload[i] = 3; // now "win in 2"
    container::write_atomic(&path, MAGIC, VERSION, &payload).unwrap();
    let tb = Tablebase::open(&dir, Rules::default()).unwrap();
    let err = build::verify(&tb, 2, &mut |_| {}).unwrap_err().to_string();
    assert!(
        err.contains("class 2v1") && err.contains("win in 2"),
        "{err}"
    );
}

#[test]
fn the_four_stone_tables_verify() {
    let report = build::verify(tables(), 2, &mut |_| {}).unwrap();
    assert_eq!(report.classes, 6);
    assert!(report.positions > 500_000);
}

#[test]
fn tables_limited_to_fewer_stones_cover_only_those() {
    let limited = tables().up_to(3);
    assert_eq!(limited.max_stones(), 3);
    let four = parse_position("9/9/9/9/WW1B1B3 w 0 1").unwrap();
    let three = parse_position("9/9/3B5/9/WW7 w 0 1").unwrap();
    assert!(tables().covers(&four) && !limited.covers(&four));
    assert!(matches!(
        limited.probe(&four),
        Err(ProbeError::NotCovered { max: 3, .. })
    ));
    assert_eq!(limited.probe(&three), tables().probe(&three));
}

#[test]
fn a_probe_with_a_clock_never_waits_for_a_distance_file() {
    let dir = built_dir("tablebase-ready");
    let tb = Tablebase::open(&dir, Rules::default()).unwrap();
    let won = parse_position("9/9/3B5/9/WW7 w 0 1").unwrap();
    // a draw needs no distance
    let drawn = parse_position("9/9/9/9/W7B w 0 1").unwrap();
    assert_eq!(
        tb.probe(&drawn).unwrap().wdl,
        tb.probe_ready(&drawn).unwrap().wdl
    );
    // the first probe of a win starts reading 2v1's distances and does not wait for them
    assert_eq!(tb.probe_ready(&won), Err(ProbeError::Reading));
    let started = std::time::Instant::now();
    let answer = loop {
        match tb.probe_ready(&won) {
            Err(ProbeError::Reading) if started.elapsed().as_secs() < 30 => {
                std::thread::sleep(std::time::Duration::from_millis(5))
            }
            other => break other,
        }
    };
    assert_eq!(answer.unwrap().dtz, 28);
}

/// Opens the tables in `dir` on a thread of its own, so that a reader that blocks fails the
/// test instead of hanging it.
fn open_within_seconds(dir: &std::path::Path) -> Result<Tablebase, TableError> {
    let (send, receive) = std::sync::mpsc::channel();
    let dir = dir.to_path_buf();
    std::thread::spawn(move || {
        let _ = send.send(Tablebase::open(&dir, Rules::default()));
    });
    receive
        .recv_timeout(std::time::Duration::from_secs(20))
        .expect("opening the tables blocked")
}

#[test]
fn a_fifo_or_a_folder_in_place_of_a_table_file_is_refused_at_once() {
    // A FIFO where a distance file belongs hung every command that opened the tables (the
    // head of the file was read with a plain open, which waits for a writer).
    let dir = built_dir("tablebase-fifo");
    for name in ["1v1.fntb", "1v1.fnwdl"] {
        let path = dir.join(name);
        let good = std::fs::read(&path).unwrap();
        std::fs::remove_file(&path).unwrap();
        fanorona_testkit::make_fifo(&path);
        let err = open_within_seconds(&dir).unwrap_err().to_string();
        assert!(
            err.contains(name) && err.contains("not a regular file (fifo)"),
            "{err}"
        );
        std::fs::remove_file(&path).unwrap();
        std::fs::create_dir(&path).unwrap();
        let err = open_within_seconds(&dir).unwrap_err().to_string();
        assert!(
            err.contains(name) && err.contains("not a regular file (directory)"),
            "{err}"
        );
        std::fs::remove_dir(&path).unwrap();
        std::fs::write(&path, good).unwrap();
    }
    assert!(open_within_seconds(&dir).is_ok());
}

#[test]
fn a_distance_file_damaged_or_removed_after_opening_is_reported_once_in_play() {
    // Probes in play (a search) used to drop such a class without a word.
    let dir = built_dir("tablebase-report");
    let told = std::sync::Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
    let sink = std::sync::Arc::clone(&told);
    let tb = Tablebase::open(&dir, Rules::default())
        .unwrap()
        .on_unreadable(std::sync::Arc::new(move |m: &str| {
            sink.lock().unwrap().push(m.to_string())
        }));
    // damaged after the tables were opened
    let path = dir.join("2v1.fntb");
    let mut bytes = std::fs::read(&path).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0x40;
    std::fs::write(&path, &bytes).unwrap();
    // and 1v2's removed
    std::fs::remove_file(dir.join("1v2.fntb")).unwrap();
    let won = parse_position("9/9/3B5/9/WW7 w 0 1").unwrap();
    // White's winning turn leaves Black to move, lost, in class 1v2
    let lost = won.try_play_turn(&"a1b2".parse().unwrap()).unwrap();
    for _ in 0..3 {
        assert!(tb.probe(&won).is_err());
        assert!(tb.probe(&lost).is_err());
    }
    let started = std::time::Instant::now();
    while told.lock().unwrap().len() < 2 && started.elapsed().as_secs() < 20 {
        let _ = tb.probe_ready(&won);
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    let told = told.lock().unwrap().clone();
    assert_eq!(told.len(), 2, "{told:?}");
    assert!(
        told.iter().any(|m| m.contains("2v1.fntb")
            && m.contains("checksum")
            && m.contains("2 against 1 stones are played without the tables")),
        "{told:?}"
    );
    assert!(told.iter().any(|m| m.contains("1v2.fntb")), "{told:?}");
}
