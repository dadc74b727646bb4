#!/usr/bin/env bash
# Checks tests/gprmax_compare.sh and cmp.py themselves, with no gpustencil: fake_fdtd.py stands
# in for `gpustencil fdtd` and writes gprMax's own reference output (must pass), reordered or
# with -80 dB noise (must pass), or damaged (must fail): a component 1 % off, a component
# non-zero where the reference is zero, dt or Iterations changed, a receiver, a component or a
# run's file missing. Exit 0 when every verdict is the expected one.
set -u
src=${GS_SOURCE_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
py=
for p in ${GS_PYTHON:-} python3 /usr/bin/python3; do
  if "$p" -c "import h5py, numpy" > /dev/null 2>&1; then py=$p; break; fi
done
[ -n "$py" ] || { echo "FAIL: no python3 with numpy and h5py (Debian: python3-h5py) or set GS_PYTHON"; exit 1; }
w=${GS_WORK:-${TMPDIR:-/tmp}/gs_work_${USER:-$(id -u)}}/gprmax_selftest; rm -rf "$w"; mkdir -p "$w"
printf '#!/bin/sh\nexec "%s" "%s" "$@"\n' "$py" "$src/scripts/gprmax/fake_fdtd.py" > "$w/fake_gpustencil"
chmod +x "$w/fake_gpustencil"
fail=0
check() { # MODE EXPECTED(0|1) PATTERN FOLDERS...
  local mode=$1 want=$2 pat=$3; shift 3
  local out rc
  out=$(GS_FAKE_MODE=$mode GS_FAKE_DATA=$src/tests/data/gprmax GS_BIN=$w/fake_gpustencil GS_WORK=$w/$mode \
        GS_SOURCE_DIR=$src GS_BACKEND=cpu GS_RANKS=1 bash "$src/tests/gprmax_compare.sh" "$@" 2>&1)
  rc=$?
  printf '%s\n' "$out" > "$w/$mode.log"
  if [ "$rc" != "$want" ] || ! grep -qE "$pat" <<< "$out"; then
    echo "FAIL: mode $mode on $*: exit $rc (expected $want) or no /$pat/ (log $w/$mode.log)"
    fail=1
  else
    echo "ok: mode $mode -> exit $rc on $*"
  fi
}
# One reference of each layout the comparison reads (2D and 3D, one run, a B-scan's merged file and
# its per-trace files, many receivers, plane waves, dispersive and fractal models); every reference
# is compared against gpustencil itself by its own gprmax_* test.
layouts=(cylinder_Bscan_2D bscan16 2D_ExHyHz small_3d sources_bscan multi_rx debye_soil_3d fractal_box_small
         plane_wave_bscan tmx_model)
check same 0 "cylinder_Bscan_2D: PASS \(384 comparisons in 64 run" "${layouts[@]}"
check reorder 0 "multi_rx: PASS" multi_rx tmx_model bscan16
check noise 0 "cylinder_Ascan_2D: worst -[89][0-9]\.[0-9] dB" multi_rx cylinder_Ascan_2D bscan16 2D_ExHyHz
check scale 1 "trace 16 rx1 'Rx\(30,60,0\)' E[xyz]: -40\.0 dB > -60 dB" bscan16
check scale 1 "rx14 'rB' Ez: -40\.0 dB > -60 dB" multi_rx
check refzero 1 "Ex: zero in the reference, ours max 1\.000e-03" cylinder_Ascan_2D
check dt 1 "attribute dt: ours" 2D_EyHxHz
check iters 1 "trace 1 attribute Iterations" cylinder_Bscan_2D
check droprx 1 "receiver rx15 'top' missing in ours" multi_rx
check dropcomp 1 "Ex missing in ours" tmx_model
check missing 1 "bscan16: cannot compare: .*bscan1616.h5" bscan16
exit $fail
