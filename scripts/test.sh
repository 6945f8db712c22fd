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

step "lints (cargo clippy, warnings are errors)"
if cargo clippy --version >/dev/null 2>&1; then
  cargo clippy --workspace --all-targets --locked -- -D warnings
else
  echo "clippy not installed; installing it with rustup"
  rustup component add clippy
  cargo clippy --workspace --all-targets --locked -- -D warnings
fi

step "build and run the Rust tests (dev profile; dependencies optimised)"
cargo test --workspace --all-targets --locked
cargo test --workspace --doc --locked

step "browser tests (installs chromium and the npm packages when missing)"
scripts/browser-tests.sh

echo
echo "all tests passed"
