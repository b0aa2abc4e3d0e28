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
# One build at a time per venv: a second caller waits for the first and then reuses its venv.
exec 9>"$venv.lock"
flock 9
if [ ! -x "$venv/bin/python" ] || [ ! -f "$venv/.complete" ]; then
  echo "creating virtualenv $venv (first run: a few minutes)" >&2
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --upgrade pip >&2
  if [ "${1:-}" = "kgx" ]; then
    "$venv/bin/pip" install --quiet -r "$root/tests/kgx/requirements.lock" >&2
    touch "$venv/.complete"
  fi
fi
if [ "${1:-}" = "kgx" ]; then
  flock -u 9
  echo "$venv"
  exit 0
fi
if [ ! -f "$venv/.complete" ]; then
  # CPU torch first: the lock pins the +cpu build, and installing it alone keeps pip from ever
  # resolving the CUDA variant (several GB) for sentence-transformers.
  "$venv/bin/pip" install --quiet "$(grep -i '^torch==' "$root/requirements.lock")" >&2
  "$venv/bin/pip" install --quiet -r "$root/requirements.lock" >&2
  "$venv/bin/pip" install --quiet --no-deps -r "$root/requirements-nodeps.txt" >&2
  touch "$venv/.complete"
fi
# The project itself is installed editable, so the venv follows the checkout; again only when
# the checkout or its pyproject.toml changed (entry points, packages), and under the lock: two
# callers installing at once remove each other's scripts.
editable="$venv/.editable-$( (echo "$root"; cat "$root/pyproject.toml") | sha256sum | cut -c1-16)"
if [ ! -f "$editable" ]; then
  "$venv/bin/pip" install --quiet --no-deps -e "$root" >&2
  rm -f "$venv"/.editable-*
  touch "$editable"
fi
flock -u 9
echo "$venv"
