#!/usr/bin/env bash
# A scene refused after it is parsed (by the geometry build, a source's set-up, a plane wave's
# direction, the memory check, a view's format) leaves no output folder: nothing is made before
# the scene is known to run (the reliability issue). Exit status 2, one line.
set -u
bin=${GS_BIN:?}
work=${GS_WORK:?}/refused_no_folder
rm -rf "$work"; mkdir -p "$work"; cd "$work" || exit 1
fail=0; checks=0
refused() { # refused NAME PATTERN [options...]: NAME.in refused, -o o_NAME not made
  local name=$1 pat=$2; shift 2
  local err rc
  err=$(timeout 30 "$bin" fdtd --backend cpu "$@" "$name.in" -o "o_$name" 2>&1 >/dev/null); rc=$?
  checks=$((checks + 1))
  if [ "$rc" != 2 ] || [ "$(printf '%s\n' "$err" | grep -c .)" != 1 ] || ! grep -qE -- "$pat" <<<"$err" ||
    [ -e "o_$name" ]; then
    echo "FAIL: $name -> rc=$rc (want 2), folder $([ -e "o_$name" ] && echo made || echo none):"
    echo "$err" | head -4 | sed 's/^/    /'
    fail=$((fail + 1))
  fi
}
h3='#domain: 0.02 0.02 0.02\n#dx_dy_dz: 0.001 0.001 0.001\n#time_window: 5\n#pml_cells: 2\n'
# a box that becomes empty on the grid (found when the geometry is built)
printf "$h3#box: 0.0101 0.0101 0.0101 0.0104 0.0104 0.0104 pec\n" >box.in
refused box "#box: the lower coordinates should be less than the upper"
# an excitation file whose times end before the run does
printf 'time exc\n0 1\n1e-13 2\n' >exc.txt
printf "$h3#excitation_file: exc.txt\n#hertzian_dipole: z 0.01 0.01 0.01 exc\n" >exc.in
refused exc "waveform exc is not defined at"
# a plane wave whose direction gprMax finds no rational approximation of
printf "$h3#waveform: gaussian 1 1e9 w\n#plane_wave_vector: 0.004 0.004 0.004 0.016 0.016 0.016 99991 99989 1 0 w\n" >pw.in
refused pw "#plane_wave: gprMax finds no rational direction"
# a 3D fine view that is not .vtkhdf
printf "$h3#geometry_view: 0 0 0 0.02 0.02 0.02 0.001 0.001 0.001 v.vti f\n" >view.in
refused view "view.in:5: #geometry_view: 'v.vti': a fine \(f\) geometry view is .vtkhdf"
# a 2D model that does not fit the rank's memory (refused after the split)
printf '#domain: 400 400 0.002\n#dx_dy_dz: 0.002 0.002 0.002\n#time_window: 2\n' >huge2.in
refused huge2 "needs [0-9.]+ GiB of host memory"
# -o beneath a file: refused before anything, as a usage error
touch afile
printf "$h3" >plain.in
err=$(timeout 30 "$bin" fdtd --backend cpu plain.in -o afile/o 2>&1 >/dev/null); rc=$?
checks=$((checks + 1))
[ "$rc" = 2 ] && grep -q "afile/o: Not a directory" <<<"$err" || { echo "FAIL: -o afile/o -> rc=$rc: $err"; fail=$((fail + 1)); }
echo "refused_no_folder: $checks checks, $fail failed"
[ $fail = 0 ]
