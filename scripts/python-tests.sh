#!/usr/bin/env bash
# The Python package's tests: installs it from this clone into a virtual environment
# (target/python-venv, kept between runs) the way the README says, with what its tests need
# (pytest, PettingZoo, Gymnasium, and fanorona-aec 3.0.2 for the whole-turn comparison),
# builds 3-stone endgame tables for the probe test, and runs pytest. scripts/test.sh calls it.
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON="${PYTHON:-python3}"
VENV="$PWD/target/python-venv"
if [ ! -x "$VENV/bin/python" ]; then
  "$PYTHON" -m venv "$VENV"
fi
# The documented command (README, "Python"), with the test extra and the comparison package,
# built with the dev profile: it reuses what the Rust tests compiled (seconds, where a release
# build compiles every crate again; the release install's time is in docs/python.md).
MATURIN_PEP517_ARGS="--profile dev" "$VENV/bin/pip" install --quiet --disable-pip-version-check \
  "./crates/python[test]" "fanorona-aec==3.0.2"

TABLES="$PWD/target/python-test-tables"
if [ ! -f "$TABLES/2v1.fnwdl" ]; then
  # The binary the Rust tests built (`cargo run` would link it again: its features differ from
  # the whole workspace's); built here only when this script runs alone.
  BIN="$PWD/target/debug/fanorona"
  [ -x "$BIN" ] || cargo build --quiet -p fanorona
  "$BIN" tablebase build --stones 3 --out "$TABLES" >/dev/null
fi

# From the repository's root, so the README test finds README.md; the installed package, not
# the source folder, is what is imported.
FANORONA_TEST_TABLES="$TABLES" "$VENV/bin/python" -m pytest -q -p no:cacheprovider crates/python/tests
