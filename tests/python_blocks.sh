#!/usr/bin/env bash
# #python blocks and #include_file (src/model/scene_text.c, scene_python.c, src/run/fdtd_scene.c):
# models of tests/data/python whose blocks loop, use numpy, read current_model_run in a B-scan (2D,
# 3D, and on 2 ranks), build an antenna-like model from gprMax 3-style helpers (a user_libs module on
# PYTHONPATH), or include files, each give exactly the receivers of the same model written out by
# hand; blocks that fail, run too long or print too much, --no-python, a cycle of include files
# and a missing interpreter are refused with one line and exit status 2.
set -u
bin=${GS_BIN:?}; src=${GS_SOURCE_DIR:?}; d=$src/tests/data/python
command -v python3 > /dev/null || { echo "no python3 on PATH: skipped"; exit 77; }
w=${GS_WORK:?}/python_blocks; rm -rf "$w"; mkdir -p "$w"
fail=0
f() { echo "FAIL: $*"; fail=1; }
run() { "$bin" fdtd --backend cpu "$@"; }
same() { cmp -s "$1" "$2" || f "$3: $1 and $2 differ"; }
# NAME PATTERN ARGS...: refused with exit status 2 and one line matching PATTERN
refused() {
  local name=$1 pat=$2; shift 2
  local out rc; out=$(run "$@" -o "$w/$name" 2>&1); rc=$?
  { [ $rc = 2 ] && [ "$(wc -l <<<"$out")" = 1 ] && grep -qE "$pat" <<<"$out"; } || f "$name ($rc): $out"
}

# Loops: the block's commands equal the file written by hand; --write-processed holds them.
run "$d/loops.in" -o "$w/loops" --write-processed > "$w/loops.log" 2>&1 || f "loops: $(cat "$w/loops.log")"
run "$d/loops_hand.in" -o "$w/loops_hand" > /dev/null 2>&1 || f "loops_hand"
same "$w/loops/receivers.csv" "$w/loops_hand/receivers.csv" loops
grep -q '^#cylinder: 0.08 0.03 0 0.08 0.03 0.002 0.011 pec' "$w/loops/loops_processed.in" || f "loops_processed.in"
grep -q '^#python' "$w/loops/loops_processed.in" && f "loops_processed.in holds the block"

# numpy, in the first python3 that has it (--python)
py_np=""
for py in python3 /usr/bin/python3; do "$py" -c "import numpy" 2> /dev/null && { py_np=$py; break; }; done
if [ -n "$py_np" ]; then
  run "$d/numpy.in" -o "$w/numpy" --python "$py_np" > "$w/numpy.log" 2>&1 || f "numpy: $(cat "$w/numpy.log")"
  run "$d/numpy_hand.in" -o "$w/numpy_hand" > /dev/null 2>&1 || f "numpy_hand"
  same "$w/numpy/receivers.csv" "$w/numpy_hand/receivers.csv" numpy
else
  echo "no python3 with numpy: the numpy model skipped"
fi

# A B-scan of 2 traces whose geometry follows current_model_run (with #src_steps/#rx_steps).
run "$d/bscan.in" -n 2 -o "$w/bscan" --write-processed > "$w/bscan.log" 2>&1 || f "bscan: $(cat "$w/bscan.log")"
grep -q 'bscan.in:13: #python printed: trace 2 of 2' "$w/bscan.log" || f "bscan: the block's message: $(cat "$w/bscan.log")"
for r in 1 2; do
  run "$d/bscan_trace$r.in" -o "$w/bscan_trace$r" > /dev/null 2>&1 || f "bscan_trace$r"
  same "$w/bscan/receivers_run00$r.csv" "$w/bscan_trace$r/receivers.csv" "bscan trace $r"
done
cmp -s "$w/bscan/receivers_run001.csv" "$w/bscan/receivers_run002.csv" && f "bscan: both traces alike"
cmp -s "$w/bscan/bscan1_processed.in" "$w/bscan/bscan2_processed.in" && f "bscan: both processed files alike"
if [ -n "${GS_MPIEXEC:-}" ]; then # rank 0 runs the blocks, the other ranks get their commands
  "$GS_MPIEXEC" -np 2 --oversubscribe "$bin" fdtd --backend cpu "$d/bscan.in" -n 2 -o "$w/bscan_np2" \
    > "$w/bscan_np2.log" 2>&1 || f "bscan on 2 ranks: $(cat "$w/bscan_np2.log")"
  [ "$(grep -c 'trace 1 of 2' "$w/bscan_np2.log")" = 1 ] || f "bscan on 2 ranks: the block did not run once"
  for r in 1 2; do same "$w/bscan/receivers_run00$r.csv" "$w/bscan_np2/receivers_run00$r.csv" "bscan np2 trace $r"; done
fi
# 3D, 3 runs: each run's own geometry (not the first run's, kept for a survey's later runs)
run "$d/bscan3d.in" -n 3 -o "$w/bscan3d" > "$w/bscan3d.log" 2>&1 || f "bscan3d: $(cat "$w/bscan3d.log")"
for r in 2 3; do
  run "$d/bscan3d_trace$r.in" -o "$w/bscan3d_trace$r" > /dev/null 2>&1 || f "bscan3d_trace$r"
  same "$w/bscan3d/receivers_run00$r.csv" "$w/bscan3d_trace$r/receivers.csv" "bscan3d trace $r"
done
if [ -n "${GS_MPIEXEC:-}" ]; then # the runs shared out over two ranks, each running its runs' blocks
  "$GS_MPIEXEC" -np 2 --oversubscribe "$bin" fdtd --backend cpu "$d/bscan3d.in" -n 3 -o "$w/bscan3d_np2" \
    > "$w/bscan3d_np2.log" 2>&1 || f "bscan3d on 2 ranks: $(cat "$w/bscan3d_np2.log")"
  for r in 1 2 3; do same "$w/bscan3d/receivers_run00$r.csv" "$w/bscan3d_np2/receivers_run00$r.csv" "bscan3d np2 $r"; done
fi

# An antenna-like model from gprMax 3-style helpers (user_libs on PYTHONPATH), turned 90 degrees too.
PYTHONPATH=$d run "$d/antenna.in" -o "$w/antenna" > "$w/antenna.log" 2>&1 || f "antenna: $(cat "$w/antenna.log")"
run "$d/antenna_hand.in" -o "$w/antenna_hand" > /dev/null 2>&1 || f "antenna_hand"
same "$w/antenna/receivers.csv" "$w/antenna_hand/receivers.csv" antenna
PYTHONPATH=$d run "$d/antenna_rot90.in" -o "$w/antenna_rot90" > "$w/rot.log" 2>&1 || f "antenna_rot90: $(cat "$w/rot.log")"
python3 - "$w/antenna/receivers.csv" "$w/antenna_rot90/receivers.csv" <<'PY' || f "antenna turned 90 degrees: Ex is not Ey"
import sys
a, b = ([float(l.split(',')[1]) for l in open(p).read().split('\n')[1:] if l] for p in sys.argv[1:3])
peak, diff = max(map(abs, a)), max(abs(x - y) for x, y in zip(a, b))
print('antenna turned: peak %g, largest difference %g' % (peak, diff))
sys.exit(not (len(a) == len(b) == 150 and peak > 1 and diff <= 1e-5 * peak))
PY
refused antenna_nolib "antenna.in:10: #python \(the block of line 9\): ModuleNotFoundError: No module named 'user_libs' .*PYTHONPATH" \
  "$d/antenna.in"
# gprMax 4 moved user_libs.GPRAntennaModels to toolboxes/: the message says so, with or without a user_libs.
refused moved_antennas "moved.in:10: #python.*No module named 'user_libs.*gprMax 4 moved user_libs.GPRAntennaModels to toolboxes" \
  "$(printf '%s\n' "#domain: 0.1 0.1 0.002" "#dx_dy_dz: 0.002 0.002 0.002" "#time_window: 100" "" "" "" "" "" \
    "#python:" "from user_libs.GPRAntennaModels.GSSI import antenna_like_GSSI_1500" "#end_python:" > "$w/moved.in"; echo "$w/moved.in")"
PYTHONPATH=$d refused moved_antennas_libs "moved.in:10: #python.*No module named 'user_libs.GPRAntennaModels'.*gprMax 4 moved" "$w/moved.in"

# An empty block (no code at all) runs as gprMax runs it: nothing printed.
printf '%s\n' "#domain: 0.1 0.1 0.002" "#dx_dy_dz: 0.002 0.002 0.002" "#time_window: 10" "#python:" "#end_python:" \
  > "$w/empty_block.in"
run "$w/empty_block.in" -o "$w/empty_block" > "$w/empty_block.log" 2>&1 || f "empty block: $(cat "$w/empty_block.log")"

# A block imports a module of the working directory, as under `python -m gprMax`.
mkdir -p "$w/cwd"
printf 'def rx():\n    print("#rx: 0.05 0.05 0")\n' > "$w/cwd/gs_test_cwd_module.py"
printf '%s\n' "#domain: 0.1 0.1 0.002" "#dx_dy_dz: 0.002 0.002 0.002" "#time_window: 20" \
  "#waveform: ricker 1 1e9 w" "#hertzian_dipole: z 0.04 0.04 0 w" \
  "#python:" "import gs_test_cwd_module" "gs_test_cwd_module.rx()" "#end_python:" > "$w/cwd/m.in"
(cd "$w/cwd" && run m.in -o "$w/cwd/out" > "$w/cwd.log" 2>&1) || f "a module of the working directory: $(cat "$w/cwd.log")"
grep -q . "$w/cwd/out/receivers.csv" 2> /dev/null || f "a module of the working directory: no receivers.csv"

# Include files (nested, relative to the input's folder) and a cycle of them.
(cd / && run "$d/include/model.in" -o "$w/include" > "$w/include.log" 2>&1) || f "include: $(cat "$w/include.log")"
run "$d/include/model_hand.in" -o "$w/include_hand" > /dev/null 2>&1 || f "include_hand"
same "$w/include/receivers.csv" "$w/include_hand/receivers.csv" include
refused cycle "cycle_b.inc:2: #include_file: .*cycle_a.inc is being read already \(a cycle of include files\)" \
  "$d/include/cycle.in"
# A file of comments included again and again: every byte read counts (256 MiB in all), not only commands.
mkdir -p "$w/many"
yes "## $(printf 'x%.0s' $(seq 4000))" | head -c $((4 << 20)) > "$w/many/comments.inc"
{ printf '%s\n' "#domain: 0.1 0.1 0.002" "#dx_dy_dz: 0.002 0.002 0.002" "#time_window: 10"
  for _ in $(seq 70); do echo "#include_file: comments.inc"; done; } > "$w/many/many.in"
refused many_includes "comments.inc:[0-9]+: the input and its include files hold more than 256 MiB" \
  "$w/many/many.in"

# Refusals: one line naming the file and line, Python's last message, exit status 2.
base=("#domain: 0.1 0.1 0.002" "#dx_dy_dz: 0.002 0.002 0.002" "#time_window: 100")
scene() { local name=$1; shift; printf '%s\n' "$@" > "$w/$name.in"; echo "$w/$name.in"; }
refused fail "fail.in:7: #python \(the block of line 4\): NameError: name 'nope' is not defined" \
  "$(scene fail "${base[@]}" "#python:" "x = 1" "" "print(nope)" "#end_python:")"
refused syntax "syntax.in:5: #python \(the block of line 4\): SyntaxError" \
  "$(scene syntax "${base[@]}" "#python:" "for" "#end_python:")"
refused nopython "nopython.in:4: #python: Python blocks are not run here \(--no-python\)" \
  "$(scene nopython "${base[@]}" "#python:" "print('#rx: 0.05 0.05 0')" "#end_python:")" --no-python
refused unclosed "unclosed.in:4: #python: no #end_python: closes this block" \
  "$(scene unclosed "${base[@]}" "#python:" "print(1)")"
refused badcmd "badcmd.in:4: #python output line 2: #box: material 'nomat' is not defined" \
  "$(scene badcmd "${base[@]}" "#python:" "print('#material: 5 0 1 0 soil')" \
    "print('#box: 0 0 0 0.1 0.05 0.002 nomat')" "#end_python:")"
refused interpreter "interpreter.in:4: #python: cannot start /nonexistent/python3" \
  "$(scene interpreter "${base[@]}" "#python:" "print(1)" "#end_python:")" --python /nonexistent/python3
if ! python3 -c "import gprMax" 2> /dev/null; then
  refused gprmax4 "gprmax4.in:5: #python \(the block of line 4\): this block uses gprMax 4's Python API" \
    "$(scene gprmax4 "${base[@]}" "#python:" "from toolboxes.GPRAntennaModels.GSSI import antenna_like_GSSI_1500" \
      "#end_python:")"
fi
# Too long (and what the block started goes with it), too much output.
tag=$((900000 + RANDOM))
refused timeout "timeout.in:4: #python: the blocks ran longer than 2 s \(--python-timeout\)" \
  "$(scene timeout "${base[@]}" "#python:" "import subprocess" "subprocess.Popen(['sleep', '$tag'])" \
    "while True: pass" "#end_python:")" --python-timeout 2
sleep 1
ps -eo args | grep -q "^sleep $tag\$" && f "timeout: the block's child process lives on"
refused flood "flood.in:[45]: #python.*: the blocks printed more than 64 MiB" \
  "$(scene flood "${base[@]}" "#python:" "while True: print('#rx: 0.05 0.05 0 ' * 100)" "#end_python:")"
# --write-processed never writes over a file the scene reads.
mkdir -p "$w/own"
printf '%s\n' "${base[@]}" "#include_file: m_processed.in" > "$w/own/m.in"
printf '#material: 5 0 1 0 soil\n' > "$w/own/m_processed.in"
out=$(run "$w/own/m.in" -o "$w/own" --write-processed 2>&1); rc=$?
{ [ $rc = 2 ] && grep -q "m_processed.in is the input file" <<<"$out"; } || f "write-processed over an input ($rc): $out"
grep -q '^#material: 5 0 1 0 soil$' "$w/own/m_processed.in" || f "write-processed wrote over an input"
echo "python_blocks: $([ $fail = 0 ] && echo ok || echo FAILED)"
exit $fail
