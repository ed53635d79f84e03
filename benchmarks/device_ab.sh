#!/usr/bin/env bash
# Before/after on one lent GPU, in one call: the headline BFS and SSSP
# benchmarks of an earlier tree (BEFORE, e.g. `git archive REV wavefront
# benchmarks | tar -x -C .scratch/before`) and of this one, interleaved
# (before, after, after, before, ...) so that neither side always runs first.
#   run: bash benchmarks/device_ab.sh .scratch/before     (carry .data and the BEFORE folder)
#        PASSES=3 SSSP=0 bash benchmarks/device_ab.sh DIR   (more passes, BFS only)
# Logs go under $OUT; the last lines print each side's numbers per pass.
set -uo pipefail
BEFORE=${1:?usage: device_ab.sh BEFORE_DIR}
OUT=${OUT:-/tmp/wavefront-out}
PASSES=${PASSES:-2}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1
[ -e "$BEFORE/.data" ] || ln -s "$(pwd)/.data" "$BEFORE/.data"
nvidia-smi --query-gpu=name --format=csv,noheader | tee "$OUT/ab_gpu.txt"
git log -1 --format='after: %h %s' 2>/dev/null | tee -a "$OUT/ab_gpu.txt"
side_dir() { if [ "$1" = before ]; then echo "$BEFORE"; else pwd; fi; }
for pass in $(seq 1 "$PASSES"); do
    order="before after"; [ $((pass % 2)) = 0 ] && order="after before"
    for side in $order; do
        dir=$(side_dir $side)
        (cd "$dir" && PYTHONPATH=. python3 benchmarks/bfs_gpu.py --scales 26 --methods hybrid --roots 64 \
            --road-roots 32 --memory-limit-gib 70 > "$OUT/ab_bfs_${side}_${pass}.log" 2>&1)
        echo "BFS $side pass $pass (exit $?): $(grep -E '^  hybrid' "$OUT/ab_bfs_${side}_${pass}.log" | tr -s ' ' | tr '\n' '|')"
        if [ "${SSSP:-1}" = 1 ]; then
            (cd "$dir" && PYTHONPATH=. python3 benchmarks/sssp_gpu.py --graphs road,seattle,kron22 \
                --methods delta-stepping --roots 16 > "$OUT/ab_sssp_${side}_${pass}.log" 2>&1)
            echo "SSSP $side pass $pass (exit $?): $(grep -E '^\| .* \| delta-stepping' "$OUT/ab_sssp_${side}_${pass}.log" | tr -s ' ' | tr '\n' ' ')"
        fi
    done
done
