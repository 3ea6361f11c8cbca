#!/usr/bin/env bash
# Detection against a bare interpreter start (issue 17 item 3): `python -c pass` vs
# `gpu-setup-wizard doctor --json`, same interpreter, one hyperfine invocation, and the nvidia-smi
# call itself where there is one (the target is 2x `python -c pass` plus that call).
# Writes artifacts/bench/detect.json (hyperfine's export, plus a "summary" object) and prints the ratio.
# The interpreter-facts cache is warm after the warm-up runs; COLD=1 clears it before every run.
# Needs hyperfine (Debian: apt-get install hyperfine). benchmarks/run calls this.
#   benchmarks/detect.sh            # RUNS=15 by default
#   RUNS=30 COLD=1 benchmarks/detect.sh
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PY:-.venv/bin/python}
WIZARD=${WIZARD:-$(dirname "$PY")/gpu-setup-wizard}
[ -x "$WIZARD" ] || WIZARD="$PY -m wizard"
out=${OUT:-artifacts/bench}
mkdir -p "$out"
cache_dir=$("$PY" -c 'import platformdirs; print(platformdirs.user_cache_dir("gpu-setup-wizard", appauthor=False))')
prepare=()
if [ "${COLD:-0}" = 1 ]; then
  prepare=(--prepare "rm -f '$cache_dir/pythons.json'")
fi
# The floor any Python program doing doctor's job pays: the standard-library modules it imports
# (measured beside it, so the note can say how much of the ratio is the interpreter's own).
# Since doctor stopped loading concurrent.futures, subprocess and platform on a warm run, these
# are the standard-library modules it imports that `python -c pass` does not.
STDLIB="import argparse, dataclasses, json, locale, shlex, shutil, signal, threading, typing"
commands=(-n python-baseline "$PY -c pass" -n stdlib-floor "$PY -c '$STDLIB'" -n doctor-json "$WIZARD doctor --json")
if smi=$(command -v nvidia-smi); then
  commands+=(-n nvidia-smi "$smi --query-gpu=index,name,memory.total --format=csv")
fi
hyperfine --warmup 2 --runs "${RUNS:-15}" -N "${prepare[@]}" --export-json "$out/detect.json" "${commands[@]}" >&2
"$PY" - "$out/detect.json" "$STDLIB" <<'PY'
import json, subprocess, sys, pathlib
path = pathlib.Path(sys.argv[1])
doc = json.loads(path.read_text())
res = {r["command"]: r for r in doc["results"]}
base, doctor = res["python-baseline"]["median"], res["doctor-json"]["median"]
floor = res["stdlib-floor"]["median"]
smi = res["nvidia-smi"]["median"] if "nvidia-smi" in res else 0.0
target = 2 * base + smi
doc["summary"] = {"python_ms": round(base * 1000, 1), "doctor_ms": round(doctor * 1000, 1),
                  "nvidia_smi_ms": round(smi * 1000, 1), "ratio_to_python": round(doctor / base, 2),
                  "stdlib_floor_ms": round(floor * 1000, 1), "stdlib_floor_ratio": round(floor / base, 2),
                  "stdlib_floor_imports": sys.argv[2],
                  "ratio_to_target": round(doctor / target, 2), "target": "2x python -c pass + nvidia-smi"}
path.write_text(json.dumps(doc, indent=2))
s = doc["summary"]
print(f"detect: doctor --json {s['doctor_ms']:.0f} ms vs python -c pass {s['python_ms']:.0f} ms"
      + (f" + nvidia-smi {s['nvidia_smi_ms']:.0f} ms" if smi else "")
      + f" -> {s['ratio_to_python']:.2f}x python; {s['ratio_to_target']:.2f}x the target (<= 1.00 meets it)")
PY
