#!/usr/bin/env bash
# `mpirun -np N gpustencil info --backend cpu --json`: one row per rank,
# ranks 0..N-1, valid JSON, cpusets that are disjoint while ranks do not
# outnumber cores, and the halo transport matrix (mpi-host on the CPU backend).
set -u
n=${1:?ranks}
out=$("${GS_MPIEXEC:?}" -np "$n" --oversubscribe "${GS_BIN:?}" info --backend cpu --json) || { echo "mpirun failed"; exit 1; }
python3 - "$n" "$(nproc)" <<PY
import json, sys
n, cores = int(sys.argv[1]), int(sys.argv[2])
d = json.loads('''$out''')
fail = 0
def check(c, msg):
    global fail
    if not c: print("FAIL:", msg); fail += 1
check(d["world_size"] == n, "world_size")
check(sorted(r["rank"] for r in d["ranks"]) == list(range(n)), "ranks")
check(all(r["gpu"] == -1 and r["pci_bus_id"] is None for r in d["ranks"]), "cpu rows")
check(sorted(r["local_rank"] for r in d["ranks"]) == list(range(n)), "local ranks")
check(len(d["nodes"]) == 1, "one node")
def cpus(s):
    out = set()
    for part in s.split(","):
        a, _, b = part.partition("-"); out |= set(range(int(a), int(b or a) + 1))
    return out
sets = [cpus(r["cpuset"]) for r in d["ranks"]]
check(all(sets), "every rank has cores")
check(d["halo_transport"] == [["-" if a == b else "mpi-host" for b in range(n)] for a in range(n)], "halo transport matrix")
if n <= cores:
    check(sum(len(s) for s in sets) == len(set().union(*sets)), "disjoint cpusets")
print(f"mpi_info {n}: {'ok' if not fail else 'FAILED'}")
sys.exit(1 if fail else 0)
PY
