# Shared by the batch scripts in jobs/: find gpustencil, print a header, and
# launch one rank per task with srun (or Open MPI's mpirun).
gs_bin() {
  if [ -n "${GS_BIN:-}" ]; then echo "$GS_BIN"; return; fi
  if command -v gpustencil > /dev/null; then command -v gpustencil; return; fi
  echo "${SLURM_SUBMIT_DIR:-$PWD}/build/gpustencil"
}

gs_header() {
  echo "gpustencil $1: job ${SLURM_JOB_ID:-?}${SLURM_ARRAY_TASK_ID:+ (array task $SLURM_ARRAY_TASK_ID)}," \
       "${SLURM_JOB_NUM_NODES:-1} node(s) [${SLURM_JOB_NODELIST:-$(hostname)}], ${SLURM_NTASKS:-1} task(s)," \
       "${SLURM_CPUS_PER_TASK:-?} CPU(s) per task, started $(date -Is)"
}

gs_launch() {
  local bin
  bin=$(gs_bin)
  if [ ! -x "$bin" ]; then
    echo "gpustencil not found at '$bin': set GS_BIN or put gpustencil on PATH" >&2
    exit 2
  fi
  if [ "${GS_CUDA_AWARE_MPI:-0}" = 1 ]; then
    export OMPI_MCA_opal_cuda_support=true UCX_MEMTYPE_CACHE=n
  fi
  local rc=0
  # gpustencil binds each rank near its GPU itself (hwloc, --bind auto), inside
  # the CPUs Slurm gave the job, so the launchers do not bind.
  if [ "${GS_LAUNCHER:-srun}" = mpirun ]; then
    mpirun --bind-to none "$bin" "$@" || rc=$?
  else
    srun --mpi="${GS_SRUN_MPI:-pmix}" --cpu-bind=none "$bin" "$@" || rc=$?
  fi
  echo "gpustencil $1: finished $(date -Is) with exit status $rc"
  return $rc
}

# The fdtd job of fdtd.sbatch and survey.sbatch: SCENE [fdtd options]. Adds -o SCENE_out when no
# -o is given, --checkpoint-every from GS_CHECKPOINT_EVERY, and --restart when the output folder
# holds a checkpoint or a survey's markers (a resubmitted or requeued job goes on).
gs_fdtd_job() {
  local scene=$1
  shift
  local args=("$@") outdir="" prev="" a
  for a in "$@"; do
    case $a in --output=*) outdir=${a#--output=} ;; esac
    case $prev in -o | --output) outdir=$a ;; esac
    prev=$a
  done
  if [ -z "$outdir" ]; then
    outdir=$(basename "$scene" .in)_out
    args+=(-o "$outdir")
  fi
  if [ -n "${GS_CHECKPOINT_EVERY:-}" ]; then
    args+=(--checkpoint-every "$GS_CHECKPOINT_EVERY")
  fi
  if [ -f "$outdir/checkpoint.gsck" ] || [ -f "$outdir/checkpoint.manifest" ] || [ -d "$outdir/.survey" ]; then
    echo "restarting from the checkpoint in $outdir"
    args+=(--restart "$outdir")
  fi
  gs_header fdtd
  gs_launch fdtd --backend "${GS_BACKEND:-auto}" "$scene" "${args[@]}"
}
