#!/usr/bin/env bash
# Start-up to first painted page: the wizard vs a bare one-page QWizard, same interpreter,
# same platform plugin, same run. Also one full detection (doctor --json) without a GPU.
# Needs hyperfine (Debian: apt-get install hyperfine). Usage: benchmarks/startup.sh [platform]
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PY:-.venv/bin/python}
export QT_QPA_PLATFORM=${1:-offscreen}
out=${OUT:-artifacts/bench}
mkdir -p "$out"
"$PY" -m compileall -q wizard benchmarks >/dev/null  # an installed wizard has its .pyc; so does this checkout
hyperfine --warmup 3 --runs ${RUNS:-20} --export-json "$out/startup.json" \
  -N -n bare-qwizard "$PY benchmarks/bare_qwizard.py" \
  -n wizard-smoke-test "$PY -m wizard --smoke-test"
hyperfine --warmup 2 --runs ${RUNS:-20} --export-json "$out/detect.json" \
  -n python-baseline "$PY -c pass" \
  -n doctor-json "$PY -m wizard doctor --json"
"$PY" - "$out" <<'PY'
import json, sys, pathlib
out = pathlib.Path(sys.argv[1])
for name, (base, other) in {"startup": ("bare-qwizard", "wizard-smoke-test"),
                            "detect": ("python-baseline", "doctor-json")}.items():
    res = {r["command"]: r for r in json.loads((out / f"{name}.json").read_text())["results"]}
    b, o = res[base]["median"], res[other]["median"]
    print(f"{name}: {other} {o*1000:.0f} ms vs {base} {b*1000:.0f} ms -> ratio {o/b:.2f}x")
PY
