#!/usr/bin/env bash
# The analytic check: gprMax's Hertzian dipole in free space
# (tests/data/gprmax/hertzian_analytic, 76^3 cells of 5 mm, 251 steps) run with our CPU backend
# (GS_BACKEND to change it), then tests/hertzian_analytic.py compares ours and gprMax 4's stored
# output with the analytic solution: ours must be no worse than gprMax's (within round-off;
# both figures printed). Needs python3 with numpy and h5py (skips, 77, without).
set -u
bin=${GS_BIN:?}; src=${GS_SOURCE_DIR:?}
w=${GS_WORK:?}/hertzian_analytic; rm -rf "$w"; mkdir -p "$w"
py=
for p in ${GS_PYTHON:-} python3 /usr/bin/python3; do
  if "$p" -c "import h5py, numpy" > /dev/null 2>&1; then py=$p; break; fi
done
[ -n "$py" ] || { echo "no python3 with numpy and h5py: skipped"; exit 77; }
d=$src/tests/data/gprmax/hertzian_analytic
cp "$d/hertzian_dipole_analytic.in" "$w/"
"$bin" fdtd --backend "${GS_BACKEND:-cpu}" "$w/hertzian_dipole_analytic.in" -o "$w/out" > "$w/run.log" 2>&1 ||
  { echo "FAIL: the run: $(tail -3 "$w/run.log")"; exit 1; }
tail -1 "$w/run.log"
"$py" "$src/tests/hertzian_analytic.py" "$w/out/hertzian_dipole_analytic.h5" "$d/hertzian_dipole_analytic.h5"
