#!/bin/bash
# gprMax 4's CUDA solver beside ours on one H200: cubes 100^3-400^3 and the GPR scenes (scripts/gprmax_peer.sh).
source scripts/gpu_prologue.sh
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
t0=$(date +%s); log(){ echo "== [$(( $(date +%s)-t0 )) s] $*"; }
GS_PEER_BUDGET_S=${BUDGET:-400} bash scripts/gprmax_peer.sh > /dev/null 2>&1
sed -n '/^model /,$p' $out/peer.txt | head -30
log peer
