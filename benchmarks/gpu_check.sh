#!/usr/bin/env bash
# A prepared GPU check: run it on the first NVIDIA machine at hand, keep the folder it writes.
#
#   benchmarks/gpu_check.sh --python /path/to/cuda-torch/bin/python [--out DIR] [--budget SECONDS]
#
# Needs: an NVIDIA driver (nvidia-smi) and a Python with a CUDA build of torch already installed
# (no network needed). Runs, each step with its own timeout and all of it within --budget seconds
# (default 450, so under 8 minutes with the start-up):
#   1. nvidia-smi in the four formats the wizard reads (table, -q, -q -x, --query-gpu CSV);
#   2. gpu-setup-wizard doctor --json;
#   3. gpu-setup-wizard verify --python TORCH --json, and bench --full --json;
#   4. real peak GPU memory (torch.cuda.max_memory_allocated) of the VRAM catalogue's small models,
#      inference and one AdamW training step, next to the wizard's estimate
#      (benchmarks/gpu_check_memory.py); and for models outside the catalogue (two CNNs, an LSTM,
#      an encoder-decoder), the meta measurement against the GPU's own kernels and the real step's
#      peak (benchmarks/vram_measure_agreement.py --cuda).
# Everything goes into one folder laid out so its files can become test fixtures; its README.md
# says which file is what. A step that fails or runs out of time is recorded in steps.tsv and the
# rest still run; the exit status is 0 only when every step passed (1 otherwise, 2 for bad usage).
set -u

usage() {
    sed -n '2,/^$/p' "$0" | sed 's/^# \{0,1\}//'
}

REPO="$(cd "$(dirname "$0")/.." && pwd)"
TORCH_PY=""
OUT=""
BUDGET=450
while [ $# -gt 0 ]; do
    case "$1" in
        --python) [ $# -ge 2 ] || { echo "gpu_check.sh: --python needs a path" >&2; exit 2; }; TORCH_PY="$2"; shift 2 ;;
        --out) [ $# -ge 2 ] || { echo "gpu_check.sh: --out needs a folder" >&2; exit 2; }; OUT="$2"; shift 2 ;;
        --budget) [ $# -ge 2 ] || { echo "gpu_check.sh: --budget needs seconds" >&2; exit 2; }; BUDGET="$2"; shift 2 ;;
        -h|--help) usage; exit 0 ;;
        *) echo "gpu_check.sh: unknown argument: $1 (see --help)" >&2; exit 2 ;;
    esac
done
case "$BUDGET" in ''|*[!0-9]*) echo "gpu_check.sh: --budget must be whole seconds" >&2; exit 2 ;; esac

WIZ_PY="$REPO/.venv/bin/python"
[ -x "$WIZ_PY" ] || WIZ_PY="$(command -v python3)"
if [ -z "$TORCH_PY" ]; then
    TORCH_PY="$(command -v python3 || true)"
fi
[ -n "$OUT" ] || OUT="gpu-check-$(hostname -s 2>/dev/null || echo host)-$(date -u +%Y%m%dT%H%M%SZ)"
mkdir -p "$OUT/nvidia-smi" "$OUT/wizard" "$OUT/vram" "$OUT/logs" || { echo "gpu_check.sh: cannot create $OUT" >&2; exit 2; }
OUT="$(cd "$OUT" && pwd)"
START=$(date +%s)
FAILED=0
printf 'step\tstatus\tseconds\tnote\n' > "$OUT/steps.tsv"

left() {  # seconds left in the budget, at least 1
    local n=$(( BUDGET - ($(date +%s) - START) ))
    [ "$n" -lt 1 ] && n=1
    echo "$n"
}

# step NAME LIMIT OUTFILE -- argv...   (stdout to OUTFILE, stderr to logs/NAME.err)
step() {
    local name="$1" limit="$2" outfile="$3"; shift 4
    local t0 budget rc note=""
    budget=$(left)
    [ "$limit" -gt "$budget" ] && limit="$budget"
    t0=$(date +%s)
    timeout --kill-after=5 "$limit" "$@" > "$outfile" 2> "$OUT/logs/$name.err"
    rc=$?
    if [ "$rc" -eq 0 ]; then status=ok
    elif [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then status=timeout; note="after ${limit}s"; FAILED=1
    else status="exit-$rc"; FAILED=1
    fi
    printf '%s\t%s\t%s\t%s\n' "$name" "$status" "$(( $(date +%s) - t0 ))" "$note" >> "$OUT/steps.tsv"
    echo "[$(( $(date +%s) - START ))s] $name: $status"
}

skip() {  # skip NAME REASON
    printf '%s\tskipped\t0\t%s\n' "$1" "$2" >> "$OUT/steps.tsv"
    echo "$1: skipped ($2)"
}

# ---- 1. nvidia-smi, four formats -----------------------------------------------------------
if command -v nvidia-smi > /dev/null 2>&1; then
    FIELDS="$("$WIZ_PY" -c 'import sys; sys.path.insert(0, sys.argv[1]); from wizard.core.machine.nvidia_smi import QUERY_FIELDS; print(",".join(QUERY_FIELDS))' "$REPO" 2>/dev/null)"
    [ -n "$FIELDS" ] || FIELDS="index,name,uuid,driver_version,compute_cap,memory.total,memory.used,memory.free"
    step nvidia-smi-table 30 "$OUT/nvidia-smi/table.txt" -- nvidia-smi
    step nvidia-smi-q 30 "$OUT/nvidia-smi/q.txt" -- nvidia-smi -q
    step nvidia-smi-q-x 30 "$OUT/nvidia-smi/q.xml" -- nvidia-smi -q -x
    step nvidia-smi-query 30 "$OUT/nvidia-smi/query.csv" -- nvidia-smi "--query-gpu=$FIELDS" --format=csv,noheader,nounits
    step nvidia-smi-query-header 30 "$OUT/nvidia-smi/query-header.csv" -- nvidia-smi "--query-gpu=$FIELDS" --format=csv
    echo "$FIELDS" > "$OUT/nvidia-smi/query-fields.txt"
else
    skip nvidia-smi "nvidia-smi not on PATH"
    FAILED=1
fi

# ---- 2. doctor --------------------------------------------------------------------------------
step doctor 90 "$OUT/wizard/doctor.json" -- env PYTHONPATH="$REPO" "$WIZ_PY" -m wizard doctor --json --lang en

# ---- 3. verify and the full bench against the CUDA torch -------------------------------------
CUDA_TORCH=no
if [ -n "$TORCH_PY" ] && timeout 60 "$TORCH_PY" -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 3)' \
        > "$OUT/logs/torch-probe.out" 2> "$OUT/logs/torch-probe.err"; then
    CUDA_TORCH=yes
fi
{
    echo "date_utc=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "uname=$(uname -srm)"
    echo "torch_python=$TORCH_PY"
    echo "cuda_torch=$CUDA_TORCH"
    [ -n "$TORCH_PY" ] && timeout 60 "$TORCH_PY" -c 'import torch; print("torch=" + torch.__version__); print("torch_cuda=" + str(torch.version.cuda)); print("device=" + (torch.cuda.get_device_name(0) if torch.cuda.is_available() else "-"))' 2>/dev/null
} > "$OUT/env.txt"

if [ "$CUDA_TORCH" = yes ]; then
    step verify 150 "$OUT/wizard/verify.json" -- env PYTHONPATH="$REPO" "$WIZ_PY" -m wizard verify --python "$TORCH_PY" --json --lang en
    step bench-full 240 "$OUT/wizard/bench-full.json" -- env PYTHONPATH="$REPO" "$WIZ_PY" -m wizard bench --python "$TORCH_PY" --full --json --lang en
    # ---- 4. real peak memory next to the estimate ---------------------------------------------
    step vram-specs 30 "$OUT/logs/vram-specs.out" -- env PYTHONPATH="$REPO" "$WIZ_PY" "$REPO/benchmarks/gpu_check_memory.py" specs "$OUT/vram/specs.json"
    step vram-measure 180 "$OUT/logs/vram-measure.out" -- env PYTHONPATH="$REPO" HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 "$TORCH_PY" "$REPO/benchmarks/gpu_check_memory.py" measure "$OUT/vram/specs.json" "$OUT/vram/measured.json" --device cuda
    step vram-compare 30 "$OUT/logs/vram-compare.out" -- env PYTHONPATH="$REPO" "$WIZ_PY" "$REPO/benchmarks/gpu_check_memory.py" compare "$OUT/vram/measured.json" "$OUT/vram/table.md" "$OUT/vram/table.json"
    # models outside the catalogue: measured on meta against the GPU's own kernels (cuDNN's LSTM)
    # and the real step's torch.cuda.max_memory_allocated
    step vram-meta-agreement 150 "$OUT/vram/meta-agreement.txt" -- "$WIZ_PY" "$REPO/benchmarks/vram_measure_agreement.py" --python "$TORCH_PY" --cuda --batches 1,8 --json "$OUT/vram/meta-agreement.json"
else
    reason="no CUDA torch at --python ${TORCH_PY:-(none)}"
    for s in verify bench-full vram-measure vram-meta-agreement; do skip "$s" "$reason"; done
    FAILED=1
fi

# ---- README for the folder ----------------------------------------------------------------------
cat > "$OUT/README.md" <<EOF
# GPU check output ($(date -u +%Y-%m-%d), $(sed -n 's/^device=//p' "$OUT/env.txt" 2>/dev/null | head -1))

Written by benchmarks/gpu_check.sh. steps.tsv says what ran, how long, and what failed or
was skipped; logs/ holds each step's stderr. env.txt: the torch and device measured.

| file | what | as a test fixture |
|---|---|---|
| nvidia-smi/table.txt | \`nvidia-smi\` (the default table) | tests/data/recorded/linux/ (nvidia_smi table parser) |
| nvidia-smi/q.txt | \`nvidia-smi -q\` | q-text parser |
| nvidia-smi/q.xml | \`nvidia-smi -q -x\` | XML parser |
| nvidia-smi/query.csv | \`--query-gpu=<query-fields.txt> --format=csv,noheader,nounits\`: exactly what the wizard runs | CSV parser, doctor import |
| nvidia-smi/query-header.csv | the same fields with header and units, for people | - |
| wizard/doctor.json | \`gpu-setup-wizard doctor --json\` | recommend --from-doctor, report, class view |
| wizard/verify.json | \`verify --python TORCH --json\` | a real GPU's verify result |
| wizard/bench-full.json | \`bench --full --json\` | a real GPU's bench result (plots, peak comparison) |
| vram/measured.json | peak bytes per model and batch (inference; one AdamW step) and autograd-saved bytes | VRAM calibration |
| vram/table.md, table.json | measured next to the wizard's estimate, with ratios | the closing note's table |
| vram/meta-agreement.txt, .json | models outside the catalogue: meta-measured activations vs the GPU's saved bytes, meta total vs the real step's peak | issue 26's GPU comparison |

Nothing here is edited by hand. Before committing files as fixtures, look for serial numbers and
UUIDs in q.txt / q.xml / query.csv and replace them if they must not be published.
EOF

echo "gpu_check.sh: done in $(( $(date +%s) - START ))s, output in $OUT"
exit "$FAILED"
