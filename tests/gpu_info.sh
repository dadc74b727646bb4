#!/usr/bin/env bash
# On a GPU machine: info with the CUDA backend names a GPU and its PCI bus id
# for every rank and prints the peer matrix; ranks on GPUs with peer access
# (or on one GPU) get the ipc halo transport. Skips (77) without a GPU.
set -u
command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1 || { echo "no GPU: skipped"; exit 77; }
n=$(nvidia-smi -L | wc -l)
[ "$n" -ge 2 ] || n=2 # two ranks on one GPU: ipc too
out=$("${GS_MPIEXEC:?}" -np "$n" --oversubscribe "${GS_BIN:?}" info --backend cuda --json) || exit 1
python3 - "$n" <<PY
import json, sys
n = int(sys.argv[1]); d = json.loads('''$out''')
ok = d["backend"] == "cuda" and len(d["ranks"]) == n and sorted(set(r["gpu"] for r in d["ranks"])) == list(range(len(d["nodes"][0]["peer_access"]))) \
     and all(r["pci_bus_id"] for r in d["ranks"]) \
     and all(d["halo_transport"][a][b] == ("-" if a == b else "ipc") for a in range(n) for b in range(n)
             if a == b or d["nodes"][0]["peer_access"][d["ranks"][a]["gpu"]][d["ranks"][b]["gpu"]] == 1
             or d["ranks"][a]["gpu"] == d["ranks"][b]["gpu"])
print("gpu_info:", "ok" if ok else "FAILED", d)
sys.exit(0 if ok else 1)
PY
