#!/usr/bin/env bash
# `npm test`: the static checks (scripts/checks.sh) and every jest tier at once. Jest leaves part of
# the cores idle while its tests wait on the server, which the checks fill; their report is printed
# when they end, jest's closing line stays the last line of standard output, and the exit status is 1
# when either failed. Arguments go to jest.
set -uo pipefail
cd "$(dirname "$0")/.."

./scripts/checks.sh &
checks=$!
npx jest "$@"
tests=$?
wait "$checks"
checked=$?
if [ "$checked" -ne 0 ]; then
  echo 'npm test: the static checks failed (their report is above)' >&2
  exit 1
fi
exit "$tests"
