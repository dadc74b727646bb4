# Sourced by the GPU machine's scripts: strict mode, the repository root as the working
# directory ($here), the output folder ($out: $OUT, or ./gpu-out), and the Debian packages the
# machine lacks (libdeflate, ISA-L) unpacked from .carry/.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=${OUT:-$here/gpu-out}; mkdir -p "$out"
cd "$here"
for deb in .carry/*.deb; do [ -f "$deb" ] && dpkg -i "$deb" >/dev/null 2>&1; done
ldconfig
