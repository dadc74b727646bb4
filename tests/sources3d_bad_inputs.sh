#!/usr/bin/env bash
# Bad 3D source commands and excitation files: each is refused with exit status 2 and
# one line on stderr naming the input and the reason, within seconds, with no huge allocation.
set -u
bin=${GS_BIN:?}
work=${GS_WORK:?}/sources3d_bad_inputs
rm -rf "$work"; mkdir -p "$work"
fail=0; checks=0
refused() { # refused PATTERN SCENE_TEXT [ARGS]: the scene is refused: exit 2, one stderr line matching PATTERN
  local pat=$1 text=$2 err rc lines
  printf '%b' "$text" >"$work/s.in"
  err=$(timeout 20 "$bin" fdtd --backend cpu "$work/s.in" -o "$work/out" "${@:3}" 2>&1 >/dev/null); rc=$?
  lines=$(printf '%s\n' "$err" | grep -c .)
  checks=$((checks + 1))
  if [ "$rc" != 2 ] || [ "$lines" != 1 ] || ! grep -qE -- "$pat" <<<"$err"; then
    echo "FAIL: [$pat] -> rc=$rc (want 2), $lines stderr lines (want 1):"; echo "$err" | sed 's/^/    /'
    fail=$((fail + 1))
  fi
}
g3='#domain: 0.02 0.02 0.02\n#dx_dy_dz: 0.001 0.001 0.001\n#time_window: 40\n#pml_cells: 4\n'
g2='#domain: 0.02 0.02 0.001\n#dx_dy_dz: 0.001 0.001 0.001\n#time_window: 40\n'
w='#waveform: ricker 1 5e9 w\n'
ex() { printf '%b' "$2" >"$work/$1"; }
# 2D models: 3D only for now
refused ':4: #magnetic_dipole: not supported in 2D models yet' "$g2#magnetic_dipole: z 0.01 0.01 0 w\n"
refused ':5: #voltage_source: not supported in 2D models yet' "$g2$w#voltage_source: z 0.01 0.01 0 50 w\n"
refused ':5: #transmission_line: not supported in 2D models yet' "$g2$w#transmission_line: z 0.01 0.01 0 50 w\n"
ex ok.txt 'a\n1\n2\n'
refused ':4: #excitation_file: not supported in 2D models yet' "$g2#excitation_file: $work/ok.txt\n"
# arguments
refused ':6: #magnetic_dipole: polarisation .q. is not x, y or z' "$g3$w#magnetic_dipole: q 0.01 0.01 0.01 w\n"
refused ':6: #magnetic_dipole: waveform .nope. is not defined' "$g3$w#magnetic_dipole: x 0.01 0.01 0.01 nope\n"
refused ':6: #magnetic_dipole: give both the delay and the removal time' "$g3$w#magnetic_dipole: x 0.01 0.01 0.01 w 1e-9\n"
refused ':6: #magnetic_dipole: the delay and removal time must be' "$g3$w#magnetic_dipole: x 0.01 0.01 0.01 w 2e-9 1e-9\n"
refused ':6: #magnetic_dipole: x = 0.5 m is outside the domain' "$g3$w#magnetic_dipole: x 0.5 0.01 0.01 w\n"
refused ':6: #voltage_source: resistance -1 is below 0' "$g3$w#voltage_source: z 0.01 0.01 0.01 -1 w\n"
refused ':6: #voltage_source: .* outer boundary' "$g3$w#voltage_source: z 0 0.01 0.01 50 w\n"
refused ':7: #voltage_source: two voltage sources on the same node' \
  "$g3$w#voltage_source: z 0.01 0.01 0.01 50 w\n#voltage_source: z 0.01 0.01 0.01 0 w\n"
refused ':6: #transmission_line: resistance 400 is not in' "$g3$w#transmission_line: z 0.01 0.01 0.01 400 w\n"
refused ':6: #transmission_line: a delay and removal time are not taken' \
  "$g3$w#transmission_line: z 0.01 0.01 0.01 50 w 0 1e-9\n"
refused '12 iterations are too few for gprMax.s line \(at least 16\)' \
  "${g3/time_window: 40/time_window: 12}$w#transmission_line: z 0.01 0.01 0.01 50 w\n"
refused '15 iterations are too few for gprMax.s line \(at least 16\)' \
  "${g3/time_window: 40/time_window: 15}$w#transmission_line: z 0.01 0.01 0.01 50 w\n"
# excitation files
refused ':5: #excitation_file: .*nosuch.txt' "$g3#excitation_file: $work/nosuch.txt\n"
ex empty.txt ''
refused ':5: #excitation_file: .*empty.txt: the file is empty' "$g3#excitation_file: $work/empty.txt\n"
ex names.txt 'a b\n'
refused 'names.txt: fewer than two rows of values' "$g3#excitation_file: $work/names.txt\n"
ex word.txt 'a\n1\nabc\n'
refused 'word.txt:3: .abc. is not a finite float32 number' "$g3#excitation_file: $work/word.txt\n"
ex nan.txt 'a\n1\nnan\n'
refused 'nan.txt:3: .nan. is not a finite float32 number' "$g3#excitation_file: $work/nan.txt\n"
ex big.txt 'a\n1\n1e39\n'
refused 'big.txt:3: .1e39. is not a finite float32 number' "$g3#excitation_file: $work/big.txt\n"
ex cols.txt 'a b\n1 2\n3\n'
refused 'cols.txt:3: 1 values where the names give 2 columns' "$g3#excitation_file: $work/cols.txt\n"
ex time.txt 'time a\n0 1\n0 2\n'
refused 'time.txt: the time column does not increase' "$g3#excitation_file: $work/time.txt\n"
ex dup.txt 'w\n1\n2\n'
refused ':6: #excitation_file: .w. is already defined' "$g3$w#excitation_file: $work/dup.txt\n"
refused ':5: #excitation_file: interpolation .cubic. is not supported' "$g3#excitation_file: $work/ok.txt cubic 0\n"
ex short.txt 'time a\n0 1\n1e-12 2\n'
refused ':5: #excitation_file: waveform a is not defined at .* s .outside the file.s times.' \
  "$g3#excitation_file: $work/short.txt\n#magnetic_dipole: x 0.01 0.01 0.01 a\n"
# a file of more than 2^24 values is refused while it is read (no allocation of its size)
{ echo 'a b c d'; yes '1 1 1 1' | head -n 4200000; } >"$work/huge.txt"
refused 'huge.txt: more than 16777216 values' "$g3#excitation_file: $work/huge.txt\n"
ex long.txt "a\n$(head -c 70000 /dev/zero | tr '\0' '1')\n"
refused 'long.txt:2: line longer than' "$g3#excitation_file: $work/long.txt\n"
# discrete plane waves (#plane_wave_angles, #plane_wave_vector)
pb='0.004 0.004 0.004 0.016 0.016 0.016'
refused ':4: #plane_wave_angles: not supported in 2D models' "$g2#plane_wave_angles: $pb 30 40 50 w\n"
refused ':6: #plane_wave_angles: theta 190 is not in \[0, 180\]' "$g3$w#plane_wave_angles: $pb 190 40 50 w\n"
refused ':6: #plane_wave_angles: psi -1 is not in \[0, 360\]' "$g3$w#plane_wave_angles: $pb 30 40 -1 w\n"
refused ':6: #plane_wave_angles: waveform .nope. is not defined' "$g3$w#plane_wave_angles: $pb 30 40 50 nope\n"
refused ':6: #plane_wave_angles: material .rock. is not defined' "$g3$w#plane_wave_angles: $pb 30 40 50 w rock\n"
refused ':6: #plane_wave_angles: the background material cannot be pec' "$g3$w#plane_wave_angles: $pb 30 40 50 w pec\n"
refused ':6: #plane_wave_angles: give both the delay and the removal time' \
  "$g3$w#plane_wave_angles: $pb 30 40 50 w free_space 1e-9\n"
refused ':6: #plane_wave_angles: the delay and removal time must be' \
  "$g3$w#plane_wave_angles: $pb 30 40 50 w free_space 2e-9 1e-9\n"
refused ':6: #plane_wave_angles: the box must keep at least one cell' \
  "$g3$w#plane_wave_angles: 0 0.004 0.004 0.016 0.016 0.016 30 40 50 w\n"
refused ':6: #plane_wave_angles: the box.s upper corner must lie above' \
  "$g3$w#plane_wave_angles: 0.016 0.004 0.004 0.004 0.016 0.016 30 40 50 w\n"
refused ':6: #plane_wave_angles: x = 0.5 m is outside the domain' \
  "$g3$w#plane_wave_angles: 0.004 0.004 0.004 0.5 0.016 0.016 30 40 50 w\n"
refused ':6: #plane_wave: gprMax finds no rational direction within 0.017 degrees' \
  "$g3$w#plane_wave_angles: $pb 0.5 0.5 0.5 w\n"
refused ':6: #plane_wave_vector: .1.5. is not an integer' "$g3$w#plane_wave_vector: $pb 1.5 1 1 30 w\n"
refused ':6: #plane_wave_vector: the direction \(0, 0, 0\) has no angle' "$g3$w#plane_wave_vector: $pb 0 0 0 30 w\n"
refused ':6: #plane_wave_vector: a delay and removal time are not taken' \
  "$g3$w#plane_wave_vector: $pb 1 1 1 30 w free_space 0 1e-9\n"
refused ':6: #plane_wave_axial: not supported yet' "$g3$w#plane_wave_axial: $pb 30 x w\n"
refused ':8: #plane_wave: a dispersive background material is not supported yet' \
  "$g3$w#material: 4 0 1 0 soil\n#add_dispersion_debye: 1 2 1e-9 soil\n#plane_wave_angles: $pb 30 40 50 w soil\n"
refused ':7: #plane_wave: a dispersive background material is not supported yet' \
  "$g3$w#material: 4 0 1 0 soil\n#plane_wave_angles: $pb 30 40 50 w soil\n#add_dispersion_debye: 1 2 1e-9 soil\n"
# a flat fractal box (gprMax fails on its FFT of no points)
refused ':6: #fractal_box: the box spans no cells \(20 x 20 x 0\)' \
  "$g3#soil_peplinski: 0.5 0.5 2.0 2.66 0.001 0.25 ms\n#fractal_box: 0 0 0.01 0.02 0.02 0.01 1.5 1 1 1 5 ms fb 1\n"
# an excitation file that starts with a UTF-8 byte order mark reads as the same file without it
ex bom.txt '\xef\xbb\xbftime wq\n0 0\n1e-10 1\n1e-9 0\n'
tail -c +4 "$work/bom.txt" >"$work/nobom.txt"
for m in bom nobom; do
  printf '%b' "$g3#excitation_file: $work/$m.txt\n#hertzian_dipole: z 0.01 0.01 0.01 wq\n#rx: 0.012 0.01 0.01\n" >"$work/$m.in"
  timeout 20 "$bin" fdtd --backend cpu "$work/$m.in" -o "$work/out_$m" 2>&1 | grep '^checksum' >"$work/$m.sum"
done
checks=$((checks + 1))
[ -s "$work/bom.sum" ] && cmp -s "$work/bom.sum" "$work/nobom.sum" ||
  { echo "FAIL: an excitation file with a byte order mark: $(cat "$work/bom.sum" "$work/nobom.sum")"; fail=$((fail + 1)); }
# surveys moving a source or receiver out of the domain: the run and which are named
refused 's.in: run 4 moves a receiver out of the domain' "$g3$w#hertzian_dipole: z 0.01 0.01 0.01 w\n#rx: 0.012 0.01 0.01\n#rx_steps: 0.003 0 0\n" -n 5
refused 's.in: run 4 moves a source out of the domain' "$g3$w#magnetic_dipole: x 0.01 0.01 0.01 w\n#src_steps: 0 0 -0.005\n" -n 4
echo "sources3d_bad_inputs: $checks checks, $fail failed"
[ "$fail" = 0 ]
