#!/bin/bash
# The 40-trace Debye survey beside gprMax's task farm on 1 and 4 GPUs; the early-start GPU tests
source scripts/gpu_prologue.sh
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
GS_SURVEY_GPUS="1 4" GS_SURVEY_MODELS=gpr_debye_bscan:40 GS_SURVEY_BUDGET_S=${BUDGET:-515} bash scripts/survey_peer.sh > /dev/null 2>&1
sed -n '/^model /,$p' $out/survey_peer.txt
grep -E "^== |wall|steps in|survey:" $out/survey_peer.txt | head -30
(cd build-gpu && timeout 40 ctest -R "^(gpu_early_start|gpu_info_cuda)$" --output-on-failure > $out/ctest.log 2>&1); grep -E "Test +#|FAIL|ok" $out/ctest.log
