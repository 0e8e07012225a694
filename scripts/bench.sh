#!/usr/bin/env bash
# Runs every benchmark under bench/ in turn; each prints its figures and records them in
# bench/results/<name>.json (bench/kit.ts). Arguments go to each (e.g. --smoke). Then
# `npm run bench:table` rewrites the figures table of docs/performance.md from those files.
set -euo pipefail
cd "$(dirname "$0")/.."
for file in bench/*.ts; do
  [ "$file" = bench/kit.ts ] && continue
  printf '\n== %s (load %s) ==\n' "$file" "$(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo '?')"
  node -r ./scripts/register-ts.js "$file" "$@"
done
