#!/usr/bin/env bash
# The GPU's many-steps kernels run by tests/emu's CUDA emulator through the whole program
# (gpustencil_emu: its --backend cpu has them), against the CPU backend's single steps on one
# rank, byte for byte (checksum line, receivers.csv, snapshots): the fused passes' kernel
# (kernels/fdtd_fuse.cu) on one rank and on every rank's part of a split model (deep-halo cycles
# of R = 2, 3, 7 steps as one pass, decompositions 2x1, 1x2, 2x2: the margins reach into the
# ghost layers the last exchange filled), and the grid on chip in each form on one rank.
set -u
bin=${GS_BIN:?}; emu=${GS_BIN_EMU:?}; src=${GS_SOURCE_DIR:?}; mpi=${GS_MPIEXEC:?}
w=${GS_WORK:?}/fdtd_ranks_emu; rm -rf "$w"; mkdir -p "$w"
fail=0
f() { echo "FAIL: $*"; fail=1; }
run() { # BINARY NAME RANKS ARGS...
  local exe=$1 name=$2 n=$3; shift 3
  "$mpi" -np "$n" --oversubscribe "$exe" fdtd --backend cpu "$@" -o "$w/$name" > "$w/$name.log" 2>&1 ||
    f "$name: $(tail -3 "$w/$name.log")"
}
same() { # REFERENCE NAME
  [ "$(grep checksum "$w/$1.log")" = "$(grep checksum "$w/$2.log")" ] || f "$2: checksum differs"
  cmp -s "$w/$1/receivers.csv" "$w/$2/receivers.csv" || f "$2: receivers.csv differs"
  diff -r "$w/$1/snapshots" "$w/$2/snapshots" > /dev/null || f "$2: snapshots differ"
}
args=("$src/tests/data/halo.in" --steps 120 --snapshot-every 60)
GPUSTENCIL_ONCHIP=0 GPUSTENCIL_FUSE=0 run "$bin" ref 1 "${args[@]}"
GPUSTENCIL_DEBUG=1 GPUSTENCIL_ONCHIP=0 GPUSTENCIL_FUSE=5 run "$emu" fused-1 1 "${args[@]}"
same ref fused-1
grep -q "5 steps fused a pass" "$w/fused-1.log" || f "fused-1: not fused"
for r in 2 3 7; do
  for d in 2x1 1x2 2x2; do
    n=$(( ${d%x*} * ${d#*x} ))
    GPUSTENCIL_DEBUG=1 GPUSTENCIL_ONCHIP=0 GPUSTENCIL_FUSE=7 run "$emu" "fused-R$r-$d" "$n" "${args[@]}" --decomp "$d" \
      --halo-depth "$r"
    same ref "fused-R$r-$d"
    grep -q "deep-halo cycles of $r steps as fused passes" "$w/fused-R$r-$d.log" || f "fused-R$r-$d: not fused"
  done
done
for form in tiles ez regs; do
  GS_EMU_SMS=8 GS_FDTD_RUN_FORM=$form GPUSTENCIL_DEBUG=1 GPUSTENCIL_ONCHIP=1 run "$emu" "onchip-$form" 1 "${args[@]}"
  same ref "onchip-$form"
  grep -q "the grid on chip: .*$( [ $form = tiles ] && echo tiles || echo columns)" "$w/onchip-$form.log" ||
    f "onchip-$form: $(grep -m1 "on chip" "$w/onchip-$form.log")"
done
[ "$fail" = 0 ] && echo "fdtd_ranks_emu: the emulated kernels give one CPU rank's bytes"
exit "$fail"
