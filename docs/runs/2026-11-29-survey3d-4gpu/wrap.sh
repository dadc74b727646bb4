#!/bin/bash
# times one rank's process from exec to exit (epoch seconds) into /tmp/wrap_times.txt
s=$(date +%s.%N)
[ "${GS_WRAP_VIS:-0}" = 1 ] && export CUDA_VISIBLE_DEVICES=$OMPI_COMM_WORLD_LOCAL_RANK
"$@"; rc=$?
echo "rank ${OMPI_COMM_WORLD_RANK:-?} exec $s exit $(date +%s.%N)" >> /tmp/wrap_times.txt
exit $rc
