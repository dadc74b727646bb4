#!/usr/bin/env bash
# Where the warps of the on-chip 2D kernels wait: Nsight Compute's per-instruction stall samples of
# one launch (256 steps) on 2000 x 1000 with a 10-cell CPML, for each form of GS_COLS_FORMS (tiles:
# run_kernel, ez/regs: cols_kernel), folded by ncu_barrier_share.py into the share of samples
# waiting at each barrier and by ncu_top_sass.py into the instructions that issue and wait most.
# GS_DIAG_DOMAIN: the domain's x and y in metres at 1 mm cells (default "2 1"); GS_DIAG_CUTS: the
# tiles form's cuts (GS_FDTD_RUN_CUT) to profile; GS_DIAG_PML: the CPML's cells; GS_DIAG_TUNING:
# -D flags of the build (a CMake list, several separated by ";"); with GS_FDTD_RUN_PROBES there,
# GS_DIAG_PROBES names the probes of run_kernel to profile (kernels/fdtd_run_tiles.cu); GS_DIAG_NCU_ARGS:
# more ncu options (e.g. "--set full"; the SASS with its CUDA lines is kept as sass_cuda_*.csv).
# GPU machine; outputs in $OUT (or ./gpu-out).
source "$(dirname "${BASH_SOURCE[0]}")/../gpu_prologue.sh"
# (a build of its own: -lineinfo must not leak into build-gpu, which the other scripts time)
cmake -S . -B build-lineinfo -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_CUDA_FLAGS=-lineinfo \
  -DGPUSTENCIL_SCALE_TUNING="${GS_DIAG_TUNING:-}" > "$out/cmake.log" 2>&1 &&
  cmake --build build-lineinfo -j 16 --target gpustencil > "$out/build.log" 2>&1 || { tail "$out/build.log"; exit 1; }
b=build-lineinfo/gpustencil
pml=${GS_DIAG_PML:-10}
read -r dx dy <<< "${GS_DIAG_DOMAIN:-2 1}" # (metres at 1 mm cells; the source in the middle)
read -r sx sy rx <<< "$(awk -v x="$dx" -v y="$dy" 'BEGIN { d = x / 4 < 0.02 ? x / 4 : 0.02; print x / 2, y / 2, x / 2 + d }')"
case " ${GS_DIAG_PROBES:-0} " in
  " 0 ") ;;
  *) [[ "${GS_DIAG_TUNING:-}" == *GS_FDTD_RUN_PROBES* || "${GS_DIAG_TUNING:-}" == *GS_FDTD_RUN_CLOCK* ]] ||
    { echo "ncu_onchip_stalls: GS_DIAG_PROBES needs GS_FDTD_RUN_PROBES in GS_DIAG_TUNING" >&2; exit 2; } ;;
esac
printf "#domain: $dx $dy 0.001\n#dx_dy_dz: 0.001 0.001 0.001\n#time_window: 300\n#pml_cells: $pml\n" > /tmp/s.in
printf "#waveform: ricker 1 3e9 w\n#hertzian_dipole: z $sx $sy 0 w\n#rx: $rx $sy 0\n" >> /tmp/s.in
for form in ${GS_COLS_FORMS:-tiles regs}; do
  for cut in ${GS_DIAG_CUTS:--}; do # GS_FDTD_RUN_CUT of the tiles form ("-": the plan's own)
    for probe in ${GS_DIAG_PROBES:-0}; do # run_kernel<probe> of a GS_FDTD_RUN_PROBES build
      [ "$form" = tiles ] || [ "$probe" = 0 ] || continue # (the columns form has no probes)
      kernel=cols_kernel; [ "$form" = tiles ] && kernel=run_kernel
      tag=$form; [ "$cut" = - ] || tag=$form-$cut
      [ "$probe" = 0 ] || tag=$tag-probe$probe
      GS_FDTD_RUN_PROBE=$probe GS_FDTD_RUN_CUT=${cut#-} GS_FDTD_RUN_FORM=$form GPUSTENCIL_ONCHIP=1 timeout 300 ncu --kernel-name "regex:$kernel" \
        --launch-count 1 --import-source yes --section SourceCounters --section WarpStateStats ${GS_DIAG_NCU_ARGS:-} -o "/tmp/rep-$tag" -f \
        $b fdtd /tmp/s.in -o "/tmp/o-$tag" > "$out/ncu_$tag.txt" 2>&1
      ncu -i "/tmp/rep-$tag.ncu-rep" --page source --csv --print-source sass > "/tmp/sass-$tag.csv" 2> "$out/sass_$tag.err"
      ncu -i "/tmp/rep-$tag.ncu-rep" --page source --csv --print-source cuda,sass > "$out/sass_cuda_$tag.csv" 2>> "$out/sass_$tag.err"
      echo "== form $form, cut $cut, probe $probe, domain $dx x $dy m in 1 mm cells, $pml-cell CPML ($kernel)"
      ncu -i "/tmp/rep-$tag.ncu-rep" --page details > "$out/details_$tag.txt" 2>&1
      grep -E "Warp Cycles Per Issued|Block Size|Grid Size|Registers|Duration" "$out/details_$tag.txt" | head -5
      python3 scripts/diag/ncu_barrier_share.py "/tmp/sass-$tag.csv"
      python3 scripts/diag/ncu_top_sass.py "/tmp/sass-$tag.csv" 12
    done
  done
done 2>&1 | tee "$out/barrier_share.txt"
