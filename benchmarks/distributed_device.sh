#!/usr/bin/env bash
# The distributed BFS on a lent multi-GPU machine (one rank per GPU): the GPU
# tests of the distributed module, then Graph500 runs side by side, every
# search validated:
#   single  the single-GPU driver (python -m wavefront graph500 --backend cuda)
#   d1      the distributed path on one rank (mpirun -n 1), the same SCALE
#   d2      mpirun -n 2 at SCALE + 1 (weak scaling: twice the edges on twice the GPUs)
# Each run writes its JSON report (per-search times, per-rank level trace).
#
#   run: SCALES="22 24" ROOTS=16 bash benchmarks/distributed_device.sh
#        TESTS=0 to skip the tests; TRANSPORTS="nccl mpi" to time both transports for d2.
#
# Host memory bounds the SCALE: the distributed construction holds its tuples
# on the host (wavefront/graph500/memory.py gives the model and refuses, exit 2,
# what will not fit). The logs come back packed in $OUT/logs.tgz.
set -uo pipefail
source "$(dirname "$0")/_device_common.sh"
SCALES=${SCALES:-22 24}
ROOTS=${ROOTS:-16}
TESTS=${TESTS:-1}
TRANSPORTS=${TRANSPORTS:-nccl}
LIMIT=${LIMIT:-300}

# Open MPI as root, on a machine without ssh (its launcher asks for an agent
# it never uses for local ranks).
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mpirun --version 2>/dev/null | head -1 | grep -q " 4\." && ! command -v ssh >/dev/null \
    && export OMPI_MCA_plm_rsh_agent=false
MPIRUN=(mpirun --oversubscribe --bind-to none -x PYTHONPATH -x PYTHONUNBUFFERED)

step "machine"
{
    nvidia-smi --query-gpu=index,name,memory.total --format=csv,noheader
    nvidia-smi topo -m
    lscpu | grep -E "Model name|^CPU\(s\)"
    free -g | head -2
    git log -1 --format='commit %h %s' 2>/dev/null
} 2>&1 | tee "$OUT/machine.txt"

if [ "$TESTS" = 1 ]; then
    step "GPU tests of the distributed module"
    timeout 500 python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_distributed.py \
        > "$OUT/pytest_distributed.log" 2>&1
    echo "exit $?"; tail -5 "$OUT/pytest_distributed.log"
fi

summary() {  # the report lines that matter, from a Graph500 run's stdout
    grep -E "^(SCALE|num_mpi_processes|construction_time|bfs  (mean|harmonic_mean)_TEPS|bfs  median_time|process_grid)" "$1" \
        | tr -s ' ' | paste -sd ' '
}

for scale in $SCALES; do
    next=$((scale + 1))
    common=(graph500 --backend cuda --kernels bfs --roots "$ROOTS" --no-progress)
    step "SCALE $scale single GPU"
    timeout "$LIMIT" python3 -m wavefront "${common[@]}" --scale "$scale" --json "$OUT/single_$scale.json" \
        > "$OUT/single_$scale.txt" 2> "$OUT/single_$scale.err"
    echo "exit $?"; summary "$OUT/single_$scale.txt"; tail -2 "$OUT/single_$scale.err"
    step "SCALE $scale distributed, 1 rank"
    timeout "$LIMIT" "${MPIRUN[@]}" -n 1 python3 -m wavefront "${common[@]}" --scale "$scale" --distributed \
        --json "$OUT/d1_$scale.json" > "$OUT/d1_$scale.txt" 2> "$OUT/d1_$scale.err"
    echo "exit $?"; summary "$OUT/d1_$scale.txt"; tail -2 "$OUT/d1_$scale.err"
    for transport in $TRANSPORTS; do
        step "SCALE $next distributed, 2 ranks, $transport"
        timeout "$LIMIT" "${MPIRUN[@]}" -n 2 python3 -m wavefront "${common[@]}" --scale "$next" \
            --transport "$transport" --json "$OUT/d2_${next}_$transport.json" \
            > "$OUT/d2_${next}_$transport.txt" 2> "$OUT/d2_${next}_$transport.err"
        echo "exit $?"; summary "$OUT/d2_${next}_$transport.txt"; tail -2 "$OUT/d2_${next}_$transport.err"
    done
done
pack_logs
