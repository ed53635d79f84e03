#!/usr/bin/env bash
# The weak-scaling series SCALE 26 + log2 P on one lent machine of G GPUs (one
# rank per GPU, one column), with what docs/scaling.md "Fifth round" reports:
#   P = 1: the distributed search against the single-GPU search on the same roots (--single)
#   P = 2, 4, ... G: the searches in PASSES back-to-back passes, one synchronized
#     search traced on every rank into $OUT/series_P.json (scaling_model.py reads it)
#   the one-column collectives alone at P = G (benchmarks/collectives.py)
#   STRONG=1: also P = 1 at each P's SCALE (where one GPU holds it), the same 8 roots: the weak-scaling ratio is
#     then (the single GPU's TEPS at SCALE + log2 P over its TEPS at SCALE) x (P GPUs over one on that graph)
# Each rank is bound to (cores / P) cores (BIND=0: --bind-to none). Then, here:
#   PYTHONPATH=. python benchmarks/scaling_model.py --markdown series_*.json
#
#   run: bash benchmarks/distributed_series.sh      (about 90 s a SCALE 28 build on 4 x H200)
#        PASSES=4 BASE=26 BIND=1 VALIDATE=0 STRONG=0 LIMIT=200
set -uo pipefail
source "$(dirname "$0")/_device_common.sh"
PASSES=${PASSES:-4}
BASE=${BASE:-26}
BIND=${BIND:-1}
VALIDATE=${VALIDATE:-0}
STRONG=${STRONG:-0}
LIMIT=${LIMIT:-200}

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export NCCL_NVLS_ENABLE=${NCCL_NVLS_ENABLE:-0}  # NVLink multicast stays off on shared machines
mpirun --version 2>/dev/null | head -1 | grep -q " 4\." && ! command -v ssh >/dev/null \
    && export OMPI_MCA_plm_rsh_agent=false
GPUS=$(nvidia-smi --query-gpu=index --format=csv,noheader | wc -l)
CORES=$(nproc)
launch() {  # launch P: mpirun for P ranks, bound or not
    local binding=(--bind-to none)
    [ "$BIND" = 1 ] && binding=(--map-by "slot:PE=$((CORES / $1))" --bind-to core)
    echo mpirun --oversubscribe "${binding[@]}" -x PYTHONPATH -x PYTHONUNBUFFERED -x NCCL_NVLS_ENABLE -n "$1"
}

step "machine"
{ nvidia-smi --query-gpu=index,name,memory.total --format=csv,noheader; nvidia-smi topo -m
  lscpu | grep -E "Model name|^CPU\(s\)"; git log -1 --format='commit %h %s' 2>/dev/null; } | tee "$OUT/machine.txt"

extra=()
[ "$VALIDATE" = 1 ] && extra=(--validate)
P=1
while [ "$P" -le "$GPUS" ]; do
    scale=$((BASE + $(python3 -c "import math; print(int(math.log2($P)))")))
    step "P = $P, SCALE $scale"
    if [ "$P" = 1 ]; then
        args=(--single)
    else
        args=(--trace --json "$OUT/series_$P.json" "${extra[@]}")
    fi
    # shellcheck disable=SC2046
    timeout "$LIMIT" $(launch "$P") python3 benchmarks/distributed_gpu.py --scale "$scale" --roots 8 \
        --passes "$PASSES" "${args[@]}" > "$OUT/series_$P.txt" 2>&1
    echo "exit $?"; grep -E "^SCALE|^P = 1" "$OUT/series_$P.txt"
    if [ "$STRONG" = 1 ] && [ "$P" -gt 1 ]; then
        step "P = 1, SCALE $scale (the same graph on one GPU)"
        # shellcheck disable=SC2046
        timeout "$LIMIT" $(launch 1) python3 benchmarks/distributed_gpu.py --scale "$scale" --roots 8 \
            --passes "$PASSES" > "$OUT/series_1_scale_$scale.txt" 2>&1
        echo "exit $?"; grep -E "^SCALE|GPUMemoryError" "$OUT/series_1_scale_$scale.txt"
    fi
    P=$((P * 2))
done

step "the one-column collectives alone, P = $GPUS"
# shellcheck disable=SC2046
timeout 120 $(launch "$GPUS") python3 benchmarks/collectives.py > "$OUT/collectives.txt" 2>&1
echo "exit $?"; cat "$OUT/collectives.txt"
