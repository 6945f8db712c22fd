//! `fanorona rate` end to end: one scale from every pairing, the store reused and extended,
//! damage set aside, the time control applied, bad arguments refused.

use fanorona_testkit::TempDir;
use std::path::Path;
use std::process::{Command, Output};

fn fanorona(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_fanorona"))
        .args(args)
        .output()
        .expect("the binary runs")
}

/// `rate` with fast players, no endgame tables, the store in `store`, as JSON.
fn rate(store: &Path, extra: &[&str]) -> (serde_json::Value, String) {
    let mut args = vec![
        "rate",
        "--no-tablebases",
        "--panel",
        "alphabeta:depth=1",
        "--store",
        store.to_str().unwrap(),
        "--json",
    ];
    args.extend_from_slice(extra);
    let out = fanorona(&args);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{stderr}");
    let stdout = String::from_utf8(out.stdout).unwrap();
    let json = serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout}"));
    (json, stderr)
}

fn player<'a>(json: &'a serde_json::Value, name: &str) -> &'a serde_json::Value {
    json["players"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == name)
        .unwrap_or_else(|| panic!("no {name} in {json}"))
}

fn played_now(json: &serde_json::Value) -> Vec<u64> {
    json["pairings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["played_now"].as_u64().unwrap())
        .collect()
}

#[test]
fn players_meet_the_panel_and_land_on_one_scale_anchored_at_depth_2() {
    let dir = TempDir::new("rate-scale");
    let (json, _) = rate(
        dir.path(),
        &["greedy", "random", "--games", "4", "--seed", "3"],
    );
    assert_eq!(json["anchor"], "alphabeta:depth=2");
    let anchor = player(&json, "alphabeta:depth=2");
    assert_eq!(anchor["elo"], 0.0);
    assert_eq!(anchor["panel"], true);
    // The panel among itself, then each player against both panel members.
    let pairings = json["pairings"].as_array().unwrap();
    assert_eq!(pairings.len(), 5, "{json}");
    for p in pairings {
        assert_eq!(p["games"], 4);
        let sum = p["wins"].as_u64().unwrap()
            + p["draws"].as_u64().unwrap()
            + p["losses"].as_u64().unwrap();
        assert_eq!(sum, 4);
        assert!(p["b"].as_str().unwrap().starts_with("alphabeta"), "{p}");
    }
    assert_eq!(player(&json, "greedy")["games"], 8);
    assert_eq!(anchor["games"], 12);
    // Random loses to everyone here; the fit puts it lowest, with an interval around it.
    let random = player(&json, "random");
    let elo = random["elo"].as_f64().unwrap();
    assert!(elo < 0.0, "{json}");
    let ci = random["ci95"].as_array().unwrap();
    assert!(ci[0].as_f64().unwrap() < elo && elo < ci[1].as_f64().unwrap());
    // Every turn was timed; fixed-depth players have no budget.
    assert!(random["time"]["turns"].as_u64().unwrap() > 0);
    assert!(random["time"]["budget_ms"].is_null());
}

#[test]
fn stored_games_are_reused_and_extended_and_a_new_player_plays_only_its_own() {
    let dir = TempDir::new("rate-store");
    let (first, _) = rate(dir.path(), &["greedy", "--games", "2"]);
    assert_eq!(played_now(&first), vec![2, 2, 2]);
    let files: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .flatten()
        .filter(|f| f.path().extension().is_some_and(|e| e == "games"))
        .collect();
    assert_eq!(files.len(), 3);
    for f in &files {
        let text = std::fs::read_to_string(f.path()).unwrap();
        assert!(text.starts_with("# fanorona-pit-games v2\n"), "{text}");
    }

    // Nothing new: nothing played, the same ratings.
    let (again, _) = rate(dir.path(), &["greedy", "--games", "2"]);
    assert_eq!(played_now(&again), vec![0, 0, 0]);
    // Think times are read back from the store, so even they agree.
    assert_eq!(again["players"], first["players"]);

    // More games: only the missing ones; a new player: only its pairings.
    let (more, _) = rate(dir.path(), &["greedy", "random", "--games", "3"]);
    let now = played_now(&more);
    assert_eq!(now.len(), 5);
    assert_eq!(now.iter().sum::<u64>(), 3 + 3 + 1 + 1 + 1, "{more}");
    assert!(
        more["pairings"]
            .as_array()
            .unwrap()
            .iter()
            .all(|p| p["games"] == 3)
    );

    // --stored-only fits what is there without playing.
    let (stored, _) = rate(
        dir.path(),
        &["greedy", "random", "--games", "50", "--stored-only"],
    );
    assert_eq!(played_now(&stored), vec![0; 5]);
    assert!(
        stored["pairings"]
            .as_array()
            .unwrap()
            .iter()
            .all(|p| p["games"] == 3)
    );
}

#[test]
fn a_damaged_stored_pairing_is_set_aside_and_played_again() {
    let dir = TempDir::new("rate-damage");
    rate(dir.path(), &["greedy", "--games", "2"]);
    let victim = std::fs::read_dir(dir.path())
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| p.to_string_lossy().contains("greedy-vs-alphabeta-depth=1"))
        .unwrap();
    let text = std::fs::read_to_string(&victim).unwrap();
    std::fs::write(&victim, text.replacen("white=A", "white=B", 1)).unwrap();
    let (json, stderr) = rate(dir.path(), &["greedy", "--games", "2"]);
    assert!(stderr.contains("checksum mismatch"), "{stderr}");
    assert_eq!(played_now(&json).iter().sum::<u64>(), 2, "{json}");
    let aside = victim.with_extension("games.damaged");
    assert!(aside.exists(), "the damaged file is kept");
    assert!(
        std::fs::read_to_string(&victim)
            .unwrap()
            .starts_with("# fanorona-pit-games v2")
    );
}

#[test]
fn the_time_control_goes_to_players_without_a_limit_of_their_own() {
    let dir = TempDir::new("rate-control");
    let (json, _) = rate(
        dir.path(),
        &["mcts", "mcts:sims=3", "--sims", "5", "--games", "2"],
    );
    assert_eq!(json["time_control"]["sims"], 5);
    player(&json, "mcts:sims=5");
    player(&json, "mcts:sims=3");
    let (json, _) = rate(
        dir.path(),
        &["mcts", "--ms", "5", "--games", "2", "--panel", "alphabeta"],
    );
    let timed = player(&json, "mcts:ms=5");
    assert_eq!(timed["time"]["budget_ms"], 5);
    player(&json, "alphabeta:ms=5");
    // The text table: a header, a row per player, the summary line.
    let out = fanorona(&[
        "rate",
        "--no-tablebases",
        "--panel",
        "alphabeta:depth=1",
        "--store",
        dir.path().to_str().unwrap(),
        "greedy",
        "--games",
        "2",
    ]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.starts_with("rank  player"), "{text}");
    assert!(text.contains("anchor alphabeta:depth=2 = 0"), "{text}");
    assert_eq!(text.lines().count(), 1 + 3 + 1, "{text}");
}

#[test]
fn bad_arguments_are_refused_with_what_is_wrong() {
    let dir = TempDir::new("rate-bad");
    let store = dir.path().to_str().unwrap();
    for (args, expected) in [
        (
            vec!["greedy", "--games", "0"],
            "--games must be between 1 and 100000",
        ),
        (
            vec!["greedy", "--opening-plies", "4294967295"],
            "--opening-plies must be at most 64",
        ),
        (
            vec!["greedy", "--ms", "0"],
            "--ms must be between 1 and 600000",
        ),
        (vec!["no-such-model.fnm"], "no-such-model.fnm"),
        (vec!["chess"], "unknown player kind `chess`"),
        (vec!["greedy", "--plot", "x.svg"], "--run-dir"),
        (vec!["greedy", "--run-dir", store], "not a run directory"),
    ] {
        let mut all = vec!["rate", "--no-tablebases", "--store", store];
        all.extend(args.iter());
        let out = fanorona(&all);
        assert!(!out.status.success(), "{args:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(expected), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
    }
}
