# Sourced by the device scripts: $OUT made, the project on PYTHONPATH, a step
# banner, and pack_logs (only a few files come back from a lent machine:
# every log under $OUT goes into one $OUT/logs.tgz; PNGs stay beside it).
OUT=${OUT:-/tmp/wavefront-out}
mkdir -p "$OUT"
export PYTHONPATH=. PYTHONUNBUFFERED=1
step() { echo; echo "== $*"; }
pack_logs() {
    local pack
    pack=$(mktemp -d)/logs.tgz
    (cd "$OUT" && tar czf "$pack" --exclude '*.png' . && find . -type f ! -name '*.png' -delete && mv "$pack" logs.tgz)
}
