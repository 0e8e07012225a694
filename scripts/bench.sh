#!/usr/bin/env bash
# Runs every benchmark under bench/ in turn. Those built on bench/kit.ts print their figures, record
# them in bench/results/<name>.json and take the arguments given here (sizes, --smoke, --untuned,
# --out <dir>). llm-layer, tools and store print only: they run with their own defaults, and not at
# all under --smoke. Then `npm run bench:table` rewrites the figures table of docs/performance.md.
set -euo pipefail
cd "$(dirname "$0")/.."
# Modules the benchmarks share, not benchmarks themselves.
SHARED=" bench/kit.ts bench/first-token.ts bench/cached-run-memory.ts "
PRINT_ONLY=" bench/llm-layer.ts bench/tools.ts bench/store.ts "
for file in bench/*.ts; do
  [[ "$SHARED" == *" $file "* ]] && continue
  args=("$@")
  if [[ "$PRINT_ONLY" == *" $file "* ]]; then
    [[ " $* " == *" --smoke "* ]] && continue
    args=()
  fi
  printf '\n== %s (load %s) ==\n' "$file" "$(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo '?')"
  node -r ./scripts/register-ts.js "$file" ${args[@]+"${args[@]}"}
done
