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
# -n auto: the whole suite on both cores, each pytest-xdist worker with its own engine and
# session graph; a selection (-m unit, -k, a path) in one process. How the tests are shared out:
# tests/worker_groups.py, docs/decisions/0028-suite-on-two-cores.md. -n 0: one process always.
exec "$venv/bin/python" -m pytest -n auto "$@"
