#!/usr/bin/env bash
# Set up biokg and build the graph from the offline data on the embedded engine, then print its
# summary. Extra arguments go to `biokg build` (e.g. --sources hpo).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="$("$root/scripts/venv.sh")"
# the offline samples are the project's shared/ folder beside the checkout, wherever this is run
export BIOKG_SHARED_DATA="${BIOKG_SHARED_DATA:-$root/../shared/data}"
"$venv/bin/biokg" build "$@"
