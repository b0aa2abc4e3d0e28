#!/usr/bin/env bash
# Set up biokg and build the graph from the offline data on the embedded engine, then print its
# summary. Extra arguments go to `biokg build` (e.g. --sources hpo).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="$("$root/scripts/venv.sh")"
"$venv/bin/biokg" build "$@"
