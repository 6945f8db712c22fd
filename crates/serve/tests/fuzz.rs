//! Fuzz target for the HTTP API: mutated request bodies, targets and headers into the router
//! get an answer that is not a server error, and every error answer is JSON.

use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use axum::http::{Request, StatusCode, header};
use fanorona_serve::{ServerConfig, router};
use fanorona_session::levels::ClassicalChooser;
use fanorona_testkit::fuzz;
use http_body_util::BodyExt;
use tower::ServiceExt;

/// Sends one request built from the fuzzed parts; checks the answer.
fn check(runtime: &tokio::runtime::Runtime, app: &axum::Router, uri: &str, body: &[u8]) {
    let Ok(request) = Request::builder()
        .method("POST")
        .uri(uri)
        .header(header::CONTENT_TYPE, "application/json")
        .body(Body::from(body.to_vec()))
    else {
        return; // not a request hyper would have parsed either
    };
    runtime.block_on(async {
        let response = app.clone().oneshot(request).await.unwrap();
        let status = response.status();
        let json = response
            .headers()
            .get(header::CONTENT_TYPE)
            .is_some_and(|v| v.as_bytes().starts_with(b"application/json"));
        let bytes = response.into_body().collect().await.unwrap().to_bytes();
        assert!(
            !status.is_server_error() || status == StatusCode::SERVICE_UNAVAILABLE,
            "{status} for {uri}: {}",
            String::from_utf8_lossy(&bytes)
        );
        if status.is_client_error() {
            assert!(json, "{status} for {uri} is not JSON");
            serde_json::from_slice::<serde_json::Value>(&bytes).expect("a JSON error body");
        }
    });
}

#[test]
fn fuzz_mutated_requests_never_get_a_server_error() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let app = router(
        Arc::new(ClassicalChooser::default()),
        ServerConfig {
            max_think: Duration::from_millis(20),
            ..ServerConfig::default()
        },
    );
    let bodies: Vec<Vec<u8>> = [
        r#"{"turns": ["d2e3a", "d4e4w"]}"#,
        r#"{"start": "9/9/9/9/W1B6 w", "turns": []}"#,
        r#"{"turns": ["d2e3a"], "level": "easy"}"#,
        r#"{"start": "BBBBBBBBB/BBBBBBBBB/BWBW1BWBW/WWWWWWWWW/WWWWWWWWW w 0 1"}"#,
    ]
    .iter()
    .map(|b| b.as_bytes().to_vec())
    .collect();
    let tokens: [&[u8]; 10] = [
        b"\"turns\"",
        b"\"start\"",
        b"\"level\"",
        b"[",
        b"]",
        b"{",
        b"}",
        b"null",
        b"\"hard\"",
        b"1e999",
    ];
    fuzz::run("http body", &bodies, &tokens, 1000, |body| {
        check(&runtime, &app, "/api/state", body);
        check(&runtime, &app, "/api/move", body);
    });
    let targets: Vec<Vec<u8>> = ["/api/state", "/api/move", "/api/info?x=1", "/app.js"]
        .iter()
        .map(|t| t.as_bytes().to_vec())
        .collect();
    fuzz::run(
        "http target",
        &targets,
        &[b"/", b"%", b"?", b".."],
        1000,
        |target| {
            let Ok(uri) = std::str::from_utf8(target) else {
                return;
            };
            check(&runtime, &app, uri, br#"{"turns": []}"#);
        },
    );
}
