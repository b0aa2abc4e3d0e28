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
# Where the environment sets PYTHONDONTWRITEBYTECODE (this machine's does), every process of the
# run compiled the checkout's modules again and pytest rewrote every test module again in each
# worker: collecting the suite cost 23.7 s of CPU a worker with it, 14.4 s without once the
# bytecode is cached in __pycache__ (ignored by git; 2026-12-07, decision 0028). The run's
# processes (workers, engines, CLI commands) write it.
unset PYTHONDONTWRITEBYTECODE
# -n auto: the whole suite on both cores, each pytest-xdist worker with its own engine and
# session graph; a selection (-m unit, -k, a path) in one process. How the tests are shared out:
# tests/worker_groups.py, docs/decisions/0028-suite-on-two-cores.md. -n 0: one process always.
exec "$venv/bin/python" -m pytest -n auto "$@"
