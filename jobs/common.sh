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
