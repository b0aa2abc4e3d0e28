#!/usr/bin/env bash
# Run lint and the whole test suite (real embedded engine, real data) in the pinned virtualenv.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="$("$root/scripts/venv.sh")"
cd "$root"
# tests/api/test_explorer.py drives Debian's chromium through its own chromedriver (selenium
# never downloads one): install both once; a failed install fails the run, it never skips the test
if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; then
    echo "test.sh: installing chromium and chromium-driver (apt) for the explorer's browser test" >&2
    sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq chromium chromium-driver >/dev/null
fi
"$venv/bin/ruff" check .
exec "$venv/bin/python" -m pytest "$@"
