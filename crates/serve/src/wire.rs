//! The connection's bytes: hyper's own answers to requests it cannot parse get a JSON body
//! like every other error of the server ([`JsonParseErrors`]), and a client over its share of
//! connections gets a JSON 503 ([`too_many_connections`]).
//!
//! hyper answers a request whose head it cannot parse (folded or duplicated framing headers,
//! more than 100 headers, a malformed request line) by itself, before any service runs: a
//! status line, `content-length: 0` and nothing else. The server's own error answers always
//! carry a JSON body, so an error head with an empty body on the wire can only be hyper's;
//! [`JsonParseErrors`] replaces it with the same status and a JSON body saying what was wrong.
//!
//! hyper (with half-close off) takes a client's end of input during a request as the client
//! gone and drops the request, which is right for a search (a closed tab must not hold a
//! search slot) and wrong for a request that needs none, such as a health check by `nc -N` or
//! a script that half-closes after writing. [`HoldEnd`] holds the end of input back from hyper
//! while such a request is in flight ([`EndOfInput::hold`]), so it is answered, and lets it
//! through at once otherwise.

use std::io;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll, Waker, ready};

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

/// A connection's end of input as its requests see it: whether the client has closed its
/// sending side, and how many requests in flight want that held back from hyper.
#[derive(Debug, Default)]
pub struct EndOfInput {
    state: Mutex<EndState>,
}

#[derive(Debug, Default)]
struct EndState {
    /// Requests in flight that are answered whether or not the client is still reading.
    holds: usize,
    /// The client's end of input has been read (it stays read: every later read is the end).
    seen: bool,
    /// hyper's read waiting for the holds to end.
    reader: Option<Waker>,
    /// A request body waiting for bytes ([`EndWatchedBody`]).
    body: Option<Waker>,
}

impl EndOfInput {
    fn state(&self) -> MutexGuard<'_, EndState> {
        // Counts and flags, right at every step: a panic elsewhere leaves them usable.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Holds the end of input back until the returned guard is dropped.
    pub fn hold(self: &Arc<Self>) -> EndHold {
        self.state().holds += 1;
        EndHold(self.clone())
    }

    /// Whether the end of input has been read.
    fn seen(&self) -> bool {
        self.state().seen
    }

    /// Whether the end of input has been read; if not, `waker` is woken when it is.
    fn seen_or_wake(&self, waker: &Waker) -> bool {
        let mut state = self.state();
        if !state.seen {
            state.body = Some(waker.clone());
        }
        state.seen
    }
}

/// A request that is answered even if its client closes its sending side (see [`HoldEnd`]).
#[derive(Debug)]
pub struct EndHold(Arc<EndOfInput>);

impl Drop for EndHold {
    fn drop(&mut self) {
        let mut state = self.0.state();
        state.holds -= 1;
        if state.holds == 0
            && let Some(reader) = state.reader.take()
        {
            reader.wake();
        }
    }
}

/// A connection whose end of input reaches its reader only when no [`EndHold`] is alive:
/// until then a read that finds the end waits (it is bounded by the request's own timeout).
pub struct HoldEnd<S> {
    inner: S,
    end: Arc<EndOfInput>,
}

impl<S> HoldEnd<S> {
    pub fn new(inner: S, end: Arc<EndOfInput>) -> Self {
        HoldEnd { inner, end }
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for HoldEnd<S> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = &mut *self;
        if !this.end.state().seen {
            let before = buf.filled().len();
            ready!(Pin::new(&mut this.inner).poll_read(cx, buf))?;
            if buf.filled().len() > before || buf.remaining() == 0 {
                return Poll::Ready(Ok(()));
            }
        }
        let mut state = this.end.state();
        state.seen = true;
        if let Some(body) = state.body.take() {
            body.wake();
        }
        if state.holds > 0 {
            state.reader = Some(cx.waker().clone());
            return Poll::Pending;
        }
        Poll::Ready(Ok(()))
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for HoldEnd<S> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

/// A request body that fails with [`BodyCutShort`] when it waits for bytes after the
/// client's end of input: hyper reads the socket for a body only once every byte before has
/// been handed on, so nothing more can come, and with the end held back ([`HoldEnd`]) hyper
/// itself would wait for the rest until the body's deadline.
pub struct EndWatchedBody<B> {
    inner: B,
    end: Arc<EndOfInput>,
}

impl<B> EndWatchedBody<B> {
    pub fn new(inner: B, end: Arc<EndOfInput>) -> Self {
        EndWatchedBody { inner, end }
    }
}

/// The error of a body whose client closed its side before the whole body came.
#[derive(Debug)]
pub struct BodyCutShort;

impl std::fmt::Display for BodyCutShort {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the client closed its side of the connection before the whole body came")
    }
}

impl std::error::Error for BodyCutShort {}

impl<B> http_body::Body for EndWatchedBody<B>
where
    B: http_body::Body + Unpin,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    type Data = B::Data;
    type Error = Box<dyn std::error::Error + Send + Sync>;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<B::Data>, Self::Error>>> {
        match Pin::new(&mut self.inner).poll_frame(cx) {
            // hyper's own error for a body cut by the end of input (a request whose end is not
            // held back, one that searches) says only "error reading a body from connection":
            // it gets the same words as the others.
            Poll::Ready(Some(Err(_))) if self.end.seen() => {
                Poll::Ready(Some(Err(Box::new(BodyCutShort))))
            }
            Poll::Ready(frame) => Poll::Ready(frame.map(|frame| frame.map_err(Into::into))),
            Poll::Pending if self.end.seen_or_wake(cx.waker()) => {
                Poll::Ready(Some(Err(Box::new(BodyCutShort))))
            }
            Poll::Pending => Poll::Pending,
        }
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.inner.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The end of input reaches the reader only once no hold is alive, and wakes it then; a
    /// body waiting for bytes learns of it at once.
    #[tokio::test]
    async fn the_end_of_input_waits_for_the_holds() {
        use std::time::Duration;
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let (mut client, server) = tokio::io::duplex(64);
        let end = Arc::new(EndOfInput::default());
        let mut connection = HoldEnd::new(server, end.clone());
        let hold = end.hold();
        client.write_all(b"abc").await.unwrap();
        client.shutdown().await.unwrap();
        let mut buf = [0u8; 8];
        assert_eq!(connection.read(&mut buf).await.unwrap(), 3);
        let reader = tokio::spawn(async move {
            let mut buf = [0u8; 8];
            connection.read(&mut buf).await.unwrap()
        });
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert!(!reader.is_finished(), "the end passed a hold");
        assert!(end.seen_or_wake(Waker::noop()), "the end was not seen");
        let second = end.hold();
        drop(hold);
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert!(!reader.is_finished(), "the end passed the second hold");
        drop(second);
        let read = tokio::time::timeout(Duration::from_secs(5), reader).await;
        assert_eq!(read.expect("the reader was not woken").unwrap(), 0);
    }

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
