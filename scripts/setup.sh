#!/usr/bin/env bash
# Installs what gpustencil needs to build and test on Debian 12 / Ubuntu 24.04,
# then configures and builds it in ./build (or $GS_BUILD_DIR).
# As root it runs apt-get itself; otherwise it prints the exact command and stops.
# CUDA is optional: the CUDA backend is built when nvcc is found
# (/usr/local/cuda/bin/nvcc or on PATH); without it the CPU backend is used.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${GS_BUILD_DIR:-$here/build}

pkgs=(cmake make gcc g++ pkg-config libopenmpi-dev openmpi-bin libhwloc-dev libpng-dev zlib1g-dev libdeflate-dev libisal-dev isal libhdf5-dev libfftw3-dev python3 ${GS_EXTRA_PKGS:-})
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  cmd="apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends ${missing[*]}"
  if [ "$(id -u)" = 0 ]; then
    echo "gpustencil setup: installing ${missing[*]}"
    sh -c "$cmd" >"${TMPDIR:-/tmp}/gpustencil-apt.log" 2>&1 || { tail -20 "${TMPDIR:-/tmp}/gpustencil-apt.log"; exit 1; }
  else
    echo "gpustencil setup: missing packages: ${missing[*]}" >&2
    echo "run as root:  sudo sh -c '$cmd'" >&2
    exit 1
  fi
fi

cuda_args=()
if [ -z "${GPUSTENCIL_CUDA:-}" ] && ! command -v nvcc >/dev/null && [ ! -x /usr/local/cuda/bin/nvcc ]; then
  echo "gpustencil setup: no nvcc found: building the CPU backend only"
fi
[ -n "${GPUSTENCIL_CUDA:-}" ] && cuda_args+=("-DGPUSTENCIL_CUDA=$GPUSTENCIL_CUDA")
[ -n "${CUDAARCHS:-}" ] && cuda_args+=("-DCMAKE_CUDA_ARCHITECTURES=$CUDAARCHS")
cmake -S "$here" -B "$build" -DCMAKE_BUILD_TYPE=${GS_BUILD_TYPE:-RelWithDebInfo} "${cuda_args[@]}" >/dev/null
cmake --build "$build" -j "$(nproc)"
echo "gpustencil setup: built $build/gpustencil"
