#!/usr/bin/env bash
# Quick start: install what is missing, build, and run the demo (extra arguments go to `demo`).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
exec node bin/durable-agents.js demo "$@"
