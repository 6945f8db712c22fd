//! The axum router: the embedded page, the JSON API, limits, and the search pool.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{DefaultBodyLimit, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use fanorona_engine::{Rules, START_FEN};
use tokio::sync::Semaphore;
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::set_header::SetResponseHeaderLayer;

use crate::assets;
use crate::error::ServeError;
use crate::view::{
    ErrorBody, GameRequest, InfoView, LevelView, MoveResponse, StateView, turn_view,
};
use fanorona_players::levels::{Level, TurnChooser};
use fanorona_players::session::ReplayError;
use fanorona_players::session::{GameSession, turn_details};

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
    /// Most legal turns listed for one position (only contrived set-up positions come
    /// close). Default 20 000.
    pub max_listed_turns: u64,
    /// Longest the engine may think for one turn, whatever the level. Default 5 s.
    pub max_think: Duration,
    /// Searches that may run at once; further requests wait for a slot. Default: the
    /// number of CPU cores.
    pub max_concurrent_searches: usize,
    /// How long a request waits for a search slot before it gets 503. Default 30 s.
    pub queue_timeout: Duration,
    /// The rules (the no-progress limit). Default: the project's default rules.
    pub rules: Rules,
}

impl Default for ServerConfig {
    fn default() -> ServerConfig {
        ServerConfig {
            max_body_bytes: 64 * 1024,
            max_turns: 3000,
            max_listed_turns: 20_000,
            max_think: Duration::from_secs(5),
            max_concurrent_searches: std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(2),
            queue_timeout: Duration::from_secs(30),
            rules: Rules::default(),
        }
    }
}

#[derive(Clone)]
struct AppState {
    chooser: Arc<dyn TurnChooser>,
    config: Arc<ServerConfig>,
    searches: Arc<Semaphore>,
}

/// The whole application as an axum [`Router`]: the page, its assets, and the API.
pub fn router(chooser: Arc<dyn TurnChooser>, config: ServerConfig) -> Router {
    let body_limit = config.max_body_bytes;
    let state = AppState {
        chooser,
        searches: Arc::new(Semaphore::new(config.max_concurrent_searches.max(1))),
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
        .fallback(|| async {
            ApiError::new(StatusCode::NOT_FOUND, "no such page or API route".into())
        })
        .with_state(state)
        .layer(DefaultBodyLimit::max(body_limit))
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
        axum::serve(listener, router(chooser, config))
            .with_graceful_shutdown(async {
                // If the handler cannot be installed, run until the process is killed.
                if tokio::signal::ctrl_c().await.is_err() {
                    std::future::pending::<()>().await;
                }
            })
            .await?;
        Ok(())
    })
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
        if status == StatusCode::PAYLOAD_TOO_LARGE {
            ApiError::new(
                status,
                format!("the request body is larger than {limit} bytes"),
            )
        } else {
            ApiError::new(status, format!("cannot read the request body: {rejection}"))
        }
    })?;
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
    Ok(axum::Json(StateView::build(
        &record,
        app.config.max_listed_turns,
        app.chooser.tables(),
    )?))
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
    // Check the game before queueing for a search slot, so bad requests fail fast.
    let record = replay(&req, &app.config)?;
    let permit = tokio::time::timeout(
        app.config.queue_timeout,
        app.searches.clone().acquire_owned(),
    )
    .await
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
    let task = tokio::task::spawn_blocking(move || {
        let _permit = permit;
        search_and_reply(record, level, &app)
    });
    match task.await {
        Ok(result) => result.map(axum::Json),
        Err(_) => Err(ApiError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "internal error: the search failed".into(),
        )),
    }
}

/// Runs on the blocking pool: the engine's turn (unless the game is over) and the new state.
fn search_and_reply(
    mut record: GameSession,
    level: Level,
    app: &AppState,
) -> Result<MoveResponse, ApiError> {
    let started = Instant::now();
    let mut engine_turn = None;
    if record.game().outcome().is_none() {
        let think = level.think_time().min(app.config.max_think);
        let turn = app
            .chooser
            .choose(record.game(), level, started + think)
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
