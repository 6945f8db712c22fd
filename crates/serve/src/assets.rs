//! The web page, embedded in the binary: plain HTML, CSS and JavaScript, no build step.

use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};

/// One embedded file and its media type.
#[derive(Copy, Clone, Debug)]
pub struct Asset {
    /// The file's text.
    pub body: &'static str,
    /// Its `Content-Type`.
    pub content_type: &'static str,
}

/// The page.
pub const INDEX_HTML: Asset = Asset {
    body: include_str!("../static/index.html"),
    content_type: "text/html; charset=utf-8",
};

/// The page's script: drawing, clicks and API calls; no rules.
pub const APP_JS: Asset = Asset {
    body: include_str!("../static/app.js"),
    content_type: "text/javascript; charset=utf-8",
};

/// The page's style sheet.
pub const STYLE_CSS: Asset = Asset {
    body: include_str!("../static/style.css"),
    content_type: "text/css; charset=utf-8",
};

/// The page's icon.
pub const FAVICON_SVG: Asset = Asset {
    body: include_str!("../static/favicon.svg"),
    content_type: "image/svg+xml",
};

/// Answer with an embedded file. `no-cache` makes browsers revalidate, so a new binary's
/// page is picked up at once.
pub fn page(asset: Asset) -> Response {
    let mut response = asset.body.into_response();
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static(asset.content_type),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(
            "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:",
        ),
    );
    response
}
