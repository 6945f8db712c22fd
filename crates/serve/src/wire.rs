//! The connection's bytes: hyper's own answers to requests it cannot parse get a JSON body
//! like every other error of the server ([`JsonParseErrors`]), and a client over its share of
//! connections gets a JSON 503 ([`too_many_connections`]).
//!
//! hyper answers a request whose head it cannot parse (folded or duplicated framing headers,
//! more than 100 headers, a malformed request line) by itself, before any service runs: a
//! status line, `content-length: 0` and nothing else. The server's own error answers always
//! carry a JSON body, so an error head with an empty body on the wire can only be hyper's;
//! [`JsonParseErrors`] replaces it with the same status and a JSON body saying what was wrong.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll, ready};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

/// A connection whose hyper-made error answers are rewritten with a JSON body.
///
/// It writes contiguous buffers only (no vectored writes), so each answer hyper flushes
/// arrives whole in one `poll_write` and its head can be recognised.
pub struct JsonParseErrors<S> {
    inner: S,
    /// A replacement answer being written: the bytes, how many are out, and how many bytes of
    /// hyper's buffer it stands for.
    pending: Option<(Vec<u8>, usize, usize)>,
}

impl<S> JsonParseErrors<S> {
    pub fn new(inner: S) -> Self {
        JsonParseErrors {
            inner,
            pending: None,
        }
    }
}

/// The answer to send instead of `written`, when `written` is a whole error head with an empty
/// body (hyper's answer to an unparsable request).
fn replacement(written: &[u8]) -> Option<Vec<u8>> {
    let head_end = written.windows(4).position(|w| w == b"\r\n\r\n")? + 4;
    if head_end != written.len() {
        return None;
    }
    let head = std::str::from_utf8(written).ok()?;
    let mut lines = head.split("\r\n");
    let status: u16 = lines
        .next()?
        .strip_prefix("HTTP/1.1 ")?
        .get(..3)?
        .parse()
        .ok()?;
    let empty = lines.any(|line| line.eq_ignore_ascii_case("content-length: 0"));
    if !(400..600).contains(&status) || !empty {
        return None;
    }
    let (reason, message) = match status {
        400 => (
            "Bad Request",
            "malformed request head: a request line or header that is not HTTP/1.1 \
             (a folded header, a duplicated or invalid Content-Length, a bad character)",
        ),
        414 => ("URI Too Long", "the request target is too long"),
        431 => (
            "Request Header Fields Too Large",
            "too many request headers (at most 100) or headers too large",
        ),
        505 => ("HTTP Version Not Supported", "only HTTP/1.1 is served"),
        _ => ("Error", "the request could not be read"),
    };
    let body = serde_json::json!({ "error": message, "turn": null }).to_string();
    Some(
        format!(
            "HTTP/1.1 {status} {reason}\r\ncontent-type: application/json\r\n\
             content-length: {}\r\nx-content-type-options: nosniff\r\n\
             connection: close\r\n\r\n{body}",
            body.len()
        )
        .into_bytes(),
    )
}

/// The answer to a connection over [`crate::ServerConfig::max_connections_per_client`].
pub fn too_many_connections(limit: usize) -> Vec<u8> {
    let body = serde_json::json!({
        "error": format!(
            "too many connections from your address (at most {limit} at once); \
             close some and try again"
        ),
        "turn": null,
    })
    .to_string();
    format!(
        "HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\n\
         content-length: {}\r\nretry-after: 1\r\nx-content-type-options: nosniff\r\n\
         connection: close\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

impl<S: AsyncRead + Unpin> AsyncRead for JsonParseErrors<S> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for JsonParseErrors<S> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        if self.pending.is_none() {
            match replacement(buf) {
                Some(answer) => self.pending = Some((answer, 0, buf.len())),
                None => return Pin::new(&mut self.inner).poll_write(cx, buf),
            }
        }
        // Write the replacement whole; then report hyper's buffer as written.
        loop {
            let this = &mut *self;
            let Some((answer, out, stands_for)) = this.pending.as_mut() else {
                unreachable!("set above")
            };
            if *out == answer.len() {
                let stands_for = *stands_for;
                this.pending = None;
                return Poll::Ready(Ok(stands_for));
            }
            let n = ready!(Pin::new(&mut this.inner).poll_write(cx, &answer[*out..]))?;
            if n == 0 {
                return Poll::Ready(Err(io::ErrorKind::WriteZero.into()));
            }
            *out += n;
        }
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_empty_error_heads_are_replaced() {
        let hyper_400 = b"HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\ndate: x\r\n\r\n";
        let answer = String::from_utf8(replacement(hyper_400).unwrap()).unwrap();
        assert!(
            answer.starts_with("HTTP/1.1 400 Bad Request\r\n"),
            "{answer}"
        );
        let body = answer.split("\r\n\r\n").nth(1).unwrap();
        let json: serde_json::Value = serde_json::from_str(body).unwrap();
        assert!(json["error"].as_str().unwrap().contains("malformed"));
        let hyper_431 =
            b"HTTP/1.1 431 Request Header Fields Too Large\r\ncontent-length: 0\r\n\r\n";
        assert!(replacement(hyper_431).is_some());
        // A success, an error with a body, a head whose body follows: left alone.
        assert!(replacement(b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n").is_none());
        assert!(replacement(b"HTTP/1.1 400 Bad Request\r\ncontent-length: 2\r\n\r\n{}").is_none());
        assert!(replacement(b"HTTP/1.1 404 Not Found\r\ncontent-length: 20\r\n\r\n").is_none());
        assert!(replacement(b"{\"error\": 1}").is_none());
    }
}
