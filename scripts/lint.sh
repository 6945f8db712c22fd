#!/usr/bin/env bash
# Formatting and lints, as the project keeps them: `cargo fmt` and `cargo clippy --all-targets`
# with no warnings. Not part of scripts/test.sh (clippy recompiles every dependency in check
# mode, which CI's time budget does not need); run it before committing.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo fmt --all -- --check
cargo clippy --workspace --all-targets --locked -- -D warnings
