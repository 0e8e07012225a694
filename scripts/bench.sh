#!/usr/bin/env bash
# Runs every benchmark under bench/ in turn (each prints its own figures). Arguments go to each.
set -euo pipefail
cd "$(dirname "$0")/.."
for file in bench/*.ts; do
  printf '\n== %s ==\n' "$file"
  node -r ./scripts/register-ts.js "$file" "$@"
done
