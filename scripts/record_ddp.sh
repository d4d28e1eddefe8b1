#!/usr/bin/env bash
# Record the multi-GPU lesson's pack on a machine with 2 or 4 GPUs (seed 002, DistributedDataParallel).
#
#   scripts/record_ddp.sh OUT_DIR [NAME]
#
# Needs only python3 with torch 2.11 (no streamlit, no altair). For the MLP and the CNN, and for
# 1, 2 and 4 GPUs (up to what the machine has), sweeps the per-GPU batch size through
# `python3 -m lib sweep ddp` (one torchrun launch per model and GPU count), then merges the runs
# with `python3 -m lib merge` into OUT_DIR/NAME_ddp.json with scaling efficiency (NAME defaults to
# e.g. h200x4, from the first GPU's name and the GPU count). The single runs stay in OUT_DIR/ddp_runs/.
# About 3 minutes on 4 H200s; each sweep is capped at $SWEEP_BUDGET_S seconds (default 55).
# Copy the merged pack into lib/recorded/ to ship it with the app.
#
# A dry run of this script on a machine without GPUs (small models, one or two CPU processes):
#   DEVICE=cpu BATCHES=8,32 MLP="--set model=mlp --set hidden_width=64 --set depth=2 --set input_features=32" \
#     CNN="--set model=cnn --set width=4" PYTHON=.venv/bin/python scripts/record_ddp.sh /tmp/ddp
set -euo pipefail

# NVLink multicast (NVLS) can break GPUs shared with other jobs: always off.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1

OUT_DIR=${1:?usage: scripts/record_ddp.sh OUT_DIR [NAME]}
PY=${PYTHON:-python3}
BATCHES=${BATCHES:-16,32,64,128,256,512,1024,2048,4096}
BUDGET=${BUDGET:-0.5}              # seconds of timed steps per point
SWEEP_BUDGET_S=${SWEEP_BUDGET_S:-55}
DEVICE=${DEVICE:-cuda}
MLP=${MLP:---set model=mlp --set hidden_width=2048 --set depth=8 --set input_features=1024 --set steps=200}
CNN=${CNN:---set model=cnn --set width=64 --set steps=200}

cd "$(dirname "$0")/.."
mkdir -p "$OUT_DIR/ddp_runs"
OUT_DIR=$(cd "$OUT_DIR" && pwd)

read -r N GPU_NAME < <("$PY" -c "
import os, re, torch
if '$DEVICE' == 'cpu':
    print(min(2, os.cpu_count() or 1), 'cpu')
else:
    n = torch.cuda.device_count() if torch.cuda.is_available() else 0
    name = torch.cuda.get_device_name(0) if n else 'none'
    print(n, re.sub(r'[^a-z0-9]', '', name.lower().replace('nvidia', '').split()[0]) or 'gpu')")
if [ "$N" -lt 1 ]; then
  echo "error: no CUDA GPU found; this script records the GPU pack (try: python3 -m lib sweep ddp --devices cpu ...)" >&2
  exit 2
fi
if [ "$N" -lt 2 ]; then
  echo "warning: only $N GPU: the pack will hold gpus=1 only (nothing to scale against)" >&2
fi
NAME=${2:-${GPU_NAME}x${N}}
COUNTS=""
for n in 1 2 4; do [ "$n" -le "$N" ] && COUNTS="$COUNTS $n"; done

declare -A SETTINGS=([mlp]="$MLP" [cnn]="$CNN")

echo "recording ddp on $N GPU(s) ($GPU_NAME): models mlp cnn, gpus$COUNTS, per-GPU batch $BATCHES"
start=$(date +%s)
runs=()
for model in mlp cnn; do
  for n in $COUNTS; do
    out="$OUT_DIR/ddp_runs/${NAME}_${model}_g${n}.json"
    # the last sweep's torchrun workers may still be exiting: their CPU would count against this sweep's load
    [ "${#runs[@]}" -gt 0 ] && sleep "${SETTLE_S:-10}"
    echo "== $model, $n GPU(s) -> $out  ($(( $(date +%s) - start )) s so far)"
    # shellcheck disable=SC2086
    if "$PY" -m lib sweep ddp --over "batch_size=$BATCHES" ${SETTINGS[$model]} --set "gpus=$n" \
        --devices "$DEVICE" --budget "$BUDGET" --total-budget "$SWEEP_BUDGET_S" --memory-cap-gb 1000 --quiet --out "$out"; then
      runs+=("$out")
    else
      echo "warning: the $model sweep on $n GPU(s) failed; going on" >&2
    fi
  done
done

if [ "${#runs[@]}" -eq 0 ]; then
  echo "error: no sweep produced a pack" >&2
  exit 1
fi
"$PY" -m lib merge "$OUT_DIR/${NAME}_ddp.json" "${runs[@]}"
echo "done in $(( $(date +%s) - start )) s: $OUT_DIR/${NAME}_ddp.json"
