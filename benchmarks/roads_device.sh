#!/usr/bin/env bash
# Road networks side by side on a lent GPU machine: wavefront CUDA and CPU
# (all host cores) against GAP on the same cores and SciPy on one, every
# result checked against SciPy (benchmarks/roads.py). Logs go under $OUT.
#
#   run: bash benchmarks/roads_device.sh                (carry .data and .scratch/gapbs)
#        PARTS=roads bash benchmarks/roads_device.sh    (DIMACS roads, road-like 1.4 M / 4 M, grid)
#        PARTS=kron  bash benchmarks/roads_device.sh    (Kronecker SCALE 22, CPU rows and CUDA)
#        PARTS=hierarchy        (the DIMACS roads with method="hierarchy" on both backends beside GAP)
#        PARTS=hierarchy-large  (benchmarks/sssp_hierarchy.py on road-like 1.4 M and 4 M and the grid:
#                                each build timed, then every method, checked against SciPy)
#        PARTS=issue            (issue 18's table: the DIMACS roads, road-like 1.4 M and the grid, each
#                                contracted first so that SSSP's auto searches the hierarchy, the
#                                searches without it in the log; PARTS=issue-road4m: road-like 4 M alone)
#        CPUTESTS=0 bash benchmarks/roads_device.sh     (skip the CPU backend tests on all host cores)
#        NEED=H200 bash benchmarks/roads_device.sh      (stop at once, exit 3, unless the GPU's name says H200:
#                                                        the tool may lend an H100 for a call that names an H200)
#
# GAP is built from .scratch/gapbs with its own Makefile (-O3 -fopenmp) if
# its binaries are missing. Each part stays under a lent command's
# 10 minutes on 16 cores (timeouts below); run the parts in two calls if
# one call would not fit both. The logs come back packed in $OUT/logs.tgz.
set -uo pipefail
source "$(dirname "$0")/_device_common.sh"
PARTS=${PARTS:-roads kron}
GAP=${GAP:-.scratch/gapbs}
CORES=${CORES:-$(nproc)}

step "machine"
{
    nvidia-smi --query-gpu=name,memory.total,clocks.sm,clocks.mem --format=csv,noheader 2>/dev/null
    lscpu | grep -E "Model name|^CPU\(s\)|Thread|L2|L3"
    git log -1 --format='commit %h %s' 2>/dev/null
    echo "cores for wavefront CPU and GAP: $CORES"
} | tee "$OUT/machine.txt"
if [ -n "${NEED:-}" ] && ! nvidia-smi --query-gpu=name --format=csv,noheader | grep -q "$NEED"; then
    echo "the lent GPU is not an $NEED: stopping before any work (NEED=$NEED)"
    exit 3
fi

if [ "${CPUTESTS:-1}" = 1 ]; then
    step "CPU backend tests on $CORES threads (fused kernels' teams and barriers)"
    NUMBA_NUM_THREADS=$CORES timeout 300 python3 -m pytest -q -p no:cacheprovider \
        tests/test_cpu_bfs.py tests/test_cpu_sssp.py > "$OUT/pytest_cpu.log" 2>&1
    echo "exit $?"; tail -3 "$OUT/pytest_cpu.log"
fi

for part in $PARTS; do
    case $part in
        roads) graphs=roads,road1.4m,road4m,grid
               extra=(--roots 4 --repeat 3 --cpu-methods sssp:dijkstra --cuda-methods sssp:regions); limit=540 ;;
        kron)  graphs=kron22; extra=(--kron-roots 2 --repeat 3); limit=560 ;;
        issue|issue-road4m)  # issue 18's table: every graph contracted first, auto then searches the hierarchy
               graphs=roads,road1.4m,grid; [ "$part" = issue-road4m ] && graphs=road4m
               extra=(--roots 4 --repeat 3 --hierarchy --cuda-methods sssp:regions,sssp:delta-stepping
                      --cpu-methods sssp:delta-stepping,sssp:dijkstra); limit=560 ;;
        hierarchy) graphs=roads
               extra=(--roots 4 --repeat 3 --cpu-methods sssp:hierarchy,sssp:dijkstra
                      --cuda-methods sssp:hierarchy,sssp:regions); limit=400 ;;
        hierarchy-large)
               step "sssp_hierarchy.py: road1400k, road4000k, grid1024"
               NUMBA_NUM_THREADS=$CORES timeout 560 python3 benchmarks/sssp_hierarchy.py \
                   --graphs road1400k,road4000k,grid1024 --roots 8 --json "$OUT/hierarchy_large.json" \
                   > "$OUT/hierarchy_large.md" 2>&1
               echo "exit $?"; tail -30 "$OUT/hierarchy_large.md"
               continue ;;
        *) echo "unknown part $part (roads, kron, hierarchy, hierarchy-large, issue, issue-road4m)"; continue ;;
    esac
    step "roads.py: $graphs"
    timeout "$limit" python3 benchmarks/roads.py --gap "$GAP" --cores "$CORES" --graphs "$graphs" \
        "${extra[@]}" --json "$OUT/roads_$part.json" > "$OUT/roads_$part.md" 2> "$OUT/roads_$part.log"
    echo "exit $? (124: timed out; the JSON holds the graphs done)"
    cat "$OUT/roads_$part.md"; tail -4 "$OUT/roads_$part.log"
done
pack_logs
