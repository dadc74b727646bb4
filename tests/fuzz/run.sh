#!/usr/bin/env bash
# usage: run.sh TARGET SECONDS
# Builds the libFuzzer target TARGET (tests/fuzz/TARGET.c) with ASan and UBSan in a build of its
# own, then fuzzes it for SECONDS from the seed corpus tests/fuzz/corpus/KIND, with a 300 MB
# limit on any one allocation and on the process's resident memory beyond ASan's shadow (the
# bound for any one bad input: -malloc_limit_mb=300, -rss_limit_mb=400), and
# 10 s per input.
# Exit 0: no finding; 1: a crash, leak, hang, undefined behaviour or memory blow-up, whose input is
# kept in $GS_WORK/fuzz-TARGET/ (crash-*, leak-*, timeout-*, oom-*) and printed as a path;
# 77: no clang here. Extra corpus found along the way stays in $GS_WORK/fuzz-TARGET/corpus.
set -euo pipefail
target=${1:?target}
seconds=${2:-60}
src=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
work=${GS_WORK:-/tmp/gs-fuzz}
cc=$(command -v clang-14 || command -v clang || true)
[ -n "$cc" ] || { echo "clang not installed (apt-get install clang-14 libclang-rt-14-dev): skipped"; exit 77; }
build=$work/fuzz-build
mkdir -p "$build" "$work/fuzz-$target/corpus"
kind=${target#fuzz_}
flags="-fsanitize=address,undefined,fuzzer-no-link -fno-sanitize-recover=undefined -fno-omit-frame-pointer -g -O1"
# ctest may start several fuzz tests at once: one of them configures and builds at a time.
(
  flock 9
  if [ ! -f "$build/CMakeCache.txt" ]; then
    CC=$cc cmake -S "$src" -B "$build" -DGPUSTENCIL_CUDA=OFF -DGPUSTENCIL_FUZZ=ON -DBUILD_TESTING=OFF \
      -DCMAKE_BUILD_TYPE=Debug "-DCMAKE_C_FLAGS=$flags" >"$build/configure.log" 2>&1 ||
      { cat "$build/configure.log"; exit 1; }
  fi
  cmake --build "$build" --target "$target" -j 2 >"$build/build-$target.log" 2>&1 ||
    { tail -30 "$build/build-$target.log"; exit 1; }
) 9>"$work/fuzz-build.lock"
cd "$work/fuzz-$target"
rm -f crash-* leak-* timeout-* oom-*
# A small quarantine keeps ASan's own memory out of the way of the 300 MB bound.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1:quarantine_size_mb=16}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
set +e
"$build/tests/fuzz/$target" -max_total_time="$seconds" -rss_limit_mb=400 -malloc_limit_mb=300 -timeout=10 \
  -print_final_stats=1 -artifact_prefix="$PWD/" corpus "$src/tests/fuzz/corpus/$kind" 2>fuzz.log
rc=$?
set -e
grep -E '^stat::number_of_executed_units|^#[0-9]+ *DONE|^Done' fuzz.log | tail -2 || true
found=$(ls crash-* leak-* timeout-* oom-* 2>/dev/null || true)
if [ $rc -ne 0 ] || [ -n "$found" ]; then
  grep -E 'ERROR|SUMMARY|runtime error|==[0-9]+==' fuzz.log | head -20
  for f in $found; do echo "finding: $PWD/$f"; done
  exit 1
fi
echo "$target: no finding in ${seconds} s"
