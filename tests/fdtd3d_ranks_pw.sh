#!/usr/bin/env bash
# Discrete plane waves in a 3D model split over ranks: the checksum line,
# receivers.csv / receivers_run00N.csv and MODEL.h5 of 2, 3, 4 and 8 ranks are one rank's,
# byte for byte, on gprMax's plane-wave scenes (tests/data/gprmax/plane_wave_{sphere,pec,
# vector,bscan}: their TFSF box faces fall on the 4-part and 8-part splits' rank boundaries,
# bscan's inside the CPML, with a magnetic dipole, a Debye sphere and two runs) and on
# tests/data/dist3d/planewave.in (box faces, edges and corners on the rank boundaries of
# 2x2x2, 3x1x1, 1x4x1 ..., a transmission line reading H across one). Decompositions 1x1x8,
# 2x2x2, 4x1x1, 8x1x1, uneven ones (3x1x1, 1x3x1, 2x1x3, 1x2x4) and the default split.
# GS_BACKEND picks the backend (cuda: skipped without a GPU), GS_MAX_RANKS limits the rank
# count, GS_TRANSPORTS the halo transports (default mpi-host; on cuda mpi-cuda too where the
# MPI is CUDA-aware, and ipc). Argument: the group (sphere, pec, vector, bscan, edges; default all).
set -u
source "$(dirname "${BASH_SOURCE[0]}")/ranks3_lib.sh" fdtd3d_ranks_pw "${1:-all}"
scene() { # GROUP FILES-LIST "DECOMPS" ARGS...: one rank, then each split (and the default 2-rank one)
  local name=$1 files=$2 decomps=$3; shift 3
  want "$name" || return 0
  run "$name-1" 1 "$@"
  grep -q "plane wave 1: m = " "$w/$name-1.log" || f "$name-1: no plane wave"
  for d in $decomps; do split "$name" "$files" "$d" "$@"; done
  if [ "$max" -ge 2 ]; then
    run "$name-auto" 2 "$@"
    same "$name-1" "$name-auto" $files
  fi
}

g=$src/tests/data/gprmax
# sphere, pec (nodes 0..40, boxes from node 9-11 to 29-31): 4 parts put boundaries on 10, 20, 30
scene sphere "receivers.csv plane_wave_sphere.h5" "4x1x1 1x1x8 2x2x2 1x3x1 2x1x1" "$g/plane_wave_sphere/plane_wave_sphere.in"
scene pec "receivers.csv plane_wave_pec.h5" "1x4x1 2x1x3 2x2x2" "$g/plane_wave_pec/plane_wave_pec.in"
# vector (nodes 0..30, box 7..23): 4 parts on 7, 15, 23
scene vector "receivers.csv plane_wave_vector.h5" "4x1x1 1x1x4 2x2x2 3x1x1 1x1x2" "$g/plane_wave_vector/plane_wave_vector.in"
scene bscan "receivers_run001.csv receivers_run002.csv plane_wave_bscan1.h5 plane_wave_bscan2.h5" \
  "2x2x2 4x1x1 3x1x1" "$g/plane_wave_bscan/plane_wave_bscan.in" -n 2
# edges (nodes 0..20): 2 parts on 10, 3 on 7 and 14, 4 on 5, 10, 15, 8 on 2 5 7 10 13 15 18
scene edges "receivers.csv planewave.h5" "2x2x2 3x1x1 1x3x1 1x1x3 1x4x1 8x1x1 2x1x3 1x2x4" \
  "$src/tests/data/dist3d/planewave.in"
echo "fdtd3d_ranks_pw ($b, $group): $([ $fail = 0 ] && echo ok || echo FAILED)"
exit $fail
