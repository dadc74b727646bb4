#!/usr/bin/env bash
# Bounded memory: a 20000 x 20000 8-bit image is scaled with a peak RSS under
# 256 MiB (the process's VmHWM via getrusage of the child).
set -u
w=${GS_WORK:?}/scale_memory; rm -rf "$w"; mkdir -p "$w"
"${GS_MKPNG:?}" "$w/big.png" 20000 20000 grey 8 || exit 1
python3 - "$GS_BIN" "$w" "${GS_BACKEND:-cpu}" <<'PY'
import resource, subprocess, sys
bin, w, backend = sys.argv[1:4]
r = subprocess.run([bin, "scale", "--backend", backend, "-d", "2", "-o", w + "/out", w + "/big.png"],
                   capture_output=True, text=True)
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024.0
ok = r.returncode == 0 and peak < 256
print(r.stdout.strip(), r.stderr.strip())
print(f"scale_memory: 20000x20000 8-bit, peak RSS {peak:.1f} MiB (limit 256): {'ok' if ok else 'FAILED'}")
sys.exit(0 if ok else 1)
PY
