#!/usr/bin/env bash
# The static checks `npm test` runs beside jest (scripts/test-all.sh): ESLint, Prettier's check and
# tsc --noEmit, side by side (each is mostly one core's work). Each one's output is printed whole once
# all have ended; the exit status is 1 when any of them failed.
set -uo pipefail
cd "$(dirname "$0")/.."

out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT

names=(lint format:check typecheck)
pids=()
for name in "${names[@]}"; do
  npm run --silent "$name" >"$out/$name" 2>&1 &
  pids+=($!)
done

failed=0
for i in "${!names[@]}"; do
  if ! wait "${pids[$i]}"; then
    failed=1
    printf 'npm run %s failed:\n' "${names[$i]}" >&2
  fi
  cat "$out/${names[$i]}" >&2
done
exit "$failed"
