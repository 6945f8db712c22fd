//! The JSON API, exercised against the router in memory (no socket).

use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::http::{Request, StatusCode, header};
use fanorona_engine::{Color, EndReason, StepKind};
use fanorona_serve::view::{AnalysisView, ErrorBody, MoveResponse, ReviewView, Score, StateView};
use std::sync::Arc;

use fanorona_serve::{ServerConfig, router};
use fanorona_session::levels::ClassicalChooser;
use http_body_util::BodyExt;
use serde_json::{Value, json};
use tower::ServiceExt;

fn app() -> Router {
    app_with(ServerConfig::default())
}

fn app_with(config: ServerConfig) -> Router {
    router(Arc::new(ClassicalChooser::default()), config)
}

async fn send(app: Router, method: &str, uri: &str, body: Body) -> (StatusCode, String, Vec<u8>) {
    let request = Request::builder()
        .method(method)
        .uri(uri)
        .header(header::CONTENT_TYPE, "application/json")
        .body(body)
        .unwrap();
    let response = app.oneshot(request).await.unwrap();
    let status = response.status();
    let content_type = response
        .headers()
        .get(header::CONTENT_TYPE)
        .map(|v| v.to_str().unwrap().to_string())
        .unwrap_or_default();
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    (status, content_type, bytes.to_vec())
}

async fn post(app: Router, uri: &str, body: Value) -> (StatusCode, Vec<u8>) {
    let (status, _, bytes) = send(app, "POST", uri, Body::from(body.to_string())).await;
    (status, bytes)
}

/// The answer of a request that must succeed, decoded.
async fn ok<T: serde::de::DeserializeOwned>(app: Router, uri: &str, body: Value) -> T {
    let (status, bytes) = post(app, uri, body).await;
    assert_eq!(
        status,
        StatusCode::OK,
        "{}",
        String::from_utf8_lossy(&bytes)
    );
    serde_json::from_slice(&bytes).unwrap()
}

async fn state(body: Value) -> StateView {
    ok(app(), "/api/state", body).await
}

async fn engine_move(body: Value) -> MoveResponse {
    ok(app(), "/api/move", body).await
}

async fn error(uri: &str, body: Value) -> (StatusCode, ErrorBody) {
    let (status, bytes) = post(app(), uri, body).await;
    let parsed = serde_json::from_slice(&bytes)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&bytes)));
    (status, parsed)
}

fn turns(s: &StateView) -> Vec<String> {
    s.legal_turns.iter().map(|t| t.join(",")).collect()
}

#[tokio::test]
async fn health_info_and_the_page() {
    let (status, _, body) = send(app(), "GET", "/api/health", Body::empty()).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        serde_json::from_slice::<Value>(&body).unwrap(),
        json!({"status": "ok"})
    );

    let (status, _, body) = send(app(), "GET", "/api/info", Body::empty()).await;
    assert_eq!(status, StatusCode::OK);
    let info: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(info["engine"], "alphabeta");
    assert_eq!(info["default_level"], "medium");
    let levels: Vec<&str> = info["levels"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["name"].as_str().unwrap())
        .collect();
    assert_eq!(levels, ["beginner", "easy", "medium", "hard"]);

    let (status, content_type, body) = send(app(), "GET", "/", Body::empty()).await;
    assert_eq!(status, StatusCode::OK);
    assert!(content_type.starts_with("text/html"), "{content_type}");
    let html = String::from_utf8(body).unwrap();
    assert!(html.contains("app.js") && html.contains("style.css"));
    for (path, kind) in [
        ("/app.js", "text/javascript"),
        ("/style.css", "text/css"),
        ("/favicon.svg", "image/svg+xml"),
    ] {
        let (status, content_type, body) = send(app(), "GET", path, Body::empty()).await;
        assert_eq!(status, StatusCode::OK, "{path}");
        assert!(content_type.starts_with(kind), "{path}: {content_type}");
        assert!(!body.is_empty(), "{path}");
    }

    let (status, _, body) = send(app(), "GET", "/nope", Body::empty()).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let e: ErrorBody = serde_json::from_slice(&body).unwrap();
    assert!(e.error.contains("no such page"), "{}", e.error);
}

#[tokio::test]
async fn the_start_position_lists_whites_five_opening_captures() {
    let s = state(json!({})).await;
    assert_eq!(s.start, fanorona_engine::START_FEN);
    assert_eq!(s.position, fanorona_engine::START_FEN);
    assert_eq!(s.side_to_move, Color::White);
    assert_eq!(s.board[2], "BWBW.BWBW");
    assert!(s.outcome.is_none() && s.last_turn.is_none());
    let mut listed = turns(&s);
    listed.sort();
    assert_eq!(listed, ["d2e3a", "d3e3a", "d3e3w", "e2e3a", "f2e3a"]);
    let e2e3a = &s.steps["e2e3a"];
    assert_eq!((e2e3a.from.as_str(), e2e3a.to.as_str()), ("e2", "e3"));
    assert_eq!(e2e3a.kind, StepKind::Approach);
    assert_eq!(e2e3a.captured, ["e4", "e5"]);
    // d3e3w withdraws from c3; the line runs on to the edge only through black stones.
    assert_eq!(s.steps["d3e3w"].captured, ["c3"]);
    assert_eq!(s.steps["d3e3w"].kind, StepKind::Withdrawal);
}

#[tokio::test]
async fn a_legal_game_is_replayed_and_the_last_turn_described() {
    let s = state(json!({"turns": ["e2e3a"]})).await;
    assert_eq!(s.turns, ["e2e3a"]);
    assert_eq!(s.side_to_move, Color::Black);
    assert_eq!((s.stones.white, s.stones.black), (22, 20));
    let last = s.last_turn.as_ref().unwrap();
    assert_eq!((last.turn.as_str(), last.color), ("e2e3a", Color::White));
    assert_eq!(last.steps[0].captured, ["e4", "e5"]);
    assert!(!s.legal_turns.is_empty());
    for turn in &s.legal_turns {
        assert!(s.steps.contains_key(&turn.join(",")), "{turn:?}");
    }
}

#[tokio::test]
async fn chains_list_every_prefix_and_both_capture_kinds() {
    // From RULES: a chain may stop after any capture, so "c3d3a" and "c3d3a,d3d4a" are both
    // legal turns; and d3e3 could approach or withdraw in the second position.
    let fen = "3B5/9/2W1B4/1B7/8W w";
    let s = state(json!({"start": fen})).await;
    let listed = turns(&s);
    assert!(listed.contains(&"c3d3a".to_string()), "{listed:?}");
    assert!(listed.contains(&"c3d3a,d3d4a".to_string()), "{listed:?}");
    assert_eq!(s.steps["c3d3a,d3d4a"].captured, ["d5"]);

    let s = state(json!({"start": "9/9/2BW1BB2/9/9 w"})).await;
    let mut listed = turns(&s);
    listed.sort();
    assert_eq!(listed, ["d3e3a", "d3e3w"]);
    assert_eq!(s.steps["d3e3a"].captured, ["f3", "g3"]);
}

#[tokio::test]
async fn the_engine_answers_with_a_legal_turn() {
    let m = engine_move(json!({"turns": ["e2e3a"], "level": "beginner"})).await;
    let turn = m.engine_turn.expect("the engine plays");
    assert_eq!(turn.color, Color::Black);
    assert_eq!(m.level, fanorona_session::levels::Level::Beginner);
    assert_eq!(m.state.turns.len(), 2);
    assert_eq!(m.state.turns[1], turn.turn);
    assert_eq!(m.state.side_to_move, Color::White);
    assert_eq!(m.state.last_turn.unwrap().turn, turn.turn);
    // The state the server sent back replays: its turns are legal.
    let s = state(json!({"turns": m.state.turns})).await;
    assert_eq!(s.position, m.state.position);
}

#[tokio::test]
async fn every_level_plays_the_opening() {
    for level in ["beginner", "easy", "medium", "hard"] {
        let m = engine_move(json!({"level": level})).await;
        assert_eq!(m.engine_turn.unwrap().color, Color::White, "{level}");
    }
}

#[tokio::test]
async fn illegal_turns_are_refused_with_their_number() {
    let (status, e) = error("/api/state", json!({"turns": ["e2e3a", "e2e3a"]})).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(e.turn, Some(2));
    assert!(
        e.error.starts_with("turn 2 (e2e3a) is illegal"),
        "{}",
        e.error
    );
    assert!(e.error.contains("no black stone on e2"), "{}", e.error);

    // Paika while a capture exists.
    let (status, e) = error("/api/move", json!({"turns": ["a2a3"]})).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(e.turn, Some(1));

    let (status, e) = error("/api/move", json!({"turns": ["e2e3a", "nonsense"]})).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(e.turn, Some(2));
    assert!(e.error.contains("not valid notation"), "{}", e.error);

    // A step after a chain that could not go on.
    let (status, e) = error("/api/state", json!({"turns": ["e2e3a,e3e4a"]})).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(e.turn, Some(1));
}

#[tokio::test]
async fn malformed_requests_get_400_with_a_message() {
    for (body, needle) in [
        ("", "malformed JSON"),
        ("{", "malformed JSON"),
        ("null", "malformed JSON"),
        ("42", "malformed JSON"),
        (r#"{"turns": "e2e3a"}"#, "malformed JSON"),
        (r#"{"turns": [1, 2]}"#, "malformed JSON"),
        (r#"{"moves": []}"#, "unknown field"),
    ] {
        for uri in ["/api/state", "/api/move"] {
            let (status, _, bytes) = send(app(), "POST", uri, Body::from(body)).await;
            assert_eq!(status, StatusCode::BAD_REQUEST, "{uri} {body}");
            let e: ErrorBody = serde_json::from_slice(&bytes).unwrap();
            assert!(e.error.contains(needle), "{body}: {}", e.error);
        }
    }
    let (status, _, _) = send(app(), "POST", "/api/state", Body::from(vec![0xff, 0xfe])).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);

    let (status, e) = error("/api/state", json!({"start": "9/9/4X4/9/9 w"})).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(e.error.starts_with("start position"), "{}", e.error);
    assert!(e.error.contains("unexpected character 'X'"), "{}", e.error);
    assert_eq!(e.turn, None);

    let (status, e) = error("/api/move", json!({"level": "grandmaster"})).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(e.error.contains("unknown level"), "{}", e.error);

    // Issue 16: a JSON array was read as the request's fields in order.
    for body in [r#"[null, []]"#, r#"  ["9/9/9/9/W1B6 w", []]"#] {
        let (status, _, bytes) = send(app(), "POST", "/api/state", Body::from(body)).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
        let e: ErrorBody = serde_json::from_slice(&bytes).unwrap();
        assert!(e.error.contains("expected an object"), "{}", e.error);
    }

    // Answers made outside the handlers are JSON too (issue 16: 405 had an empty body).
    let (status, content_type, bytes) = send(app(), "GET", "/api/move", Body::empty()).await;
    assert_eq!(status, StatusCode::METHOD_NOT_ALLOWED);
    assert!(
        content_type.starts_with("application/json"),
        "{content_type}"
    );
    let e: ErrorBody = serde_json::from_slice(&bytes).unwrap();
    assert!(e.error.contains("method"), "{}", e.error);
}

#[tokio::test]
async fn overlong_targets_and_headers_get_json_414_and_431() {
    let long = format!("/api/health?{}", "x".repeat(9000));
    let (status, content_type, bytes) = send(app(), "GET", &long, Body::empty()).await;
    assert_eq!(status, StatusCode::URI_TOO_LONG);
    assert!(
        content_type.starts_with("application/json"),
        "{content_type}"
    );
    let e: ErrorBody = serde_json::from_slice(&bytes).unwrap();
    assert!(e.error.contains("at most 8192"), "{}", e.error);

    let request = Request::builder()
        .uri("/api/health")
        .header("x-padding", "y".repeat(20_000))
        .body(Body::empty())
        .unwrap();
    let response = app().oneshot(request).await.unwrap();
    assert_eq!(
        response.status(),
        StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE
    );
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    let e: ErrorBody = serde_json::from_slice(&bytes).unwrap();
    assert!(e.error.contains("headers"), "{}", e.error);
}

#[tokio::test]
async fn a_position_with_more_legal_turns_than_the_limit_is_refused_not_listed() {
    // The start position has 5 legal turns (White's opening captures).
    for (limit, expected) in [(5, StatusCode::OK), (4, StatusCode::BAD_REQUEST)] {
        let config = ServerConfig {
            max_listed_turns: limit,
            ..ServerConfig::default()
        };
        let (status, bytes) = post(app_with(config), "/api/state", json!({})).await;
        assert_eq!(status, expected, "limit {limit}");
        if status != StatusCode::OK {
            let e: ErrorBody = serde_json::from_slice(&bytes).unwrap();
            assert!(e.error.contains("5 legal turns"), "{}", e.error);
        }
    }
}

#[tokio::test]
async fn oversize_bodies_and_overlong_games_are_refused() {
    let big = json!({"turns": vec!["e2e3a"; 20_000]});
    let (status, e) = error("/api/state", big.clone()).await;
    assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE);
    assert!(e.error.contains("larger than 65536 bytes"), "{}", e.error);
    let (status, _) = error("/api/move", big).await;
    assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE);

    let small = ServerConfig {
        max_turns: 3,
        ..ServerConfig::default()
    };
    let body = json!({"turns": ["e2e3a", "d4e4w", "f2e2", "d5d4"]});
    let (status, bytes) = post(app_with(small), "/api/state", body).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    let e: ErrorBody = serde_json::from_slice(&bytes).unwrap();
    assert!(e.error.contains("at most 3"), "{}", e.error);
}

#[tokio::test]
async fn game_over_by_capture_no_progress_and_no_stones() {
    // The engine's reply takes the whole row: all captured.
    let m = engine_move(json!({"start": "9/9/W1BBBBBBB/9/9 w", "level": "medium"})).await;
    assert_eq!(m.engine_turn.unwrap().turn, "a3b3a");
    let outcome = m.state.outcome.unwrap();
    assert_eq!(outcome.result, Score::WhiteWins);
    assert_eq!(outcome.winner, Some(Color::White));
    assert_eq!(outcome.reason, EndReason::AllCaptured);
    assert_eq!(outcome.message, "white wins: black has no stones left");
    assert!(m.state.legal_turns.is_empty() && m.state.steps.is_empty());

    // Once over, the engine has nothing to play and further turns are refused.
    let over = json!({"start": "9/9/W1BBBBBBB/9/9 w", "turns": ["a3b3a"]});
    let m = engine_move(over.clone()).await;
    assert!(m.engine_turn.is_none());
    assert_eq!(m.state.outcome.unwrap().reason, EndReason::AllCaptured);
    let (status, e) = error(
        "/api/state",
        json!({"start": "9/9/W1BBBBBBB/9/9 w", "turns": ["a3b3a", "a1a2"]}),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(e.error.contains("the game is over"), "{}", e.error);

    // The 50th turn without a capture draws.
    let s = state(json!({"start": "9/9/9/9/W7B w 49 30", "turns": ["a1a2"]})).await;
    let outcome = s.outcome.unwrap();
    assert_eq!(
        (outcome.result, outcome.reason),
        (Score::Draw, EndReason::NoProgress)
    );
    assert_eq!(outcome.winner, None);

    // A side with stones but no move loses: Black's corner stone is boxed in.
    let s = state(json!({"start": "BW7/WW7/9/9/9 b"})).await;
    let outcome = s.outcome.unwrap();
    assert_eq!(outcome.reason, EndReason::NoLegalMove);
    assert_eq!(outcome.winner, Some(Color::White));
}

#[tokio::test]
async fn threefold_repetition_draws() {
    // Two lone stones far apart shuffle back and forth.
    let shuffle = ["a1a2", "i5i4", "a2a1", "i4i5"];
    let mut played: Vec<&str> = Vec::new();
    for _ in 0..2 {
        played.extend(shuffle);
    }
    let s = state(json!({"start": "8B/9/9/9/W8 w", "turns": played})).await;
    let outcome = s.outcome.unwrap();
    assert_eq!(outcome.reason, EndReason::Repetition);
}

#[tokio::test]
async fn searches_share_a_bounded_pool() {
    let config = ServerConfig {
        max_concurrent_searches: 1,
        max_think: Duration::from_millis(50),
        ..ServerConfig::default()
    };
    let app = app_with(config);
    let mut tasks = Vec::new();
    for _ in 0..6 {
        let app = app.clone();
        tasks.push(tokio::spawn(async move {
            post(app, "/api/move", json!({"level": "hard"})).await.0
        }));
    }
    for t in tasks {
        assert_eq!(t.await.unwrap(), StatusCode::OK);
    }
}

#[tokio::test]
async fn every_listed_turn_is_accepted_until_the_game_ends() {
    // Random games through the API: whatever the server lists as legal, it accepts, and the
    // details it sends agree with the board it answers with afterwards.
    let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
    for _ in 0..3 {
        let mut played: Vec<String> = Vec::new();
        loop {
            let s = state(json!({ "turns": played })).await;
            if s.outcome.is_some() {
                assert!(s.legal_turns.is_empty());
                break;
            }
            assert!(
                played.len() < 400,
                "a game this long should have been drawn"
            );
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let turn = &s.legal_turns[(seed % s.legal_turns.len() as u64) as usize];
            let captured: usize = (1..=turn.len())
                .map(|i| s.steps[&turn[..i].join(",")].captured.len())
                .sum();
            played.push(turn.join(","));
            let after = state(json!({ "turns": played })).await;
            let before_them = if s.side_to_move == Color::White {
                s.stones.black
            } else {
                s.stones.white
            };
            let after_them = if s.side_to_move == Color::White {
                after.stones.black
            } else {
                after.stones.white
            };
            assert_eq!(before_them - after_them, captured as u32, "{played:?}");
        }
    }
}

#[tokio::test]
async fn the_tables_verdict_comes_with_a_covered_position_and_the_engine_plays_it() {
    let tables = fanorona_tablebase::build::build_in_memory(3, 50, 1, &mut |_| {}).unwrap();
    let chooser = ClassicalChooser::with_tables(Some(Arc::new(tables)));
    let app = router(Arc::new(chooser), ServerConfig::default());
    let body = json!({"start": "9/9/3B5/9/WW7 w 0 1", "turns": [], "level": "easy"});
    let (status, bytes) = post(app.clone(), "/api/state", body.clone()).await;
    assert_eq!(status, StatusCode::OK);
    let s: StateView = serde_json::from_slice(&bytes).unwrap();
    let tb = s.tablebase.expect("a covered position");
    assert_eq!(
        (tb.winner, tb.next_capture_in),
        (Some(Color::White), Some(28))
    );
    assert_eq!(
        tb.message,
        "tablebase: White wins; next capture in 28 turns"
    );
    // the engine plays the one winning turn, and the verdict follows the game
    let (status, bytes) = post(app.clone(), "/api/move", body).await;
    assert_eq!(status, StatusCode::OK);
    let m: MoveResponse = serde_json::from_slice(&bytes).unwrap();
    assert_eq!(m.state.turns, vec!["a1b2".to_string()]);
    let tb = m.state.tablebase.expect("still covered");
    assert_eq!(
        (tb.winner, tb.next_capture_in),
        (Some(Color::White), Some(27))
    );
    // without tables, or beyond them, there is no verdict
    let s = state(json!({"start": "9/9/3B5/9/WW7 w 0 1", "turns": []})).await;
    assert!(s.tablebase.is_none());
}

/// An engine that thinks until its deadline or its stop flag, then plays the first legal turn.
struct Ponderer;

impl fanorona_session::levels::TurnChooser for Ponderer {
    fn name(&self) -> &str {
        "ponderer"
    }

    fn think(
        &self,
        game: &fanorona_engine::Game,
        _level: fanorona_session::levels::Level,
        deadline: std::time::Instant,
        stop: &fanorona_players::Stop,
    ) -> Result<fanorona_players::Choice, fanorona_session::levels::ChooseError> {
        while !stop.is_raised() && std::time::Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(5));
        }
        Ok(fanorona_players::Choice {
            turn: game.position().legal_turns()[0],
            info: fanorona_players::ChoiceInfo::default(),
        })
    }
}

#[tokio::test]
async fn an_abandoned_search_is_stopped_and_frees_its_slot() {
    // Issue 14/16: searches whose client went away ran to their end, and the next replies
    // queued behind them.
    let config = ServerConfig {
        max_concurrent_searches: 1,
        ..ServerConfig::default()
    };
    let app = router(Arc::new(Ponderer), config);
    let abandoned = tokio::time::timeout(
        Duration::from_millis(300),
        post(app.clone(), "/api/move", json!({"level": "hard"})),
    )
    .await;
    assert!(abandoned.is_err(), "the ponderer thinks for 3 s at hard");
    let started = std::time::Instant::now();
    let (status, _) = post(app, "/api/move", json!({"level": "beginner"})).await;
    assert_eq!(status, StatusCode::OK);
    // Without the stop, the slot stays taken until the abandoned search's 3 s are up.
    assert!(
        started.elapsed() < Duration::from_millis(1500),
        "the next reply waited {:?} for the abandoned search",
        started.elapsed()
    );
}

async fn analysis_of(app: Router, body: Value) -> AnalysisView {
    ok(app, "/api/analysis", body).await
}

#[tokio::test]
async fn the_analysis_gives_a_score_from_whites_side_and_a_legal_line() {
    // The start: a line of legal turns, one per side in turn, and a finite bar.
    let a = analysis_of(app(), json!({})).await;
    assert_eq!(a.engine, "alphabeta");
    assert_eq!(a.side_to_move, Color::White);
    assert!(a.bar.is_finite() && (-1.0..=1.0).contains(&a.bar), "{a:?}");
    assert!(a.score.is_some() && !a.exact, "{a:?}");
    assert!(!a.line.is_empty() && a.line.len() <= 3, "{a:?}");
    let played: Vec<String> = a.line.iter().map(|t| t.turn.clone()).collect();
    let s = state(json!({ "turns": played })).await;
    assert_eq!(s.turns.len(), a.line.len());
    for (i, t) in a.line.iter().enumerate() {
        let mover = if i % 2 == 0 {
            Color::White
        } else {
            Color::Black
        };
        assert_eq!(t.color, mover, "{a:?}");
    }

    // Black to move takes White's only stone (c3b3a): a proven win for Black, and the view is
    // White's, so -1. With White to move the row goes instead: +1.
    let a = analysis_of(app(), json!({"start": "9/9/W1BBBBBBB/9/9 b"})).await;
    assert_eq!(a.side_to_move, Color::Black);
    assert!(a.exact, "{a:?}");
    assert_eq!(a.bar, -1.0, "{a:?}");
    assert!(a.summary.starts_with("Black wins"), "{a:?}");
    assert_eq!(a.line[0].turn, "c3b3a");
    let a = analysis_of(app(), json!({"start": "9/9/W1BBBBBBB/9/9 w"})).await;
    assert!(a.exact, "{a:?}");
    assert_eq!(a.bar, 1.0, "{a:?}");
    assert!(a.summary.starts_with("White wins"), "{a:?}");
    assert_eq!(a.line[0].turn, "a3b3a");

    // A finished game: its result, no line.
    let a = analysis_of(
        app(),
        json!({"start": "9/9/W1BBBBBBB/9/9 w", "turns": ["a3b3a"]}),
    )
    .await;
    assert!(a.exact && a.line.is_empty(), "{a:?}");
    assert_eq!(a.bar, 1.0);
    assert!(a.summary.contains("white wins"), "{}", a.summary);

    // Bad input is refused like the other routes.
    let (status, e) = error("/api/analysis", json!({"turns": ["a1a9"]})).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(e.error.contains("turn 1"), "{}", e.error);
}

#[tokio::test]
async fn the_analysis_is_exact_where_the_tables_cover_the_position() {
    let tables = fanorona_tablebase::build::build_in_memory(3, 50, 1, &mut |_| {}).unwrap();
    let chooser = ClassicalChooser::with_tables(Some(Arc::new(tables)));
    let app = router(Arc::new(chooser), ServerConfig::default());
    // Black to move in a position White wins (White's view: +1).
    let a = analysis_of(app, json!({"start": "9/9/3B5/9/WW7 b 0 1"})).await;
    assert!(a.exact, "{a:?}");
    assert!(a.score.as_deref().unwrap_or("").starts_with("tb"), "{a:?}");
    assert!(a.summary.contains("endgame tables"), "{a:?}");
}

#[tokio::test]
async fn the_analysis_says_proven_where_the_solver_proves_the_position() {
    // Tables of two stones do not cover three; the strongest level's proof does: White's e3
    // withdraws from d3 and approaches f1 in one turn.
    let tables = fanorona_tablebase::build::build_in_memory(2, 50, 1, &mut |_| {}).unwrap();
    let chooser = ClassicalChooser::with_tables(Some(Arc::new(tables)));
    let app = router(Arc::new(chooser), ServerConfig::default());
    let a = analysis_of(app, json!({"start": "9/9/3BW4/9/5B3 w 0 1"})).await;
    assert!(a.exact, "{a:?}");
    assert_eq!(a.score.as_deref(), Some("proven win"), "{a:?}");
    assert!(
        a.summary.contains("White wins") && a.summary.contains("proven"),
        "{a:?}"
    );
}

#[tokio::test]
async fn a_review_evaluates_every_position_and_finds_the_blunder() {
    // Two lone stones: White's a1b2 walks onto Black's diagonal and Black's approach d4c3a
    // takes it; White's other steps lose nothing. The blunder is White's first turn.
    let body = json!({"start": "9/3B5/9/9/W8 w", "turns": ["a1b2", "d4c3a"]});
    let s = state(body.clone()).await;
    assert!(
        s.outcome.is_some(),
        "the game is over after Black's capture"
    );
    let r: ReviewView = ok(app(), "/api/review", body).await;
    assert!(r.complete);
    assert_eq!(r.bars.len(), 3, "{r:?}");
    assert_eq!(r.bars[1], Some(-1.0), "Black wins at once: {r:?}");
    assert_eq!(r.bars[2], Some(-1.0), "Black has won: {r:?}");
    assert_eq!(r.mistakes.len(), 1, "{r:?}");
    let m = &r.mistakes[0];
    assert_eq!((m.index, m.color), (0, Color::White));
    assert_eq!(m.played, "a1b2");
    assert_ne!(m.best, "a1b2");
    assert!(m.loss > 0.9, "{m:?}");

    // A game with no turns: one position, no mistakes; bad input is a 400.
    let r: ReviewView = ok(app(), "/api/review", json!({})).await;
    assert_eq!(r.bars.len(), 1);
    assert!(r.mistakes.is_empty());
    let (status, _) = error("/api/review", json!({"turns": ["z9z8"]})).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
}

#[tokio::test]
async fn analyses_never_take_the_slots_moves_need() {
    let config = ServerConfig {
        max_concurrent_searches: 2,
        max_concurrent_analyses: 1,
        queue_timeout: Duration::from_millis(250),
        ..ServerConfig::default()
    };
    let app = router(Arc::new(Ponderer), config);
    // The ponderer analyses until its deadline (about half a second): it holds the one
    // analysis slot meanwhile.
    let first = tokio::spawn(post(app.clone(), "/api/analysis", json!({})));
    tokio::time::sleep(Duration::from_millis(60)).await;
    let (status, e) = {
        let (status, bytes) = post(app.clone(), "/api/analysis", json!({})).await;
        (status, serde_json::from_slice::<ErrorBody>(&bytes).unwrap())
    };
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE);
    assert!(e.error.contains("busy with other analyses"), "{}", e.error);
    // A move still finds a search slot at once.
    let started = std::time::Instant::now();
    let (status, _) = post(app.clone(), "/api/move", json!({"level": "beginner"})).await;
    assert_eq!(status, StatusCode::OK);
    assert!(
        started.elapsed() < Duration::from_millis(450),
        "{:?}",
        started.elapsed()
    );
    let (status, _) = first.await.unwrap();
    assert_eq!(status, StatusCode::OK);
    // A bad game is refused at once, not after the queue.
    let (status, _) = error("/api/analysis", json!({"turns": ["a1a9"]})).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
}

/// With one search slot, an analysis that holds it finishes with what it has as soon as a
/// player's request needs the slot (issue 28 item 16: analyses took the only slot, moves p99
/// 3.2 s).
#[tokio::test]
async fn an_analysis_yields_the_only_slot_to_a_move() {
    let config = ServerConfig {
        max_concurrent_searches: 1,
        max_concurrent_analyses: 1,
        ..ServerConfig::default()
    };
    let app = router(Arc::new(Ponderer), config);
    // The ponderer's analysis would think about 0.8 s in all.
    let analysing = tokio::spawn(post(app.clone(), "/api/analysis", json!({})));
    tokio::time::sleep(Duration::from_millis(60)).await;
    let started = std::time::Instant::now();
    let (status, _) = post(app.clone(), "/api/move", json!({"level": "beginner"})).await;
    assert_eq!(status, StatusCode::OK);
    // The beginner thinks 0.1 s; without the yield the move waits for the whole analysis.
    let waited = started.elapsed();
    assert!(
        waited < Duration::from_millis(500),
        "the move took {waited:?}"
    );
    // The analysis still answers, with what it had.
    let (status, bytes) = analysing.await.unwrap();
    assert_eq!(status, StatusCode::OK);
    let a: AnalysisView = serde_json::from_slice(&bytes).unwrap();
    assert!(a.think_ms < 700, "{} ms", a.think_ms);
}

/// A position with one legal turn is judged by the position after it: the analysis and the
/// review give it a score, never "no evaluation" (issue 28 item 14).
#[tokio::test]
async fn a_forced_turn_is_judged_by_the_position_after_it() {
    // Black's lone stone on a1 can only step to b1, against eleven White stones.
    let fen = "WWWWW4/WWWW5/9/WW7/B8 b 0 1";
    let s = state(json!({ "start": fen })).await;
    assert_eq!(s.legal_turns.len(), 1, "{:?}", s.legal_turns);
    let a = analysis_of(app(), json!({ "start": fen })).await;
    assert!(a.score.is_some(), "{a:?}");
    assert!(a.bar > 0.5, "White is far ahead: {a:?}");
    assert!(!a.summary.contains("no evaluation"), "{a:?}");
    let r: ReviewView = ok(app(), "/api/review", json!({ "start": fen })).await;
    assert!(r.complete, "{r:?}");
    assert!(r.bars[0].is_some_and(|b| b > 0.5), "{r:?}");
}

/// A game that one side loses heavily has mistakes, even once the bar has flattened out
/// (issue 29 item 10: a 10-turn game Black lost 22 stones to 2 was said to have none).
#[tokio::test]
async fn a_game_lost_heavily_has_its_mistakes_found() {
    // White plays the engine's easy level; Black always plays the legal turn that captures
    // least, the longest quiet step when it can.
    let mut turns: Vec<String> = Vec::new();
    for _ in 0..16 {
        let s = state(json!({ "turns": turns })).await;
        if s.outcome.is_some() {
            break;
        }
        let turn = if s.side_to_move == Color::White {
            engine_move(json!({"turns": turns, "level": "easy"}))
                .await
                .engine_turn
                .unwrap()
                .turn
        } else {
            let captured = |turn: &Vec<String>| -> usize {
                (1..=turn.len())
                    .map(|k| {
                        s.steps
                            .get(&turn[..k].join(","))
                            .map_or(0, |step| step.captured.len())
                    })
                    .sum()
            };
            let worst = s
                .legal_turns
                .iter()
                .min_by_key(|turn| captured(turn))
                .unwrap();
            worst.join(",")
        };
        turns.push(turn);
    }
    let end = state(json!({ "turns": turns })).await;
    assert!(
        end.stones.white >= end.stones.black + 5,
        "White is far ahead: {:?}",
        end.stones
    );
    let r: ReviewView = ok(app(), "/api/review", json!({ "turns": turns })).await;
    let black: Vec<_> = r
        .mistakes
        .iter()
        .filter(|m| m.color == Color::Black)
        .collect();
    assert!(!black.is_empty(), "{r:?}");
    assert!(black.iter().all(|m| m.stones >= 1.0), "{r:?}");
    // Once White is far ahead the bar hardly moves: a mistake there is found by its stones.
    assert!(black.iter().any(|m| m.loss < 0.25), "{r:?}");
    // Largest first.
    assert!(r.mistakes.windows(2).all(|w| w[0].stones >= w[1].stones));
}

/// On a clock the engine thinks a twentieth of its time left: at `hard` (3 s a turn) with one
/// second left it answers within a fraction of a second.
#[tokio::test]
async fn on_a_clock_the_engine_thinks_within_its_time_left() {
    let game = json!({"level": "hard", "turns": ["d2e3a", "c3d2a"]});
    let timed = |body: Value| async move {
        let started = std::time::Instant::now();
        let answer: MoveResponse = engine_move(body).await;
        assert!(answer.engine_turn.is_some());
        started.elapsed()
    };
    let mut clocked = game.clone();
    clocked["engine_ms"] = json!(1000);
    let (free, short) = (timed(game).await, timed(clocked).await);
    assert!(free > std::time::Duration::from_millis(1500), "{free:?}");
    assert!(short < std::time::Duration::from_millis(800), "{short:?}");
}
