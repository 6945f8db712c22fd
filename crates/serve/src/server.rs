//! The axum router: the embedded page, the JSON API, limits, and the search pool.

use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{DefaultBodyLimit, State};
use axum::http::{HeaderValue, Request, StatusCode, header};
use axum::middleware;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use fanorona_engine::{Rules, START_FEN};
use hyper::body::Incoming;
use tokio::sync::Semaphore;
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::set_header::SetResponseHeaderLayer;
use tower_http::timeout::TimeoutLayer;

use crate::assets;
use crate::error::ServeError;
use crate::view::{
    AnalysisView, ErrorBody, GameRequest, InfoView, LevelView, MoveResponse, ReviewView, StateView,
    judge, outcome_bar, outcome_stones, turn_view, white_stones,
};
use fanorona_players::Stop;
use fanorona_session::levels::{Level, TurnChooser};
use fanorona_session::session::ReplayError;
use fanorona_session::session::{GameSession, turn_details};

/// The server's limits and settings. [`ServerConfig::default`] is what `fanorona serve`
/// uses.
#[derive(Clone, Debug)]
pub struct ServerConfig {
    /// Largest request body accepted, in bytes (larger ones get 413). Default 64 KiB.
    pub max_body_bytes: usize,
    /// Most turns a game sent by a client may have (longer ones get 400). Default 3000,
    /// more than any real game: at most 43 capturing turns, each after fewer than 50 quiet
    /// ones.
    pub max_turns: usize,
    /// Most legal turns listed for one position (a position with more gets 400). Default
    /// 2000: in 20,000 random games (800,000 positions) no position had more than 198, so
    /// only contrived set-ups come near it, and the answer stays below about 300 KB.
    pub max_listed_turns: u64,
    /// Longest the engine may think for one turn, whatever the level. Default 5 s.
    pub max_think: Duration,
    /// Searches and state listings that may run at once; further requests wait for a slot.
    /// Default: the number of CPU cores.
    pub max_concurrent_searches: usize,
    /// Analyses (`/api/analysis`, `/api/review`) that may hold search slots at once, so that
    /// moves always find the other slots: default half of `max_concurrent_searches` (at
    /// least 1). An analysis waits for one of these, then for a search slot.
    pub max_concurrent_analyses: usize,
    /// How long a request waits for a search slot before it gets 503. Default 30 s.
    pub queue_timeout: Duration,
    /// Connections served at once; more wait to be accepted. Default 512.
    pub max_connections: usize,
    /// Connections served at once from one client address; a connection beyond it is answered
    /// at once with a JSON 503 and closed, so that no single client can hold every connection.
    /// Default 64.
    pub max_connections_per_client: usize,
    /// Longest a request's body may take to arrive, in all (408 after): a client sending a
    /// byte now and then cannot hold a connection for long. Default 10 s.
    pub body_timeout: Duration,
    /// How long a connection may take to send a request's head, and may stay idle between
    /// requests, before it is closed. Default 10 s.
    pub header_timeout: Duration,
    /// Longest a request may take from its head to the answer (408 after). Default 60 s,
    /// above the queue timeout plus the longest think.
    pub request_timeout: Duration,
    /// Longest request target (path and query) accepted, in bytes (414 after). Default 8 KiB.
    pub max_uri_bytes: usize,
    /// Most bytes of request headers accepted, names and values (431 after). Default 16 KiB.
    pub max_header_bytes: usize,
    /// The rules (the no-progress limit). Default: the project's default rules.
    pub rules: Rules,
}

impl Default for ServerConfig {
    fn default() -> ServerConfig {
        ServerConfig {
            max_body_bytes: 64 * 1024,
            max_turns: 3000,
            max_listed_turns: 2000,
            max_think: Duration::from_secs(5),
            max_concurrent_searches: std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(2),
            max_concurrent_analyses: std::thread::available_parallelism()
                .map(|n| (n.get() / 2).max(1))
                .unwrap_or(1),
            queue_timeout: Duration::from_secs(30),
            max_connections: 512,
            max_connections_per_client: 64,
            body_timeout: Duration::from_secs(10),
            header_timeout: Duration::from_secs(10),
            request_timeout: Duration::from_secs(60),
            max_uri_bytes: 8 * 1024,
            max_header_bytes: 16 * 1024,
            rules: Rules::default(),
        }
    }
}

#[derive(Clone)]
struct AppState {
    chooser: Arc<dyn TurnChooser>,
    config: Arc<ServerConfig>,
    searches: Arc<Semaphore>,
    analyses: Arc<Semaphore>,
    /// The stop flags of the analyses running now: a move or state listing that finds every
    /// search slot taken raises them, so that an analysis (best effort) never makes a player
    /// wait for the engine's turn.
    running_analyses: Arc<std::sync::Mutex<Vec<Stop>>>,
}

/// The routes whose requests run a search: a client that closes its sending side during one
/// is taken as gone and the search is stopped (see [`serve_connections`]); every other request
/// is answered even then.
pub const SEARCH_ROUTES: [&str; 3] = ["/api/move", "/api/analysis", "/api/review"];

/// The whole application as an axum [`Router`]: the page, its assets, and the API.
pub fn router(chooser: Arc<dyn TurnChooser>, config: ServerConfig) -> Router {
    let body_limit = config.max_body_bytes;
    let body_time = config.body_timeout;
    let request_timeout = config.request_timeout;
    let head_limits = HeadLimits {
        uri_bytes: config.max_uri_bytes,
        header_bytes: config.max_header_bytes,
    };
    let state = AppState {
        chooser,
        searches: Arc::new(Semaphore::new(config.max_concurrent_searches.max(1))),
        analyses: Arc::new(Semaphore::new(
            config
                .max_concurrent_analyses
                .clamp(1, config.max_concurrent_searches.max(1)),
        )),
        running_analyses: Arc::default(),
        config: Arc::new(config),
    };
    Router::new()
        .route("/", get(|| async { assets::page(assets::INDEX_HTML) }))
        .route(
            "/index.html",
            get(|| async { assets::page(assets::INDEX_HTML) }),
        )
        .route("/app.js", get(|| async { assets::page(assets::APP_JS) }))
        .route(
            "/style.css",
            get(|| async { assets::page(assets::STYLE_CSS) }),
        )
        .route(
            "/favicon.svg",
            get(|| async { assets::page(assets::FAVICON_SVG) }),
        )
        .route("/api/health", get(health))
        .route("/api/info", get(info))
        .route("/api/state", post(game_state))
        .route("/api/move", post(engine_move))
        .route("/api/analysis", post(analysis))
        .route("/api/review", post(review))
        .fallback(|| async {
            ApiError::new(StatusCode::NOT_FOUND, "no such page or API route".into())
        })
        .with_state(state)
        .layer(DefaultBodyLimit::max(body_limit))
        .layer(middleware::from_fn_with_state(body_time, body_deadline))
        .layer(TimeoutLayer::with_status_code(
            StatusCode::REQUEST_TIMEOUT,
            request_timeout,
        ))
        .layer(middleware::from_fn_with_state(head_limits, check_head))
        .layer(middleware::map_response(json_errors))
        .layer(SetResponseHeaderLayer::if_not_present(
            header::X_CONTENT_TYPE_OPTIONS,
            HeaderValue::from_static("nosniff"),
        ))
        .layer(CatchPanicLayer::custom(|_| {
            ApiError::new(
                StatusCode::INTERNAL_SERVER_ERROR,
                "internal error (the server caught a panic)".into(),
            )
            .into_response()
        }))
}

/// Listen on `addr` and serve until Ctrl-C, on a multi-threaded tokio runtime built here.
/// `ready` is called with the address actually bound (useful with port 0).
///
/// Connections are served by hyper's HTTP/1 server with a header-read timeout that also
/// closes idle keep-alive connections ([`ServerConfig::header_timeout`]), at most
/// [`ServerConfig::max_connections`] at once: further clients wait in the listen queue.
pub fn run(
    addr: SocketAddr,
    chooser: Arc<dyn TurnChooser>,
    config: ServerConfig,
    ready: impl FnOnce(SocketAddr),
) -> Result<(), ServeError> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(addr)
            .await
            .map_err(|error| ServeError::Bind { addr, error })?;
        ready(listener.local_addr()?);
        let shutdown = async {
            // If the handler cannot be installed, run until the process is killed.
            if tokio::signal::ctrl_c().await.is_err() {
                std::future::pending::<()>().await;
            }
        };
        serve_connections(listener, chooser, config, shutdown).await;
        Ok(())
    })
}

/// Accepts and serves connections on `listener` until `shutdown` completes.
///
/// At most [`ServerConfig::max_connections`] at once (further clients wait in the listen
/// queue) and [`ServerConfig::max_connections_per_client`] from one address (a connection
/// beyond it gets a JSON 503 at once). hyper's own answers to unparsable requests get JSON
/// bodies (the connection is wrapped to rewrite them).
///
/// A client that closes its side of the connection while a search of its own runs is taken
/// as gone, and the search is stopped: at the socket a half-close (`shutdown(SHUT_WR)`) looks
/// exactly like a closed tab or a cancelled `fetch`, and stopping those searches at once is
/// what keeps the slots free for the players still there (nginx does the same, its 499). A
/// request that needs no search ([`SEARCH_ROUTES`] lists those that do) is answered whatever
/// the client does with its side: the end of input is held back from hyper until it is.
pub async fn serve_connections(
    listener: tokio::net::TcpListener,
    chooser: Arc<dyn TurnChooser>,
    config: ServerConfig,
    shutdown: impl std::future::Future<Output = ()>,
) {
    let slots = Arc::new(Semaphore::new(config.max_connections.max(1)));
    let per_client = config.max_connections_per_client.max(1);
    let clients = Arc::new(std::sync::Mutex::new(HashMap::<IpAddr, usize>::new()));
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(hyper_util::rt::TokioTimer::new())
        .header_read_timeout(config.header_timeout)
        .keep_alive(true);
    let app = router(chooser, config);
    tokio::pin!(shutdown);
    loop {
        let slot = tokio::select! {
            () = &mut shutdown => return,
            slot = slots.clone().acquire_owned() => slot,
        };
        let Ok(slot) = slot else { return };
        let accepted = tokio::select! {
            () = &mut shutdown => return,
            accepted = listener.accept() => accepted,
        };
        let (stream, peer) = match accepted {
            Ok(accepted) => accepted,
            // Out of file descriptors, or a connection reset before it was accepted: wait a
            // moment (connections closing free descriptors) and go on.
            Err(_) => {
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let Some(client) = ClientSlot::take(&clients, peer.ip(), per_client) else {
            drop(slot);
            tokio::spawn(refuse(stream, per_client));
            continue;
        };
        let end = Arc::new(crate::wire::EndOfInput::default());
        let io = hyper_util::rt::TokioIo::new(crate::wire::HoldEnd::new(
            crate::wire::JsonParseErrors::new(stream),
            end.clone(),
        ));
        let app = app.clone();
        let service = hyper::service::service_fn(move |request: Request<Incoming>| {
            // Decided as hyper hands the request over, before it next reads the socket.
            let hold = (!SEARCH_ROUTES.contains(&request.uri().path())).then(|| end.hold());
            let request = request.map(|body| crate::wire::EndWatchedBody::new(body, end.clone()));
            let answer = tower::ServiceExt::oneshot(app.clone(), request);
            async move {
                let _hold = hold;
                answer.await
            }
        });
        let connection = http.serve_connection(io, service);
        tokio::spawn(async move {
            let _slot = slot;
            let _client = client;
            // A client that goes away or times out is no error of the server's.
            let _ = connection.await;
        });
    }
}

/// `mutex` locked, whether or not a thread panicked holding it (the data are counts and flags,
/// right at every step).
fn locked<T>(mutex: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// One of a client address's connections, counted while it lives.
struct ClientSlot {
    clients: Arc<std::sync::Mutex<HashMap<IpAddr, usize>>>,
    ip: IpAddr,
}

impl ClientSlot {
    /// Counts a connection from `ip`, unless it already has `limit`.
    fn take(
        clients: &Arc<std::sync::Mutex<HashMap<IpAddr, usize>>>,
        ip: IpAddr,
        limit: usize,
    ) -> Option<ClientSlot> {
        let mut counts = locked(clients);
        let count = counts.entry(ip).or_insert(0);
        if *count >= limit {
            return None;
        }
        *count += 1;
        Some(ClientSlot {
            clients: clients.clone(),
            ip,
        })
    }
}

impl Drop for ClientSlot {
    fn drop(&mut self) {
        let mut counts = locked(&self.clients);
        if let Some(count) = counts.get_mut(&self.ip) {
            *count -= 1;
            if *count == 0 {
                counts.remove(&self.ip);
            }
        }
    }
}

/// Answers a connection over its client's limit with a JSON 503 (within a second, whatever
/// the client does) and closes it.
async fn refuse(mut stream: tokio::net::TcpStream, limit: usize) {
    use tokio::io::AsyncWriteExt;
    let answer = crate::wire::too_many_connections(limit);
    let _ = tokio::time::timeout(Duration::from_secs(1), async {
        stream.write_all(&answer).await?;
        stream.shutdown().await
    })
    .await;
}

/// Bounds on a request's head, checked before any handler runs.
#[derive(Clone, Copy, Debug)]
struct HeadLimits {
    uri_bytes: usize,
    header_bytes: usize,
}

/// Refuses a request whose target or headers are larger than [`HeadLimits`] allow, with a
/// JSON 414 or 431.
async fn check_head(
    State(limits): State<HeadLimits>,
    request: axum::extract::Request,
    next: middleware::Next,
) -> Response {
    let uri = request
        .uri()
        .path_and_query()
        .map_or(0, |p| p.as_str().len());
    if uri > limits.uri_bytes {
        return ApiError::new(
            StatusCode::URI_TOO_LONG,
            format!(
                "the request target is {uri} bytes; at most {} are accepted",
                limits.uri_bytes
            ),
        )
        .into_response();
    }
    let headers: usize = request
        .headers()
        .iter()
        .map(|(name, value)| name.as_str().len() + value.len())
        .sum();
    if headers > limits.header_bytes {
        return ApiError::new(
            StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE,
            format!(
                "the request headers are {headers} bytes; at most {} are accepted",
                limits.header_bytes
            ),
        )
        .into_response();
    }
    next.run(request).await
}

/// Gives the request's body [`ServerConfig::body_timeout`] to arrive, counted from its head.
async fn body_deadline(
    State(limit): State<Duration>,
    request: axum::extract::Request,
    next: middleware::Next,
) -> Response {
    let request = request.map(|body| {
        axum::body::Body::new(DeadlineBody {
            inner: body,
            deadline: Box::pin(tokio::time::sleep(limit)),
            limit,
        })
    });
    next.run(request).await
}

/// A request body that fails with [`BodyTimedOut`] once its deadline has passed, however
/// steadily its bytes trickle in (a per-read timeout would let one byte a second through).
struct DeadlineBody {
    inner: axum::body::Body,
    deadline: std::pin::Pin<Box<tokio::time::Sleep>>,
    limit: Duration,
}

/// The error of a body that took longer than [`ServerConfig::body_timeout`].
#[derive(Debug)]
struct BodyTimedOut(Duration);

impl std::fmt::Display for BodyTimedOut {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "the request body did not arrive within {} s",
            self.0.as_secs_f64()
        )
    }
}

impl std::error::Error for BodyTimedOut {}

impl http_body::Body for DeadlineBody {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Result<http_body::Frame<Bytes>, axum::Error>>> {
        if self.deadline.as_mut().poll(cx).is_ready() {
            let limit = self.limit;
            return std::task::Poll::Ready(Some(Err(axum::Error::new(BodyTimedOut(limit)))));
        }
        std::pin::Pin::new(&mut self.inner).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.inner.size_hint()
    }
}

/// Whether a body could not be read because it took too long ([`BodyTimedOut`]).
fn body_timed_out(rejection: &BytesRejection) -> Option<&BodyTimedOut> {
    let mut cause: Option<&(dyn std::error::Error + 'static)> = Some(rejection);
    while let Some(error) = cause {
        if let Some(timed_out) = error.downcast_ref::<BodyTimedOut>() {
            return Some(timed_out);
        }
        cause = error.source();
    }
    None
}

/// Gives every error answer a JSON body: those made outside the handlers (405 from the router,
/// 408 from the timeout) come without one.
async fn json_errors(response: Response) -> Response {
    let status = response.status();
    let is_json = response
        .headers()
        .get(header::CONTENT_TYPE)
        .is_some_and(|v| v.as_bytes().starts_with(b"application/json"));
    if !(status.is_client_error() || status.is_server_error()) || is_json {
        return response;
    }
    let message = match status {
        StatusCode::METHOD_NOT_ALLOWED => {
            match response
                .headers()
                .get(header::ALLOW)
                .and_then(|v| v.to_str().ok())
            {
                Some(allowed) => format!("this route takes the method {allowed}"),
                None => "this route does not take that method".to_string(),
            }
        }
        StatusCode::REQUEST_TIMEOUT => "the request took too long".to_string(),
        other => other.canonical_reason().unwrap_or("error").to_string(),
    };
    let mut answer = ApiError::new(status, message).into_response();
    for (name, value) in response.headers() {
        if name != header::CONTENT_TYPE && name != header::CONTENT_LENGTH {
            answer.headers_mut().insert(name.clone(), value.clone());
        }
    }
    answer
}

/// An error answer: a status and a JSON [`ErrorBody`].
#[derive(Debug)]
struct ApiError {
    status: StatusCode,
    body: ErrorBody,
}

impl ApiError {
    fn new(status: StatusCode, error: String) -> ApiError {
        ApiError {
            status,
            body: ErrorBody { error, turn: None },
        }
    }

    fn bad_request(error: String) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, error)
    }
}

impl From<ReplayError> for ApiError {
    fn from(e: ReplayError) -> ApiError {
        ApiError {
            status: StatusCode::BAD_REQUEST,
            body: ErrorBody {
                turn: e.turn_index().map(|i| i + 1),
                error: e.to_string(),
            },
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        (self.status, axum::Json(self.body)).into_response()
    }
}

/// Read the request body as a [`GameRequest`], with JSON errors for every failure.
fn parse_request(
    body: Result<Bytes, BytesRejection>,
    limit: usize,
) -> Result<GameRequest, ApiError> {
    let bytes = body.map_err(|rejection| {
        let status = rejection.status();
        if let Some(timed_out) = body_timed_out(&rejection) {
            ApiError::new(StatusCode::REQUEST_TIMEOUT, timed_out.to_string())
        } else if status == StatusCode::PAYLOAD_TOO_LARGE {
            ApiError::new(
                status,
                format!("the request body is larger than {limit} bytes"),
            )
        } else {
            ApiError::new(status, format!("cannot read the request body: {rejection}"))
        }
    })?;
    // serde reads a struct from a JSON array too (its fields in order): only objects are
    // requests.
    if bytes.iter().find(|b| !b.is_ascii_whitespace()) != Some(&b'{') {
        return Err(ApiError::bad_request(
            "malformed JSON request: expected an object, like {\"turns\": []}".into(),
        ));
    }
    serde_json::from_slice(&bytes)
        .map_err(|e| ApiError::bad_request(format!("malformed JSON request: {e}")))
}

fn replay(req: &GameRequest, config: &ServerConfig) -> Result<GameSession, ApiError> {
    Ok(GameSession::replay(
        req.start.as_deref(),
        &req.turns,
        config.rules,
        config.max_turns,
    )?)
}

async fn health() -> Response {
    axum::Json(serde_json::json!({ "status": "ok" })).into_response()
}

async fn info(State(app): State<AppState>) -> axum::Json<InfoView> {
    axum::Json(InfoView {
        engine: app.chooser.name().to_string(),
        levels: Level::ALL
            .into_iter()
            .map(|l| LevelView::new(l, app.chooser.as_ref()))
            .collect(),
        default_level: Level::default(),
        start: START_FEN.into(),
        no_progress_limit: app.config.rules.no_progress_limit,
        max_body_bytes: app.config.max_body_bytes,
        max_turns: app.config.max_turns,
        max_think_ms: app.config.max_think.as_millis() as u64,
    })
}

async fn game_state(
    State(app): State<AppState>,
    body: Result<Bytes, BytesRejection>,
) -> Result<axum::Json<StateView>, ApiError> {
    let req = parse_request(body, app.config.max_body_bytes)?;
    let record = replay(&req, &app.config)?;
    // Listing every legal turn can be heavy: it takes a slot of the pool like a search.
    in_pool(&app, Asker::Player, move |app| {
        Ok(StateView::build(
            &record,
            app.config.max_listed_turns,
            app.chooser.tables(),
        )?)
    })
    .await
    .map(axum::Json)
}

/// Who asks for a slot of the search pool.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Asker {
    /// A player waiting for the engine's turn or the legal turns: if every slot is taken, the
    /// running analyses are told to finish with what they have.
    Player,
    /// An analysis or review: best effort, it yields to players.
    Analysis,
}

/// Runs `work` on the blocking pool once a slot of the search pool is free (503 after
/// [`ServerConfig::queue_timeout`]).
async fn in_pool<T: Send + 'static>(
    app: &AppState,
    asker: Asker,
    work: impl FnOnce(&AppState) -> Result<T, ApiError> + Send + 'static,
) -> Result<T, ApiError> {
    let free = app.searches.clone().try_acquire_owned();
    if free.is_err() && asker == Asker::Player {
        let running = locked(&app.running_analyses);
        for stop in running.iter() {
            stop.raise();
        }
    }
    let permit = match free {
        Ok(permit) => Ok(Ok(permit)),
        Err(_) => {
            tokio::time::timeout(
                app.config.queue_timeout,
                app.searches.clone().acquire_owned(),
            )
            .await
        }
    };
    let permit = permit
        .map_err(|_| {
            ApiError::new(
                StatusCode::SERVICE_UNAVAILABLE,
                "the server is busy; try again in a moment".into(),
            )
        })?
        .map_err(|_| {
            ApiError::new(
                StatusCode::SERVICE_UNAVAILABLE,
                "the server is shutting down".into(),
            )
        })?;
    let app = app.clone();
    let task = tokio::task::spawn_blocking(move || {
        let _permit = permit;
        work(&app)
    });
    match task.await {
        Ok(result) => result,
        Err(_) => Err(ApiError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "internal error: the search failed".into(),
        )),
    }
}

async fn engine_move(
    State(app): State<AppState>,
    body: Result<Bytes, BytesRejection>,
) -> Result<axum::Json<MoveResponse>, ApiError> {
    let req = parse_request(body, app.config.max_body_bytes)?;
    let level = match req.level.as_deref() {
        None => Level::default(),
        Some(name) => name
            .parse::<Level>()
            .map_err(|e| ApiError::bad_request(e.to_string()))?,
    };
    // On a clock: a twentieth of the engine's time left, at least 50 ms.
    let clock = req
        .engine_ms
        .map(|left| Duration::from_millis((left / 20).max(MIN_CLOCK_THINK_MS)));
    search_request(&app, &req, false, move |record, app, stop| {
        search_and_reply(record, level, clock, app, stop)
    })
    .await
}

/// The least the engine thinks on a clock, in milliseconds.
const MIN_CLOCK_THINK_MS: u64 = 50;

/// Replays the request's game (before queueing for a slot, so bad requests fail fast), then,
/// for an analysis, waits for an analysis slot, and runs `work` on the game in the search
/// pool. A client that goes away (a new position, a reload) drops this future: the guard then
/// raises `work`'s stop flag, freeing the slots for the requests that still wait.
async fn search_request<T: Send + 'static>(
    app: &AppState,
    req: &GameRequest,
    analysis: bool,
    work: impl FnOnce(GameSession, &AppState, &Stop) -> Result<T, ApiError> + Send + 'static,
) -> Result<axum::Json<T>, ApiError> {
    let record = replay(req, &app.config)?;
    let stop = Stop::new();
    let _abandoned = RaiseOnDrop(stop.clone());
    let (_analysing, _registered, asker) = if analysis {
        let slot = analysis_slot(app).await?;
        let registered = Running::register(app, &stop);
        (Some(slot), Some(registered), Asker::Analysis)
    } else {
        (None, None, Asker::Player)
    };
    in_pool(app, asker, move |app| work(record, app, &stop))
        .await
        .map(axum::Json)
}

/// An analysis's stop flag in [`AppState::running_analyses`] while it runs.
struct Running {
    list: Arc<std::sync::Mutex<Vec<Stop>>>,
    stop: Stop,
}

impl Running {
    fn register(app: &AppState, stop: &Stop) -> Running {
        locked(&app.running_analyses).push(stop.clone());
        Running {
            list: app.running_analyses.clone(),
            stop: stop.clone(),
        }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        let mut list = locked(&self.list);
        if let Some(at) = list.iter().position(|s| s.same_flag(&self.stop)) {
            list.swap_remove(at);
        }
    }
}

/// Longest an analysis thinks in all (the first turn of its line gets two thirds of it).
const ANALYSIS_TIME: Duration = Duration::from_millis(800);
/// Turns in the line an analysis shows.
const ANALYSIS_LINE: usize = 3;

/// `POST /api/analysis`: the engine's evaluation of the game's position and the line it
/// expects, thinking at the strongest level for [`ANALYSIS_TIME`] (the server's think cap if
/// smaller), in the same pool as the searches and stopped when its request is dropped or a move needs the slot.
async fn analysis(
    State(app): State<AppState>,
    body: Result<Bytes, BytesRejection>,
) -> Result<axum::Json<AnalysisView>, ApiError> {
    let req = parse_request(body, app.config.max_body_bytes)?;
    search_request(&app, &req, true, |record, app, stop| {
        analyse(&record, app, stop)
    })
    .await
}

/// One of the analysis slots ([`ServerConfig::max_concurrent_analyses`]), waited for up to
/// the queue timeout (503 after).
async fn analysis_slot(app: &AppState) -> Result<tokio::sync::OwnedSemaphorePermit, ApiError> {
    tokio::time::timeout(
        app.config.queue_timeout,
        app.analyses.clone().acquire_owned(),
    )
    .await
    .map_err(|_| {
        ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "the server is busy with other analyses; try again in a moment".into(),
        )
    })?
    .map_err(|_| {
        ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "the server is shutting down".into(),
        )
    })
}

/// Runs on the blocking pool: the best turn with its score, then the best replies after it.
/// Most forced turns in a row that [`think_scored`] looks past.
const MAX_FORCED_TURNS: u32 = 8;

/// The engine's choice in `game`, scored even when the turn is forced: a player plays a
/// position's only legal turn without searching, so the position after it (and after the
/// next ones while they are forced too, up to [`MAX_FORCED_TURNS`]) is searched and its score
/// given from this position's mover's side.
fn think_scored(
    app: &AppState,
    game: &fanorona_engine::Game,
    level: Level,
    deadline: Instant,
    stop: &Stop,
) -> Result<fanorona_players::Choice, fanorona_session::levels::ChooseError> {
    let mut choice = app.chooser.think(game, level, deadline, stop)?;
    let mut next = game.clone();
    let mut forced = 0;
    let mut sign_flips = 0;
    let mut last = choice.clone();
    while last.info.score.is_none()
        && forced < MAX_FORCED_TURNS
        && next.position().legal_turns().len() == 1
        && next.play_turn(&last.turn).is_ok()
        && next.outcome().is_none()
    {
        forced += 1;
        sign_flips += 1;
        last = app.chooser.think(&next, level, deadline, stop)?;
    }
    if choice.info.score.is_none() {
        choice.info.score = last
            .info
            .score
            .map(|score| (0..sign_flips).fold(score, |s, _| other_side(s)));
    }
    Ok(choice)
}

/// `score` of a position seen from the side that moved into it, one turn earlier.
fn other_side(score: fanorona_players::Score) -> fanorona_players::Score {
    use fanorona_players::Score;
    match score {
        Score::Centistones(c) => Score::Centistones(-c),
        Score::WinIn(n) => Score::LossIn(n + 1),
        Score::LossIn(n) => Score::WinIn(n + 1),
        Score::Value(v) => Score::Value(-v),
        Score::Tablebase(p) => Score::Tablebase(fanorona_tablebase::Probe {
            wdl: p.wdl.flip(),
            dtz: if p.wdl == fanorona_tablebase::Wdl::Draw {
                0
            } else {
                p.dtz + 1
            },
        }),
        Score::Proven(w) => Score::Proven(w.flip()),
    }
}

fn analyse(record: &GameSession, app: &AppState, stop: &Stop) -> Result<AnalysisView, ApiError> {
    let started = Instant::now();
    let budget = ANALYSIS_TIME.min(app.config.max_think);
    let engine = app.chooser.name();
    let mut game = record.game().clone();
    let side = game.position().side_to_move();
    if let Some(outcome) = game.outcome() {
        return Ok(AnalysisView::finished(side, outcome, engine));
    }
    let mut line = Vec::new();
    let mut score = None;
    for i in 0..ANALYSIS_LINE {
        if game.outcome().is_some() || (i > 0 && stop.is_raised()) {
            break;
        }
        let share = if i == 0 { budget * 2 / 3 } else { budget / 6 };
        let choice =
            think_scored(app, &game, Level::Hard, Instant::now() + share, stop).map_err(|e| {
                ApiError::new(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    format!("the engine could not analyse the position: {e}"),
                )
            })?;
        if i == 0 {
            score = choice.info.score;
        }
        let before = *game.position();
        game.play_turn(&choice.turn).map_err(|e| {
            ApiError::new(
                StatusCode::INTERNAL_SERVER_ERROR,
                format!(
                    "internal error: the engine chose an illegal turn {}: {e}",
                    choice.turn
                ),
            )
        })?;
        line.push(turn_view(
            before.side_to_move(),
            &turn_details(&before, &choice.turn),
        ));
    }
    Ok(AnalysisView::new(
        side,
        score,
        engine,
        line,
        started.elapsed().as_millis() as u64,
    ))
}

/// Longest a game review takes in all: the positions not reached by then are left out.
const REVIEW_TIME: Duration = Duration::from_secs(8);
/// Think time for each position of a review (at the easy level: two turns deep for the
/// classical engine, a few simulations for a network).
const REVIEW_STEP: Duration = Duration::from_millis(60);

/// `POST /api/review`: every position of the game evaluated quickly and the turns that cost
/// their mover most (the page's "mistakes"), in the search pool, stopped when the client goes
/// away.
async fn review(
    State(app): State<AppState>,
    body: Result<Bytes, BytesRejection>,
) -> Result<axum::Json<ReviewView>, ApiError> {
    let req = parse_request(body, app.config.max_body_bytes)?;
    search_request(&app, &req, true, |record, app, stop| {
        review_game(&record, app, stop)
    })
    .await
}

/// Runs on the blocking pool: replays the game from its start, evaluating each position.
fn review_game(record: &GameSession, app: &AppState, stop: &Stop) -> Result<ReviewView, ApiError> {
    let started = Instant::now();
    let end = started + REVIEW_TIME.min(app.config.max_think * 2);
    let turns = record.turns();
    let mut game = fanorona_engine::Game::from_position(*record.start(), app.config.rules);
    let mut bars = Vec::with_capacity(turns.len() + 1);
    let mut stones = Vec::with_capacity(turns.len() + 1);
    let mut best = Vec::with_capacity(turns.len());
    let mut movers = Vec::with_capacity(turns.len());
    let mut complete = true;
    for i in 0..=turns.len() {
        let side = game.position().side_to_move();
        let (bar, preferred) = if let Some(outcome) = game.outcome() {
            stones.push(Some(outcome_stones(outcome)));
            (Some(outcome_bar(outcome)), None)
        } else if Instant::now() >= end || stop.is_raised() {
            complete = false;
            stones.push(None);
            (None, None)
        } else {
            let choice = think_scored(app, &game, Level::Easy, Instant::now() + REVIEW_STEP, stop)
                .map_err(|e| {
                    ApiError::new(
                        StatusCode::INTERNAL_SERVER_ERROR,
                        format!("the engine could not evaluate turn {}: {e}", i + 1),
                    )
                })?;
            stones.push(choice.info.score.map(|score| white_stones(side, score)));
            (
                choice.info.score.map(|score| judge(side, score).1),
                Some(choice.turn.to_string()),
            )
        };
        bars.push(bar);
        let Some(turn) = turns.get(i) else { break };
        best.push(preferred);
        movers.push(side);
        game.play_turn(turn).map_err(|e| {
            ApiError::new(
                StatusCode::INTERNAL_SERVER_ERROR,
                format!(
                    "internal error: turn {} of a checked game failed: {e}",
                    i + 1
                ),
            )
        })?;
    }
    let played: Vec<String> = turns.iter().map(ToString::to_string).collect();
    let mistakes = ReviewView::mistakes(&bars, &stones, &movers, &played, &best);
    Ok(ReviewView {
        bars,
        mistakes,
        complete,
        engine: app.chooser.name().to_string(),
        think_ms: started.elapsed().as_millis() as u64,
    })
}

/// Raises its flag when dropped: the request's future was dropped, finished or not.
struct RaiseOnDrop(Stop);

impl Drop for RaiseOnDrop {
    fn drop(&mut self) {
        self.0.raise();
    }
}

/// Runs on the blocking pool: the engine's turn (unless the game is over) and the new state.
fn search_and_reply(
    mut record: GameSession,
    level: Level,
    clock: Option<Duration>,
    app: &AppState,
    stop: &Stop,
) -> Result<MoveResponse, ApiError> {
    let started = Instant::now();
    let mut engine_turn = None;
    if record.game().outcome().is_none() {
        let think = level
            .think_time()
            .min(app.config.max_think)
            .min(clock.unwrap_or(Duration::MAX));
        let turn = app
            .chooser
            .choose(record.game(), level, started + think, stop)
            .map_err(|e| {
                ApiError::new(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    format!("the engine found no turn: {e}"),
                )
            })?;
        let before = *record.position();
        record.play(&turn).map_err(|e| {
            ApiError::new(
                StatusCode::INTERNAL_SERVER_ERROR,
                format!("internal error: the engine chose an illegal turn {turn}: {e}"),
            )
        })?;
        engine_turn = Some(turn_view(
            before.side_to_move(),
            &turn_details(&before, &turn),
        ));
    }
    let think_ms = started.elapsed().as_millis() as u64;
    let state = StateView::build(&record, app.config.max_listed_turns, app.chooser.tables())?;
    Ok(MoveResponse {
        engine_turn,
        level,
        think_ms,
        state,
    })
}
