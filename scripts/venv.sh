#!/usr/bin/env bash
# Create (or reuse) the virtualenv for this checkout and print its path.
# The venv lives outside the clone, keyed by a hash of requirements.lock and
# requirements-nodeps.txt, so CI and repeated runs
# reuse it; it is built from nothing when absent. Override the location with BIOKG_VENV.
# `scripts/venv.sh kgx`: the kgx tool's test-only environment instead (tests/kgx/requirements.lock;
# kgx cannot be installed beside the project's pins), without the project.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cache="${XDG_CACHE_HOME:-$HOME/.cache}/biokg"
if [ "${1:-}" = "kgx" ]; then
  key="$(sha256sum < "$root/tests/kgx/requirements.lock" | cut -c1-16)"
  venv="$cache/kgx-$key"
else
  key="$(cat "$root/requirements.lock" "$root/requirements-nodeps.txt" | sha256sum | cut -c1-16)"
  venv="${BIOKG_VENV:-$cache/venv-$key}"
fi
mkdir -p "$(dirname "$venv")"
# A machine's pip configuration may list local mirror folders (extra-index-url file:///...) that
# lack some packages' folders: pip then says "Location ... is ignored: it is neither a file nor a
# directory" once per package and folder (130 lines on this machine's first screen) and fetches the
# package from the index as usual. Only that notice is dropped; anything else pip says still shows.
pip() { "$venv/bin/pip" "$@" 2> >(grep -v "is ignored: it is neither a file nor a directory" >&2); }
# One build at a time per venv: a second caller waits for the first and then reuses its venv.
exec 9>"$venv.lock"
flock 9
if [ ! -x "$venv/bin/python" ] || [ ! -f "$venv/.complete" ]; then
  echo "creating virtualenv $venv (first run: a few minutes)" >&2
  rm -rf "$venv"
  python3 -m venv "$venv"
  if [ "${1:-}" = "kgx" ]; then
    pip install --quiet --upgrade pip >&2
    pip install --quiet -r "$root/tests/kgx/requirements.lock" >&2
    touch "$venv/.complete"
  fi
fi
if [ "${1:-}" = "kgx" ]; then
  flock -u 9
  echo "$venv"
  exit 0
fi
if [ ! -f "$venv/.complete" ]; then
  # requirements.lock pins every distribution the project needs (pip freeze, plus setuptools,
  # which freeze leaves out), so nothing is resolved: --no-deps installs exactly the lock and
  # requirements-nodeps.txt, and the lock's +cpu torch never pulls the CUDA variant (several GB).
  # One pip fetches serially, and the index serves each connection at ~2 MB/s here (54 MB in
  # 29 s; three wheels at once in 22 s): four `pip download`s fetch a quarter of the pins each,
  # at once, into a folder of wheels (they touch no site-packages: pips installing into one at
  # once read each other's half-written metadata). One pip installs them from there, without
  # bytecode; the bytecode, three fifths of pip's CPU (torch alone: 21 s with it, 8.5 s
  # without), is then compiled on every core at once. Files that do not compile are left as pip
  # leaves them (compileall's status says some did: torch ships a few).
  wheels="$(mktemp -d)"
  grep -hv '^[[:space:]]*#' "$root/requirements.lock" "$root/requirements-nodeps.txt" \
    | grep . | awk -v dir="$wheels" '{ print > (dir "/part" NR % 4 ".txt") }'
  pids=()
  for part in "$wheels"/part*.txt; do
    pip download --quiet --no-deps --only-binary :all: -d "$wheels" -r "$part" >&2 &
    pids+=("$!")
  done
  for pid in "${pids[@]}"; do wait "$pid"; done
  pip install --quiet --no-deps --no-compile --no-index --find-links "$wheels" \
    -r "$root/requirements.lock" -r "$root/requirements-nodeps.txt" >&2
  rm -rf "$wheels"
  site="$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_path("purelib"))')"
  "$venv/bin/python" -m compileall -q -j 0 "$site" >/dev/null || true
  touch "$venv/.complete"
fi
# The project itself is installed editable, so the venv follows the checkout; again only when
# the checkout or its pyproject.toml changed (entry points, packages), and under the lock: two
# callers installing at once remove each other's scripts. Built with the lock's setuptools
# (--no-build-isolation: no second download of it). pyproject.toml maps top-level folders
# (ingest/, graph_agent/, ...) into the biokg package, which setuptools serves through a meta
# path finder, and that strategy always emits an informational "Editable installation" notice
# (setuptools.warnings.InformationOnly, a UserWarning) about folders named like the package
# shadowing it: here the only such folder is the checkout's biokg/, which is the installed
# source itself. That one notice is filtered by its text, as setuptools' warning classes are
# meant to be; any other warning of the build still shows.
editable="$venv/.editable-$( (echo "$root"; cat "$root/pyproject.toml") | sha256sum | cut -c1-16)"
if [ ! -f "$editable" ]; then
  PYTHONWARNINGS="ignore:Editable installation.:UserWarning" \
    pip install --quiet --no-deps --no-build-isolation -e "$root" >&2
  rm -f "$venv"/.editable-*
  touch "$editable"
fi
flock -u 9
echo "$venv"
