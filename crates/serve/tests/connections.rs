//! The server on a real socket: idle connections are closed after the header timeout, and at
//! most `max_connections` are served at once (issue 16: idle connections starved the health
//! probe).

use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::Arc;
use std::time::{Duration, Instant};

use fanorona_serve::{ServerConfig, serve_connections};
use fanorona_session::levels::ClassicalChooser;

/// Starts a server with `config` on a free loopback port; it stops when the runtime does.
fn start(config: ServerConfig) -> (std::net::SocketAddr, tokio::runtime::Runtime) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let listener = runtime
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .unwrap();
    let addr = listener.local_addr().unwrap();
    runtime.spawn(serve_connections(
        listener,
        Arc::new(ClassicalChooser::default()),
        config,
        std::future::pending(),
    ));
    (addr, runtime)
}

/// `GET /api/health` on a fresh connection: the status line, or `None` within `wait`.
fn health(addr: std::net::SocketAddr, wait: Duration) -> Option<String> {
    let mut stream = TcpStream::connect(addr).ok()?;
    stream.set_read_timeout(Some(wait)).unwrap();
    stream
        .write_all(b"GET /api/health HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n")
        .ok()?;
    let mut answer = String::new();
    stream.read_to_string(&mut answer).ok()?;
    answer.lines().next().map(str::to_string)
}

#[test]
fn an_idle_connection_is_closed_after_the_header_timeout() {
    let (addr, _runtime) = start(ServerConfig {
        header_timeout: Duration::from_millis(300),
        ..ServerConfig::default()
    });
    let mut idle = TcpStream::connect(addr).unwrap();
    idle.set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let opened = Instant::now();
    let mut buf = [0u8; 64];
    // A half-sent head, then silence: the server closes the connection.
    idle.write_all(b"GET /api/health HTTP/1.1\r\n").unwrap();
    let read = idle.read(&mut buf).unwrap_or(0);
    assert!(
        opened.elapsed() < Duration::from_secs(5),
        "closed after {:?}",
        opened.elapsed()
    );
    // Either closed outright or answered with an error status before closing.
    if read > 0 {
        assert!(!String::from_utf8_lossy(&buf[..read]).contains("200 OK"));
    }
}

#[test]
fn connections_beyond_the_limit_wait_until_a_slot_frees() {
    let (addr, _runtime) = start(ServerConfig {
        max_connections: 2,
        header_timeout: Duration::from_millis(500),
        ..ServerConfig::default()
    });
    let holders: Vec<TcpStream> = (0..2).map(|_| TcpStream::connect(addr).unwrap()).collect();
    // Give the server time to accept both.
    std::thread::sleep(Duration::from_millis(100));
    let started = Instant::now();
    let status = health(addr, Duration::from_secs(10)).expect("served once a slot frees");
    assert!(status.contains("200"), "{status}");
    // Served only after an idle holder was timed out.
    assert!(
        started.elapsed() >= Duration::from_millis(300),
        "{:?}",
        started.elapsed()
    );
    drop(holders);
    // With the slots free, at once.
    let status = health(addr, Duration::from_secs(5)).unwrap();
    assert!(status.contains("200"), "{status}");
}
