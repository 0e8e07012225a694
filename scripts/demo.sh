#!/usr/bin/env bash
# Quick start: install what running the project needs and is missing, build, and run the demo (extra
# arguments go to `demo`). The tests' own needs (a browser, PostgreSQL) are left to scripts/setup.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh --demo
exec node bin/durable-agents.js demo "$@"
