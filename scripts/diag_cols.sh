#!/usr/bin/env bash
# Diagnosis of the columns form on chip (issue #20, docs/performance.md "Session 13"): 600 x 300
# with and without CPML in each form, then Nsight Compute stall reasons of the regs form. GPU machine.
source "$(dirname "${BASH_SOURCE[0]}")/gpu_prologue.sh"
cmake -S . -B build-gpu -DCMAKE_CUDA_ARCHITECTURES=90 > $out/cmake.log 2>&1 && cmake --build build-gpu -j 16 --target gpustencil > $out/build.log 2>&1 || { tail $out/build.log; exit 1; }
b=build-gpu/gpustencil
for pml in 10 0; do
  printf "#domain: 0.6 0.3 0.001\n#dx_dy_dz: 0.001 0.001 0.001\n#time_window: 2000\n#pml_cells: $pml\n#waveform: ricker 1 3e9 w\n#hertzian_dipole: z 0.3 0.15 0 w\n#rx: 0.35 0.15 0\n" > /tmp/s$pml.in
  for f in tiles ez regs; do echo "600x300 pml $pml form $f: $(GS_FDTD_RUN_FORM=$f GPUSTENCIL_ONCHIP=1 $b fdtd /tmp/s$pml.in -o /tmp/o$pml$f 2>&1 | grep -E 'steps in')"; done
  sed 's/#time_window: 2000/#time_window: 100/' /tmp/s$pml.in > /tmp/t$pml.in
  GS_FDTD_RUN_FORM=regs GPUSTENCIL_ONCHIP=1 timeout 200 ncu --kernel-name regex:cols_kernel --launch-count 1 --section WarpStateStats --section InstructionStats --section SchedulerStats --section LaunchStats --section Occupancy --metrics "regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio" $b fdtd /tmp/t$pml.in -o /tmp/n$pml > $out/ncu_pml$pml.txt 2>&1
  grep -iE "issue_stalled|No Instruction|Duration|Registers|Executed Ipc|Warp Cycles|Block Size|Grid Size" $out/ncu_pml$pml.txt | head -30
done
