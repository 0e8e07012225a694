#!/usr/bin/env bash
# The whole test suite from a fresh clone: install what is missing, then lint, typecheck and jest.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
# --silent: npm names the package and its version before each script, which is not test output.
exec npm test --silent
