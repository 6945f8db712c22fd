#!/usr/bin/env bash
# Runs every test of the project. Installs what the tests need when it is missing, so a fresh
# machine passes with this one command. CI (.ci/run) calls exactly this script.
set -euo pipefail
cd "$(dirname "$0")/.."
# A test run is not an edit loop: incremental compilation would only add gigabytes of cache
# (CI's disk is small) and time to a clean build.
export CARGO_INCREMENTAL="${CARGO_INCREMENTAL:-0}"

step() { printf '\n==> %s\n' "$*"; }

step "formatting (cargo fmt --check)"
if cargo fmt --version >/dev/null 2>&1; then
  cargo fmt --all -- --check
else
  echo "rustfmt not installed; skipping the format check"
fi

step "lints (cargo clippy, warnings are errors; with the GPU feature, so it compiles too)"
# burn's wgpu backend (Vulkan) is the GPU path that builds without downloads from outside the
# package registries (the cuda one fetches an LLVM bundle). Linting with it on checks that it
# compiles, so that it cannot rot, in the same pass (a separate `cargo check --features wgpu`
# compiled the burn stack a second time: three minutes of a 31-minute run).
if ! cargo clippy --version >/dev/null 2>&1; then
  echo "clippy not installed; installing it with rustup"
  rustup component add clippy
fi
cargo clippy --workspace --all-targets --locked --features fanorona/wgpu -- -D warnings

step "the S3-compatible server for the object-store tests (s3s-fs; installed when missing)"
# crates/cli/tests/store.rs runs training on a bucket of a real S3 server on loopback.
S3S_VERSION=0.14.1
S3S_ROOT="$PWD/target/tools/s3s-fs-$S3S_VERSION"
if [ -z "${FANORONA_S3S_FS:-}" ]; then
  if [ ! -x "$S3S_ROOT/bin/s3s-fs" ]; then
    # --debug: unoptimised, it builds in 73 s instead of 123 s on two cores, and the store
    # tests take 2 s longer with it (15 s instead of 13).
    cargo install "s3s-fs@$S3S_VERSION" --locked --features binary --debug --root "$S3S_ROOT"
  fi
  export FANORONA_S3S_FS="$S3S_ROOT/bin/s3s-fs"
fi
echo "using $FANORONA_S3S_FS"

step "build and run the Rust tests (dev profile; dependencies optimised)"
# --no-fail-fast: one failing test binary must not hide the results of the others.
cargo test --workspace --all-targets --locked --no-fail-fast
cargo test --workspace --doc --locked

step "the Python package (pip install into target/python-venv, then pytest)"
scripts/python-tests.sh

step "the deployment example against the Kubernetes schemas"
scripts/check-deploy.sh

step "browser tests (installs chromium and the npm packages when missing)"
scripts/browser-tests.sh

echo
echo "all tests passed"
