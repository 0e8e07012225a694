#!/usr/bin/env bash
# The whole test suite from a fresh clone: install what is missing, then lint, typecheck and every
# jest tier (`npm test`), then the real tier on Temporal's own server and PostgreSQL
# (scripts/real-temporal.sh), after the others so that its server's build and its tests take no cores
# from them. One closing line counts both jest runs (`Tests: <n> passed, <n> failed, <n> skipped`, the
# last line of standard output); a part that fails with no failed test (a static check, the server's
# build) counts as one failure.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh

totals="$(mktemp)"
trap 'rm -f "$totals"' EXIT
export DURABLE_AGENTS_TEST_TOTALS="$totals"

part() {
  local before code=0
  before="$(wc -l <"$totals")"
  "$@" || code=$?
  if [ "$code" -ne 0 ] && ! tail -n "+$((before + 1))" "$totals" | awk '$2 > 0 { f = 1 } END { exit !f }'; then
    echo '0 1 0' >>"$totals"
  fi
  return "$code"
}

status=0
# --silent: npm names the package and its version before each script, which is not test output.
part npm test --silent || status=1
part ./scripts/real-temporal.sh || status=1
awk '{ p += $1; f += $2; s += $3 } END { printf "\nTests: %d passed, %d failed, %d skipped\n", p, f, s }' "$totals"
exit "$status"
