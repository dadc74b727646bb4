#!/usr/bin/env bash
# A fatal error on one rank (injected with GPUSTENCIL_FAULT) ends every rank
# within 10 s, with a message naming the call, the rank and the host.
set -u
start=$(date +%s)
out=$(GPUSTENCIL_FAULT=info.gather@2 timeout 30 "${GS_MPIEXEC:?}" -np 4 --oversubscribe -x GPUSTENCIL_FAULT \
      "${GS_BIN:?}" info --backend cpu 2>&1)
rc=$?
took=$(( $(date +%s) - start ))
fail=0
[ $rc -ne 0 ] && [ $rc -ne 124 ] || { echo "FAIL: exit status $rc"; fail=1; }
[ $took -le 10 ] || { echo "FAIL: took ${took}s"; fail=1; }
grep -qE "fatal: info.gather failed: fault injected .*rank 2/4, host $(hostname)" <<<"$out" \
  || { echo "FAIL: message"; echo "$out"; fail=1; }
echo "mpi_fault: rc=$rc in ${took}s: $([ $fail = 0 ] && echo ok || echo FAILED)"
exit $fail
