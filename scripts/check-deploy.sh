#!/usr/bin/env bash
# Checks deploy/kubernetes.yaml against the Kubernetes API schemas (kubernetes-validate, from
# PyPI, installed into target/tools when missing). The manifest is not run by the tests.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV="$PWD/target/tools/deploy-venv"
if [ ! -x "$VENV/bin/kubernetes-validate" ]; then
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install --quiet "kubernetes-validate==1.37.0"
fi
"$VENV/bin/kubernetes-validate" --strict deploy/kubernetes.yaml
