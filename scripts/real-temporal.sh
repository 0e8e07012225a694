#!/usr/bin/env bash
# The real tier (docs/testing.md#the-real-tier): builds Temporal's own server and SQL tool from the Go
# module proxy, once per machine, then runs the tier's jest config (jest.real.config.js) against them:
# its global setup starts PostgreSQL, creates the server's databases and starts the server.
# Arguments go to jest. DURABLE_AGENTS_SKIP_REAL_TEMPORAL=1 skips the tier with one line; without it,
# a missing Go fails the tier with one line.
set -euo pipefail
cd "$(dirname "$0")/.."

# The newest server whose go.mod asks for no newer Go than the machine's (1.26.8); docker-compose.yml
# runs the same version.
VERSION=1.32.1
MODULE=go.temporal.io/server

# Standard error: standard output's last line stays jest's closing line (scripts/jest-closing-line.js).
say() { printf 'real tier: %s\n' "$*" >&2; }
fail() { printf 'real tier: %s\n' "$*" >&2; exit 1; }

if [ -n "${DURABLE_AGENTS_SKIP_REAL_TEMPORAL:-}" ]; then
  say "skipped (DURABLE_AGENTS_SKIP_REAL_TEMPORAL is set)"
  exit 0
fi

# bin/ (temporal-server, temporal-sql-tool), schema/ (the server's PostgreSQL schemas) and a stamp
# that says both are whole.
dir="${DURABLE_AGENTS_REAL_TEMPORAL_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/durable-agents/temporal-server-$VERSION}"

if [ "$(cat "$dir/built" 2>/dev/null)" != "$VERSION" ]; then
  command -v go >/dev/null \
    || fail "Go is needed to build temporal-server $VERSION (go install from the module proxy): install Go 1.26.8 or newer, or set DURABLE_AGENTS_SKIP_REAL_TEMPORAL=1 to skip this tier."
  mkdir -p "$dir/bin"
  log="$dir/build.log"
  say "building temporal-server and temporal-sql-tool $VERSION into $dir (about 5 minutes on 2 cores)"
  started=$SECONDS
  # One compile of both, with the module's own go.mod (-mod=mod) and the machine's Go (no toolchain download).
  if ! GOBIN="$dir/bin" GOFLAGS=-mod=mod GOTOOLCHAIN=local nice -n 10 \
    go install "$MODULE/cmd/server@v$VERSION" "$MODULE/cmd/tools/sql@v$VERSION" >"$log" 2>&1; then
    fail "go install of temporal-server $VERSION failed: $(grep -v '^go: downloading' "$log" | tail -n 1) (whole log: $log)"
  fi
  mv "$dir/bin/server" "$dir/bin/temporal-server"
  mv "$dir/bin/sql" "$dir/bin/temporal-sql-tool"
  rm -rf "$dir/schema"
  cp -R "$(go env GOMODCACHE)/$MODULE@v$VERSION/schema/postgresql/v12" "$dir/schema"
  chmod -R u+w "$dir/schema" # the module cache is read-only; the copy need not be
  echo "$VERSION" >"$dir/built"
  say "built in $((SECONDS - started)) s"
fi

export DURABLE_AGENTS_REAL_TEMPORAL_DIR="$dir"
exec npx jest -c jest.real.config.js "$@"
