#!/usr/bin/env bash
# The batch scripts in jobs/ under a real Slurm: installs Debian's slurmctld,
# slurmd and munge when missing, writes a one-node CPU-only slurm.conf (with four
# fake "gpu" GRES, empty files, so that --gpus-per-task works) under a temporary
# folder, starts munged, slurmctld and slurmd on this machine, submits each
# script with the CPU backend on small inputs (sbatch --wait), checks job
# states and outputs, and stops every daemon it started, also on failure.
# Skips (77) when not root. GS_SLURM_KEEP=1 keeps the folder for inspection.
set -u
if [ "$(id -u)" != 0 ]; then
  echo "slurm test skipped: starting slurmd and munged needs root"
  exit 77
fi
src=${GS_SOURCE_DIR:?}; bin=${GS_BIN:?}; mk=${GS_MKPNG:?}
missing=()
for p in slurmctld slurmd slurm-client munge; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing ${missing[*]}"
  apt-get update -qq > /tmp/gs-slurm-apt.log 2>&1
  if ! apt-cache show "${missing[@]}" > /dev/null 2>&1; then
    # No package registry (the GPU machines have none): nothing to test with.
    echo "slurm test skipped: ${missing[*]} missing and not installable here (no package registry)"
    exit 77
  fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" \
    >> /tmp/gs-slurm-apt.log 2>&1 || { echo "FAIL: apt-get install ${missing[*]}"; tail -5 /tmp/gs-slurm-apt.log; exit 1; }
fi

T=$(mktemp -d /tmp/gs-slurm.XXXXXX)
chmod 755 "$T"
host=$(hostname -s)
cpus=$(nproc)
# Ports of our own, away from a system Slurm's 6817/6818.
port=$((20000 + RANDOM % 20000))
pids=()
cleanup() {
  for f in "$T"/slurmd.pid "$T"/slurmctld.pid "$T"/munged.pid; do
    [ -f "$f" ] && kill "$(cat "$f")" 2>/dev/null
  done
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
  sleep 1
  for f in "$T"/slurmd.pid "$T"/slurmctld.pid "$T"/munged.pid; do
    [ -f "$f" ] && kill -9 "$(cat "$f")" 2>/dev/null
  done
  [ "${GS_SLURM_KEEP:-0}" = 1 ] && echo "kept $T" || rm -rf "$T"
}
trap cleanup EXIT

mkdir -p "$T/state" "$T/spool" "$T/work"
dd if=/dev/urandom of="$T/munge.key" bs=1024 count=1 status=none
chmod 400 "$T/munge.key"
munged --force --socket="$T/munge.sock" --key-file="$T/munge.key" --pid-file="$T/munged.pid" \
  --log-file="$T/munged.log" --seed-file="$T/munge.seed" || { echo "FAIL: munged did not start"; exit 1; }

cat > "$T/slurm.conf" <<EOF
ClusterName=gstest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
AuthType=auth/munge
AuthInfo=socket=$T/munge.sock
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$T/state
SlurmdSpoolDir=$T/spool
SlurmctldPidFile=$T/slurmctld.pid
SlurmdPidFile=$T/slurmd.pid
SlurmctldLogFile=$T/slurmctld.log
SlurmdLogFile=$T/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
GresTypes=gpu
MpiDefault=none
SchedulerType=sched/builtin
ReturnToService=2
MinJobAge=600
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=1000 Gres=gpu:4 State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP OverSubscribe=NO
EOF
# Slurm drops GPUs without device files, so each fake GPU gets an empty file.
touch "$T/fakegpu0" "$T/fakegpu1" "$T/fakegpu2" "$T/fakegpu3"
echo "NodeName=$host Name=gpu File=$T/fakegpu[0-3]" > "$T/gres.conf"
export SLURM_CONF=$T/slurm.conf
slurmctld -f "$SLURM_CONF" || { echo "FAIL: slurmctld"; cat "$T/slurmctld.log"; exit 1; }
slurmd -f "$SLURM_CONF" || { echo "FAIL: slurmd"; cat "$T/slurmd.log"; exit 1; }
for _ in $(seq 1 60); do
  state=$(sinfo -h -o %T 2>/dev/null | head -1)
  [ "$state" = idle ] && break
  sleep 0.5
done
if [ "$state" != idle ]; then
  echo "FAIL: the node did not become idle (state '$state')"
  tail -n 5 "$T/slurmctld.log" "$T/slurmd.log"
  exit 1
fi
echo "slurm up: $(sinfo -h -o '%N %T %c CPUs %G')"

fail=0
f() { echo "FAIL: $*"; fail=1; }
export GS_BIN=$bin GS_BACKEND=cpu
w=$T/work
cd "$w"
mkdir -p "$w/scans"
$mk "$w/scans/a.png" 640 480 grey 8 seed=1 && $mk "$w/scans/b.png" 300 200 rgb 8 seed=2 &&
  $mk "$w/scans/c.png" 123 77 grey 16 seed=3 && $mk "$w/scans/d.png" 50 60 palette 8 seed=4 || f "making images"
ntasks=$((cpus < 2 ? 1 : 2))
job() { # NAME SBATCH-ARGS... -- SCRIPT-ARGS...: submits, waits, checks the state
  local name=$1; shift
  local out rc id
  out=$(timeout 300 sbatch --wait --parsable -J "$name" -o "$w/$name-%j.out" "$@" 2>&1); rc=$?
  id=$(tail -1 <<<"$out" | cut -d';' -f1)
  local st
  st=$(scontrol show job "$id" 2>/dev/null | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p' | sort -u | tr '\n' ' ')
  echo "job $name ($id): sbatch exit $rc, state ${st:-?}"
  [ $rc = 0 ] && [[ "$st" == "COMPLETED " ]] || { f "job $name"; cat "$w/$name"-*.out 2>/dev/null | tail -20; }
}
job scale --ntasks-per-node=$ntasks --cpus-per-task=1 "$src/jobs/scale.sbatch" "$w/scans" "$w/scaled" --divisor 3
grep -q "scale: 4 done, 0 skipped, 0 failed .* on $ntasks rank(s)" "$w"/scale-*.out || f "scale summary: $(cat "$w"/scale-*.out)"
for x in a b c d; do "$mk" --check "$w/scaled/$x.png" || f "scaled/$x.png"; done
job scale-array --array=0-1 --ntasks-per-node=1 --cpus-per-task=1 "$src/jobs/scale-array.sbatch" "$w/scans" "$w/array" --divisor 3
n=$(ls "$w/array" | grep -c png); [ "$n" = 4 ] || f "array jobs made $n outputs, want 4"
for x in a b c d; do cmp -s "$w/array/$x.png" "$w/scaled/$x.png" || f "array output $x.png differs from the single job's"; done
grep -hq "scale shard 1/2" "$w"/scale-array-*.out || f "array header"
job fdtd --cpus-per-task=1 "$src/jobs/fdtd.sbatch" "$src/inputs/free_space.in" -o "$w/fs" --steps 200
grep -q "checksum Ez=" "$w"/fdtd-*.out && [ -s "$w/fs/receivers.csv" ] || f "fdtd outputs: $(cat "$w"/fdtd-*.out)"
# The grid split over 2 tasks: the same checksum as the 1-task job.
if [ "$ntasks" = 2 ]; then
  job fdtd-two --ntasks=2 --cpus-per-task=1 "$src/jobs/fdtd.sbatch" "$src/inputs/free_space.in" -o "$w/fs3" --steps 200
  grep -q "decomposition" "$w"/fdtd-two-*.out || f "2-task fdtd did not split the grid"
  [ "$(grep -h checksum "$w"/fdtd-[0-9]*.out)" = "$(grep -h checksum "$w"/fdtd-two-*.out)" ] || f "2-task checksum differs"
  cmp -s "$w/fs/receivers.csv" "$w/fs3/receivers.csv" || f "2-task receivers.csv differs"
fi
# A checkpointed job stopped early, then resubmitted: it restarts and ends with
# the unbroken run's checksum.
GS_CHECKPOINT_EVERY=50 job fdtd-part --cpus-per-task=1 "$src/jobs/fdtd.sbatch" "$src/inputs/free_space.in" -o "$w/fs2" --steps 200 --stop-after 120
job fdtd-rest --cpus-per-task=1 "$src/jobs/fdtd.sbatch" "$src/inputs/free_space.in" -o "$w/fs2" --steps 200
grep -q "restarting from the checkpoint" "$w"/fdtd-rest-*.out || f "resubmitted job did not restart"
[ "$(grep -h checksum "$w"/fdtd-[0-9]*.out)" = "$(grep -h checksum "$w"/fdtd-rest-*.out)" ] || f "restarted checksum differs"
# The documented mpirun alternative inside an allocation.
GS_LAUNCHER=mpirun OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
  job scale-mpirun --ntasks-per-node=$ntasks --cpus-per-task=1 "$src/jobs/scale.sbatch" "$w/scans" "$w/scaled2" --divisor 3
diff -r "$w/scaled" "$w/scaled2" > /dev/null || f "mpirun outputs differ from srun's"
# A survey over 2 tasks (one run a task; a 2D B-scan): one rank's files, byte for byte; then
# requeued after its markers of runs 2 and 4 and their files were removed (a job killed midway):
# the resubmission keeps the other runs' files (same inode and mtime) and ends with the same files.
"$bin" fdtd --backend cpu "$src/tests/data/gprmax/bscan_tmx/bscan_tmx.in" -n 4 -o "$w/sv1" > "$w/sv1.log" 2>&1 ||
  f "survey reference: $(tail -2 "$w/sv1.log")"
if [ "$ntasks" -ge 2 ]; then
  job survey --nodes=1 --ntasks-per-node=2 --cpus-per-task=1 "$src/jobs/survey.sbatch" \
    "$src/tests/data/gprmax/bscan_tmx/bscan_tmx.in" -n 4 -o "$w/sv2"
  grep -q "shared out over 2 groups of 1 rank" "$w"/survey-*.out || f "survey: runs not shared out: $(cat "$w"/survey-*.out)"
  sv=(bscan.png bscan_tmx1.h5 bscan_tmx2.h5 bscan_tmx3.h5 bscan_tmx4.h5 receivers_run001.csv receivers_run004.csv)
  for x in "${sv[@]}"; do cmp -s "$w/sv1/$x" "$w/sv2/$x" || f "survey: $x differs from one rank's"; done
  rm -f "$w/sv2/.survey/run000002.done" "$w/sv2/.survey/run000004.done" "$w/sv2/bscan_tmx2.h5" "$w/sv2/bscan_tmx4.h5"
  kept=$(stat -c "%i %Y" "$w/sv2/bscan_tmx1.h5" "$w/sv2/bscan_tmx3.h5")
  job survey-again --nodes=1 --ntasks-per-node=2 --cpus-per-task=1 "$src/jobs/survey.sbatch" \
    "$src/tests/data/gprmax/bscan_tmx/bscan_tmx.in" -n 4 -o "$w/sv2"
  grep -q "restarting from the checkpoint in $w/sv2" "$w"/survey-again-*.out || f "survey: the resubmission did not resume"
  [ "$(stat -c "%i %Y" "$w/sv2/bscan_tmx1.h5" "$w/sv2/bscan_tmx3.h5")" = "$kept" ] || f "survey: finished runs rewritten"
  for x in "${sv[@]}"; do cmp -s "$w/sv1/$x" "$w/sv2/$x" || f "survey (resumed): $x differs from one rank's"; done
fi
# A bad argument fails the job with the program's one-line message.
out=$(timeout 120 sbatch --wait -J bad -o "$w/bad-%j.out" --ntasks-per-node=1 --cpus-per-task=1 "$src/jobs/scale.sbatch" "$w/scans" "$w/x" --divisor 0 2>&1); rc=$?
[ $rc != 0 ] && grep -q "divisor" "$w"/bad-*.out || f "bad job: rc $rc, $(cat "$w"/bad-*.out)"
if [ -n "${GS_SLURM_SAMPLE:-}" ]; then cp "$w"/scale-[0-9]*.out "$GS_SLURM_SAMPLE"; fi
echo "slurm_jobs: $([ $fail = 0 ] && echo ok || echo FAILED)"
exit $fail
