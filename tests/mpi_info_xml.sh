#!/usr/bin/env bash
# Placement on a synthetic two-socket node (HWLOC_XMLFILE): 4 CPU ranks split
# its 16 cores into disjoint sets of 4 whole cores, and binding is reported as
# not applied (the topology is not this machine's).
set -u
xml=${GS_SOURCE_DIR:?}/tests/data/two-socket-8gpu.xml
out=$(HWLOC_XMLFILE=$xml "${GS_MPIEXEC:?}" -np 4 --oversubscribe -x HWLOC_XMLFILE "${GS_BIN:?}" info --backend cpu --json 2>/dev/null) \
  || { echo "mpirun failed"; exit 1; }
python3 - <<PY
import json, sys
d = json.loads('''$out''')
sets = [r["cpuset"] for r in sorted(d["ranks"], key=lambda r: r["rank"])]
want = ["0-7", "8-15", "16-23", "24-31"]
ok = sets == want and not any(r["bound"] for r in d["ranks"])
print("mpi_info_xml:", "ok" if ok else f"FAILED: cpusets {sets}, want {want}")
sys.exit(0 if ok else 1)
PY
