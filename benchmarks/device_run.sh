#!/usr/bin/env bash
# One call on a lent GPU machine: the GPU tests, validated Graph500 runs on
# the GPU (with energy), and the quick benchmark tables. Logs go under $OUT.
#   run: bash benchmarks/device_run.sh        (carry .data for the road networks)
#        BFS_ONLY=1 bash benchmarks/device_run.sh   (no SSSP benchmarks)
# The logs come back packed in $OUT/logs.tgz, the plots beside it.
set -uo pipefail
source "$(dirname "$0")/_device_common.sh"

step "device"
nvidia-smi --query-gpu=name,memory.total,clocks.sm,clocks.mem --format=csv,noheader | tee "$OUT/gpu.txt"
git log -1 --format='commit %h %s' 2>/dev/null | tee -a "$OUT/gpu.txt"

step "GPU tests"
python3 -m pytest -q -m gpu -p no:cacheprovider -n 4 2>&1 | tee "$OUT/pytest_gpu.log" | tail -8

step "Graph500 SCALE 22, BFS + SSSP, CUDA, energy"
python3 -m wavefront graph500 --scale 22 --backend cuda --energy --no-progress \
    --json "$OUT/graph500_s22.json" > "$OUT/graph500_s22.txt" 2> "$OUT/graph500_s22.err"
echo "exit $?"; grep -E "harmonic_mean|construction_time|MTEPS|energy|backend" "$OUT/graph500_s22.txt"

step "Graph500 SCALE 24, BFS + SSSP, CUDA"
python3 -m wavefront graph500 --scale 24 --kernels bfs,sssp --backend cuda --no-progress \
    > "$OUT/graph500_s24.txt" 2> "$OUT/graph500_s24.err"
echo "exit $?"; grep -E "harmonic_mean|median_time|construction_time" "$OUT/graph500_s24.txt"

step "BFS benchmark: hybrid at SCALE 26 + roads"
python3 benchmarks/bfs_gpu.py --scales 26 --methods hybrid,hybrid:seed000,single-block --roots 64 \
    --memory-limit-gib 78 --plot "$OUT/bfs_trace_scale26.png" > "$OUT/bfs_gpu.log" 2>&1
echo "exit $?"; tail -45 "$OUT/bfs_gpu.log"

if [ "${BFS_ONLY:-0}" = 1 ]; then  # BFS work: skip the SSSP benchmarks (the GPU tests above cover SSSP)
    step "GPU tests (again, the summary)"; tail -3 "$OUT/pytest_gpu.log"
    pack_logs
    exit 0
fi

step "SSSP benchmark: road-like 1.4 M, seattle, SCALE 20-24"
python3 benchmarks/sssp_gpu.py --graphs road,seattle,kron20-24 --roots 16 \
    --json "$OUT/sssp_gpu.json" > "$OUT/sssp_gpu.log" 2>&1
echo "exit $?"; tail -26 "$OUT/sssp_gpu.log"

step "SSSP: where the asynchronous kernel's time goes (roads)"
python3 benchmarks/sssp_async_stats.py --graphs seattle,road > "$OUT/sssp_async_stats.log" 2>&1
echo "exit $?"; cat "$OUT/sssp_async_stats.log"

step "SSSP: the region kernel against delta-stepping (roads; kernel phase times)"
python3 benchmarks/sssp_regions.py --graphs amsterdam,seattle,road200k --roots 8 --breakdown \
    --variants "default;region_stats=True" --json "$OUT/sssp_regions.json" > "$OUT/sssp_regions.log" 2>&1
echo "exit $?"; grep "^  " "$OUT/sssp_regions.log"

step "SSSP: seed 001 fig. 6 (phases of bellman-ford, frontier, adaptive on road-like 1.4 M)"
python3 benchmarks/plot_phases.py --json "$OUT/sssp_phases.json" --png "$OUT/sssp_phases.png" > "$OUT/sssp_phases.log" 2>&1
echo "exit $?"; tail -5 "$OUT/sssp_phases.log"

step "GPU tests (again, the summary)"
tail -3 "$OUT/pytest_gpu.log"
pack_logs
