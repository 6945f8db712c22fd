#!/usr/bin/env bash
# Browser tests of the web page: real headless Chromium (Debian's `chromium` package) driven
# by playwright-core (web-tests/, Node's built-in test runner) against `fanorona serve`.
#
# Installs what is missing (chromium with apt-get when run as root, the npm packages with
# `npm ci`), builds the `fanorona` binary, starts the server on a free loopback port, runs
# the tests, and always stops the server. Exits non-zero when anything fails.
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n==> %s\n' "$*"; }

as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"; elif command -v sudo >/dev/null 2>&1; then sudo "$@"; else
    echo "need root to run: $*" >&2
    return 1
  fi
}

apt_updated=0
apt_install() {
  if [ "$apt_updated" = 0 ]; then
    as_root apt-get update -qq
    apt_updated=1
  fi
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@"
}

CHROMIUM="${CHROMIUM:-/usr/bin/chromium}"
if [ ! -x "$CHROMIUM" ]; then
  step "installing chromium (apt-get)"
  apt_install chromium
fi
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  step "installing node and npm (apt-get)"
  apt_install nodejs npm
fi
if [ ! -d web-tests/node_modules/playwright-core ]; then
  step "installing playwright-core (npm ci in web-tests/)"
  (cd web-tests && npm ci --no-audit --no-fund)
fi

step "building the fanorona binary"
# The same build as `cargo test` in scripts/test.sh, so after it this is a no-op: a plain
# `cargo build` resolves dependency features without the dev-dependencies and would compile
# most dependencies a second time. It leaves the binary at target/debug/fanorona.
cargo test --workspace --all-targets --no-run --locked
BIN="${CARGO_TARGET_DIR:-target}/debug/fanorona"

step "starting fanorona serve on a free loopback port"
LOG="$(mktemp)"
# Without endgame tables, whether or not this checkout has built tablebases/: the tests' game
# positions (a two-stone blunder among them) are judged by the search, as on a fresh clone.
"$BIN" serve --addr 127.0.0.1:0 --no-tablebases >"$LOG" 2>&1 &
SERVER_PID=$!
cleanup() {
  kill "$SERVER_PID" 2>/dev/null || true
  wait "$SERVER_PID" 2>/dev/null || true
  rm -f "$LOG"
}
trap cleanup EXIT

URL=""
for _ in $(seq 1 150); do
  URL="$(grep -o 'http://127\.0\.0\.1:[0-9]*' "$LOG" | head -n 1 || true)"
  [ -n "$URL" ] && break
  if ! kill -0 "$SERVER_PID" 2>/dev/null; then
    cat "$LOG" >&2
    echo "the server exited before it was ready" >&2
    exit 1
  fi
  sleep 0.2
done
if [ -z "$URL" ]; then
  cat "$LOG" >&2
  echo "the server did not start within 30 s" >&2
  exit 1
fi
echo "server at $URL"

step "browser tests (node --test web-tests/tests/)"
cd web-tests
FANORONA_URL="$URL" CHROMIUM="$CHROMIUM" node --test --test-concurrency=1 --test-timeout=120000 tests/
