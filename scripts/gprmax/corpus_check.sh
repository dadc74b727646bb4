#!/usr/bin/env bash
# Runs gpustencil on every gprMax input file (*.in) of one or more gprMax checkouts and prints a
# TSV: file, cells, outcome, message (docs/gprmax-corpus.md is this table for gprMax's own files).
#
#   scripts/gprmax/corpus_check.sh [-t SECONDS] [-s STEPS] [-m GIB] [-f REGEX] [LABEL=]CHECKOUT ... > corpus.tsv
#
# Each file runs unchanged, in place (relative files resolve beside it), with its outputs in a
# scratch folder that is deleted after it: `gpustencil fdtd FILE -o SCRATCH --stop-after STEPS`
# (default 2: the model is read, painted, allocated and stepped, its checks those of the whole
# run), under `timeout SECONDS` (default 120) and `ulimit -v GIB` GiB (default 16; the memory
# check then names at most that). Files with the same contents are run once, the first path
# kept (checkouts in the order given, paths sorted): gprMax's master and devel branches share
# some. MANIFEST.in (setuptools) is not a model. -f: only the files whose LABEL/PATH matches the
# extended regular expression (after the deduplication, so that the same file is kept).
#
# #python blocks run in GS_PYTHON (default: the first of python3, /usr/bin/python3 that imports
# numpy) with PYTHONPATH=$GS_CORPUS_PYTHONPATH:CHECKOUT, so gprMax 3's user_libs/ and gprMax 4's
# toolboxes/ import; gprMax 4's toolboxes also need a built gprMax 4 package first on the path
# (GS_CORPUS_PYTHONPATH=/path/to/built/gprMax-4-checkout).
#
# Outcomes: runs (exit 0; message: the memory the model needs); refused (exit 2, our one line);
# too-large (exit 2, "the model needs N GiB ... memory"); timeout (still going after SECONDS);
# crash (killed by a signal, or an exit status other than 0 and 2; message: the last line).
# Environment: GS_BIN (default build/gpustencil), GS_PYTHON, GS_CORPUS_PYTHONPATH, GS_WORK.
# A summary of the outcomes goes to stderr with each file's progress. Exit 0 when every file
# ran or was refused with one line (no crash or timeout), 1 otherwise, 2 on a usage error.
set -u
src=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
secs=120 steps=2 gib=16 only=
usage() { sed -n '2,9p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2; exit 2; }
while getopts t:s:m:f:h o; do
  case $o in
    f) only=$OPTARG ;;
    t) secs=$OPTARG ;;
    s) steps=$OPTARG ;;
    m) gib=$OPTARG ;;
    *) usage ;;
  esac
done
shift $((OPTIND - 1))
[ $# -ge 1 ] || usage
bin=${GS_BIN:-$src/build/gpustencil}
[ -x "$bin" ] || { echo "corpus_check: no gpustencil at $bin (set GS_BIN)" >&2; exit 2; }
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
py=
for p in ${GS_PYTHON:-} python3 /usr/bin/python3; do
  if "$p" -c "import numpy" > /dev/null 2>&1; then py=$(command -v "$p"); break; fi
done
[ -n "$py" ] || echo "corpus_check: no python3 with numpy: files with #python blocks will be refused" >&2
work=${GS_WORK:-${TMPDIR:-/tmp}/gs_work_${USER:-$(id -u)}}/corpus_check
rm -rf "$work" && mkdir -p "$work" || exit 2

# The model's cells from the file's own #domain and #dx_dy_dz (gprMax rounds domain / step);
# '-' where they are not plain lines (written by a #python block).
cells_of_file() {
  awk '/^#domain:/ { for (i = 2; i <= 4; i++) d[i] = $i; nd++ }
       /^#dx_dy_dz:/ { for (i = 2; i <= 4; i++) s[i] = $i; ns++ }
       END { if (nd != 1 || ns != 1 || s[2] * s[3] * s[4] == 0) { print "-"; exit }
             printf "%.0f x %.0f x %.0f\n", d[2] / s[2], d[3] / s[3], d[4] / s[4] }' "$1" 2> /dev/null
}

# reframe's geometry-object tests (gprMax 4 devel) read NAME_read.h5 and NAME_read_materials.txt,
# which its harness copies from a sibling test's #geometry_objects_write NAME output
# (reframe_tests/tests/mixins.py). Where a model's #geometry_objects_read file is missing beside it
# and a sibling .in that reads none writes NAME, the folder is copied to the scratch folder, the sibling run there
# first (one step) and its NAME files copied in under the _read names; the model runs in the copy,
# unchanged. Sets runfile (the file to run) and staged (a note for the message).
stage_reads() { # FILE RUNDIR
  local file=$1 run=$2 dir h5 mat name writer
  dir=$(dirname "$file") runfile=$file staged=
  read -r h5 mat < <(awk '/^#geometry_objects_read:/ { print $5, $6; exit }' "$file")
  [ -n "${h5:-}" ] && [ -n "${mat:-}" ] && [ ! -e "$dir/$h5" ] || return 0
  name=${h5%_read.h5}
  [ "$name" != "$h5" ] || return 0
  writer=$(grep -l "^#geometry_objects_write:.* ${name}[[:space:]]*\$" "$dir"/*.in 2> /dev/null |
           while IFS= read -r w; do grep -q '^#geometry_objects_read:' "$w" || echo "$w"; done | head -1)
  [ -n "$writer" ] || return 0
  cp -r "$dir" "$run/stage" || return 0
  (
    cd "$run/cwd" || exit 99
    ulimit -v $((gib * 1024 * 1024))
    exec timeout -k 10 "$secs" "$bin" fdtd "$run/stage/${writer##*/}" -o "$run/w" --stop-after 1 --backend cpu
  ) < /dev/null > "$run/stage.log" 2>&1
  cp "$run/w/$name.h5" "$run/stage/$h5" 2> /dev/null && cp "$run/w/${name}_materials.txt" "$run/stage/$mat" || return 0
  runfile=$run/stage/${file##*/}
  staged="; staged as reframe does: ${writer##*/} (one step) wrote $name.h5 and ${name}_materials.txt, copied as $h5 and $mat"
}

declare -A seen
declare -A counts
list=$work/files.txt
: > "$list"
for arg in "$@"; do
  case $arg in
    *=*) label=${arg%%=*} dir=${arg#*=} ;;
    *) dir=$arg label=$(basename "$(cd "$arg" 2> /dev/null && pwd)") ;;
  esac
  [ -d "$dir" ] || { echo "corpus_check: $dir: not a folder" >&2; exit 2; }
  dir=$(cd "$dir" && pwd)
  while IFS= read -r rel; do
    sum=$(sha1sum < "$dir/$rel" | cut -c1-40)
    if [ -n "${seen[$sum]:-}" ]; then
      echo "corpus_check: $label/$rel: the same as ${seen[$sum]}, not run again" >&2
      continue
    fi
    seen[$sum]=$label/$rel
    [ -z "$only" ] || grep -qE -- "$only" <<< "$label/$rel" || continue
    printf '%s\t%s\t%s\n' "$label" "$dir" "$rel" >> "$list"
  done < <(cd "$dir" && find . -name .git -prune -o -type f -name '*.in' ! -name MANIFEST.in -print |
             sed 's|^\./||' | LC_ALL=C sort)
done

printf 'file\tcells\toutcome\tmessage\n'
total=$(wc -l < "$list") k=0 bad=0
while IFS=$'\t' read -r label dir rel; do
  k=$((k + 1))
  file=$dir/$rel
  run=$work/run
  rm -rf "$run" && mkdir -p "$run/cwd"
  stage_reads "$file" "$run"
  (
    cd "$run/cwd" || exit 99
    ulimit -v $((gib * 1024 * 1024))
    export PYTHONPATH=${GS_CORPUS_PYTHONPATH:+$GS_CORPUS_PYTHONPATH:}$dir
    export GPUSTENCIL_DEBUG=1
    exec timeout -k 10 "$secs" "$bin" fdtd "$runfile" -o "$run/out" --stop-after "$steps" --backend cpu \
      ${py:+--python "$py"} --python-timeout "$secs" < /dev/null > "$run/log" 2>&1
  )
  rc=$?
  log=$run/log
  cells=$(grep -a '^fdtd: ' "$log" | grep -aoE '[0-9]+( x [0-9]+){1,2} cells of' | head -1 | sed 's/ cells of//')
  [ -n "$cells" ] || cells=$(cells_of_file "$file")
  # the one line of a refusal: the last "gpustencil:" line that is not a debug or notice line
  msg=$(grep -a '^gpustencil: ' "$log" | grep -av '^gpustencil: debug:\|^gpustencil: note:' | tail -1)
  [ -n "$msg" ] || msg=$(grep -av '^gpustencil: debug:' "$log" | tail -1)
  msg=${msg//$run\/stage\//$(dirname "$rel")/}
  msg=${msg//$dir\//}
  msg=${msg//$'\t'/ }
  case $rc in
    0)
      outcome=runs
      msg=$(sed -n 's/.*memory: rank needs \([0-9.]*\) GiB on the \([a-zA-Z]*\) and \([0-9.]*\) GiB of host memory.*/\1 \2 \3/p' "$log" |
            head -1 | awk 'function size(g) { return g >= 1 ? sprintf("%.1f GiB", g) : (g * 1024 >= 1 ? sprintf("%.0f MiB", g * 1024) : "under 1 MiB") }
                           { if ($2 == "host") printf "needs %s of host memory", size($1 + $3);
                             else printf "needs %s on the GPU, %s of host memory", size($1), size($3) }')
      msg+=$staged
      ;;
    2)
      if grep -q 'needs [0-9.]* GiB of [a-zA-Z]* memory' <<< "$msg"; then outcome=too-large; else outcome=refused; fi
      ;;
    124 | 137) outcome=timeout msg="still running after $secs s; last line: $msg" bad=$((bad + 1)) ;;
    *)
      if [ "$rc" -gt 128 ]; then outcome=crash msg="killed by signal $((rc - 128)); last line: $msg"
      else outcome=crash msg="exit status $rc; last line: $msg"; fi
      bad=$((bad + 1))
      ;;
  esac
  counts[$outcome]=$((${counts[$outcome]:-0} + 1))
  printf '%s\t%s\t%s\t%s\n' "$label/$rel" "$cells" "$outcome" "$msg"
  echo "corpus_check: [$k/$total] $label/$rel: $outcome" >&2
done < "$list"
rm -rf "$work/run"
summary="corpus_check: $total files:"
for o in runs refused too-large timeout crash; do summary+=" ${counts[$o]:-0} $o,"; done
echo "${summary%,}" >&2
[ "$bad" -eq 0 ]
