# Shared by the tests of models split over ranks and of surveys (fdtd3d_ranks*.sh, fdtd*_survey.sh), sourced
# with the test's name and its group argument: `source ranks3_lib.sh NAME GROUP`. Reads GS_BIN,
# GS_SOURCE_DIR, GS_MPIEXEC, GS_BACKEND (cuda: exits 77 without a GPU), GS_MAX_RANKS, GS_TRANSPORTS
# (default mpi-host; on cuda also ipc, and mpi-cuda where Open MPI is CUDA-aware), GS_WORK. Sets
# group, bin, src, mpi, b, max, transports, the work folder w and fail; defines want, f (a
# failure), run, same, split, farms and refuse_job (below).
group=${2:-all}
want() { [ "$group" = all ] || [ "$group" = "$1" ]; }
bin=${GS_BIN:?}; src=${GS_SOURCE_DIR:?}; mpi=${GS_MPIEXEC:?}; b=${GS_BACKEND:-cpu}; max=${GS_MAX_RANKS:-8}
dflt=mpi-host
if [ "$b" = cuda ]; then
  nvidia-smi -L > /dev/null 2>&1 || { echo "no GPU: skipped"; exit 77; }
  dflt="mpi-host ipc"
  ompi_info --parsable --all 2>/dev/null | grep -q "mpi_built_with_cuda_support:value:true" && dflt="$dflt mpi-cuda"
fi
transports=${GS_TRANSPORTS:-$dflt}
w=${GS_WORK:?}/${1:?}_${b}_$group; rm -rf "$w"; mkdir -p "$w"
fail=0
f() { echo "FAIL: $*"; fail=1; }
run() { # NAME RANKS ARGS...: fdtd on RANKS ranks into $w/NAME, its output in $w/NAME.log
  local name=$1 n=$2; shift 2
  timeout -k 5 240 "$mpi" -np "$n" --oversubscribe "$bin" fdtd --backend "$b" "$@" -o "$w/$name" > "$w/$name.log" 2>&1 \
    || f "$name: $(tail -3 "$w/$name.log")"
}
same() { # REFERENCE NAME FILES...: the checksum line and each file byte for byte
  local ref=$1 name=$2; shift 2
  [ -n "$(grep checksum "$w/$ref.log")" ] || f "$ref: no checksum"
  [ "$(grep checksum "$w/$ref.log")" = "$(grep checksum "$w/$name.log")" ] || f "$name: checksum differs"
  for x in "$@"; do cmp -s "$w/$ref/$x" "$w/$name/$x" || f "$name: $x differs"; done
}
split() { # SCENE_NAME FILES-LIST DECOMP ARGS...: each transport on DECOMP against SCENE_NAME-1
  local name=$1 files=$2 d=$3; shift 3
  local n=$(( ${d%%x*} * $(cut -dx -f2 <<<"$d") * ${d##*x} ))
  [ "$n" -le "$max" ] || return 0
  for t in $transports; do
    run "$name-$d-$t" "$n" "$@" --decomp "$d" --halo-transport "$t"
    same "$name-1" "$name-$d-$t" $files
    grep -q "decomposition $d" "$w/$name-$d-$t.log" || f "$name-$d-$t: header"
  done
}
farms() { # RUNS FILES-LIST ARGS...: a survey of RUNS runs on 2 and 3 ranks, one rank a group, against $w/one
  local runs=$1 files=$2 n; shift 2
  for n in 2 3; do
    [ "$n" -le "$max" ] || continue
    run "farm$n" "$n" "$@"
    same one "farm$n" $files
    grep -q "shared out over $n groups of 1 rank" "$w/farm$n.log" || f "farm$n: no groups line"
    [ "$(grep -c "^fdtd: run [1-9] of $runs done" "$w/farm$n.log")" = "$runs" ] || f "farm$n: not a line per run"
  done
}
refuse_job() { # NAME RANKS MESSAGE ARGS...: exit 2, the message once, no folder left
  local name=$1 n=$2 msg=$3; shift 3
  timeout -k 5 60 "$mpi" -np "$n" --oversubscribe "$bin" fdtd --backend "$b" "$@" -o "$w/$name" > "$w/$name.log" 2>&1
  local st=$?
  [ "$st" = 2 ] || f "$name: exit $st, expected 2"
  [ "$(grep -c "$msg" "$w/$name.log")" = 1 ] || f "$name: expected one line '$msg': $(head -3 "$w/$name.log")"
  [ -e "$w/$name" ] && f "$name: a refused job left its folder"
}
