#!/usr/bin/env bash
# Run lint and the whole test suite (real embedded engine, real data) in the pinned virtualenv.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="$("$root/scripts/venv.sh")"
cd "$root"
"$venv/bin/ruff" check .
exec "$venv/bin/python" -m pytest "$@"
