#!/usr/bin/env bash
# Command-line behaviour on one process: version, help, one-line usage errors
# with exit status 2.
set -u
bin=${GS_BIN:?}
fail=0; checks=0
expect() { # expect STATUS PATTERN -- command...
  local want=$1 pat=$2; shift 3
  local out rc
  out=$("$@" 2>&1); rc=$?
  checks=$((checks + 1))
  if [ "$rc" != "$want" ] || ! grep -qE -- "$pat" <<<"$out"; then
    echo "FAIL: '$*' -> rc=$rc (want $want), output:"; echo "$out" | sed 's/^/    /'
    fail=$((fail + 1))
  fi
}
one_line() { # the error is exactly one line on stderr
  local n; n=$("$@" 2>&1 >/dev/null | wc -l); checks=$((checks + 1))
  if [ "$n" != 1 ]; then echo "FAIL: '$*' printed $n stderr lines, want 1"; fail=$((fail + 1)); fi
}
expect 0 '^gpustencil [0-9]+\.[0-9]+\.[0-9]+$' -- "$bin" --version
expect 0 'usage: gpustencil COMMAND' -- "$bin" --help
expect 2 'usage: gpustencil COMMAND' -- "$bin"
for c in info scale fdtd bench; do
  expect 0 "usage: gpustencil $c" -- "$bin" $c --help
  expect 0 'backend' -- "$bin" $c --help
done
expect 2 "unknown command 'frobnicate'" -- "$bin" frobnicate
expect 2 "info: unknown option '--bogus' \(try 'gpustencil info --help'\)" -- "$bin" info --bogus
expect 2 "--backend: 'gpu' is not one of auto\|cuda\|cpu" -- "$bin" info --backend gpu
expect 2 "--bind needs a value" -- "$bin" info --bind
one_line "$bin" info --backend cpu --bogus
one_line "$bin" info --backend gpu
expect 0 '"ranks":\[' -- "$bin" info --backend cpu --json
expect 0 'bound' -- "$bin" info --backend cpu --bind none
echo "cli_basics: $checks checks, $fail failed"
[ $fail = 0 ]
