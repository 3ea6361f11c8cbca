#!/usr/bin/env bash
# Start-up to first painted page: the wizard vs a bare one-page QWizard, same interpreter, same
# platform plugin, one hyperfine invocation in alternating blocks, plus the instructions to the
# first paint (callgrind). The same rows benchmarks/run prints; this is its start-up part alone.
# Needs hyperfine (Debian: apt-get install hyperfine). Usage: benchmarks/startup.sh [platform]
set -euo pipefail
cd "$(dirname "$0")/.."
exec "${PY:-.venv/bin/python}" benchmarks/run.py --only startup --platform "${1:-offscreen}" ${OUT:+--out "$OUT"}
