#!/usr/bin/env bash
# Installs every Debian package gradparity needs (build, tests, OpenCL on PoCL, Vulkan on
# lavapipe with validation layers). Idempotent: installs only what is missing.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config git clang-format clang-tidy  # clang-*: ci/lint.sh
  lld  # the ci preset's linker
  libeigen3-dev libfmt-dev nlohmann-json3-dev libcli11-dev
  libgtest-dev libgmock-dev libbenchmark-dev python3-numpy
  chromium  # tests/html: parity.html rendered in a real headless browser
  libboost-dev libmpfr-dev  # reference/oracle: MPFR through Boost.Multiprecision
  libxxhash-dev libzstd-dev  # harness/check/reference_cache: content keys, checksums, compression
  opencl-headers opencl-clhpp-headers ocl-icd-opencl-dev pocl-opencl-icd clinfo
  libclblast-dev  # plugins/clblast, ctest plugin/clblast
  libvulkan-dev mesa-vulkan-drivers glslc vulkan-validationlayers vulkan-tools spirv-tools
  libdnnl-dev  # plugins/onednn: oneDNN 2.6, verified through the plugin ABI (ctest plugin/onednn)
  libtorch-dev  # plugins/libtorch: PyTorch 1.13's CPU kernels, verified the same way (ctest plugin/libtorch)
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#packages[@]} packages present"
  exit 0
fi
echo "setup: installing ${missing[*]}"
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
