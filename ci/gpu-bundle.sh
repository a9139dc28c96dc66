#!/usr/bin/env bash
# Builds a portable bundle for an NVIDIA machine without package access (see docs/devices.md):
#   bin/      gradparity, the gp_test_* programs and the bench_* programs
#   lib/      the non-system shared libraries they need (fmt, benchmark, ... as .so files)
#   debs/     Debian archives of the loaders: ocl-icd-libopencl1, libvulkan1 and libglvnd
#   run.sh    unpacks debs/, points the OpenCL ICD loader at libnvidia-opencl.so.1 and the
#             Vulkan loader at nvidia_icd.json, then runs the parity run and the benchmarks.
# Usage: ci/gpu-bundle.sh [BUNDLE_DIR]   (default build/gpu-bundle; BUILD_DIR=build/bundle-build;
#        SKIP_BUILD=1 reuses BUILD_DIR as it is). Copy BUNDLE_DIR to the GPU machine and run
#        BUNDLE_DIR/run.sh [OUT_DIR].
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BUNDLE="$(realpath -m "${1:-$ROOT/build/gpu-bundle}")"
BUILD_DIR="$(realpath -m "${BUILD_DIR:-$ROOT/build/bundle-build}")"
# Loaders, libglvnd (the NVIDIA Vulkan driver needs it) and the Khronos validation layer.
LOADER_DEBS=(ocl-icd-libopencl1 libvulkan1 libegl1 libglvnd0 libopengl0 libgl1 libglx0 libgles2 vulkan-validationlayers)

if [[ "${SKIP_BUILD:-0}" != 1 ]]; then
  # libstdc++/libgcc static: the Debian 12 build then runs on newer and older distributions alike.
  cmake -S "$ROOT" -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release -DGP_WITH_OPENCL=ON -DGP_WITH_VULKAN=ON \
    -DGP_BUILD_TESTS=ON -DGP_BUILD_BENCHMARKS=ON \
    -DCMAKE_EXE_LINKER_FLAGS="-static-libstdc++ -static-libgcc"
  cmake --build "$BUILD_DIR" -j "$(nproc)"
fi

rm -rf "$BUNDLE"
mkdir -p "$BUNDLE/bin" "$BUNDLE/lib" "$BUNDLE/debs"
# Executables: the command, every test program and every benchmark program found in the build.
while IFS= read -r exe; do
  cp "$exe" "$BUNDLE/bin/"
done < <(find "$BUILD_DIR" -type f -perm -u+x \( -name gradparity -o -name 'gp_test_*' -o -name 'bench_*' \) \
           -not -path '*/CMakeFiles/*')
# Debug info would make the bundle several times larger; symbols stay for backtraces.
for exe in "$BUNDLE"/bin/*; do strip --strip-debug "$exe"; done
[[ -x "$BUNDLE/bin/gradparity" ]] || echo "warning: no gradparity binary in $BUILD_DIR (CLI not built?)" >&2

# Shared libraries that are neither glibc nor the loaders shipped as archives nor driver parts.
is_system_lib() {
  case "$1" in
    linux-vdso*|ld-linux*|libc.so*|libm.so*|libpthread.so*|libdl.so*|librt.so*|libresolv.so*) return 0 ;;
    libstdc++.so*|libgcc_s.so*) return 0 ;;  # linked statically in bundle builds; never shadow the host copy
    libOpenCL.so*|libvulkan.so*|libEGL*|libGL*|libOpenGL*|libGLX*|libGLES*|libGLdispatch*) return 0 ;;
  esac
  return 1
}
for exe in "$BUNDLE"/bin/*; do
  ldd "$exe" 2>/dev/null | awk '/=> \// {print $1, $3}' | while read -r name path; do
    is_system_lib "$name" || cp -n "$path" "$BUNDLE/lib/" 2>/dev/null || true
  done
done

(cd "$BUNDLE/debs" && chmod 777 . && apt-get download "${LOADER_DEBS[@]}") ||
  echo "warning: apt-get download failed; copy the .deb files of ${LOADER_DEBS[*]} into $BUNDLE/debs" >&2

cat > "$BUNDLE/env.sh" <<'ENV'
# Sourced: sets up the loaders and drivers of an NVIDIA machine without package access.
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

# 1. Loaders from the Debian archives (no root needed).
ROOTFS="$HERE/rootfs"
if [[ ! -d "$ROOTFS/usr" ]]; then
  mkdir -p "$ROOTFS"
  for deb in "$HERE"/debs/*.deb; do
    [[ -e "$deb" ]] || continue
    if command -v dpkg-deb >/dev/null; then
      dpkg-deb -x "$deb" "$ROOTFS"
    else  # ar + tar fallback
      tmp="$(mktemp -d)"; (cd "$tmp" && ar x "$deb" && tar -xf data.tar.* -C "$ROOTFS"); rm -rf "$tmp"
    fi
  done
fi
export LD_LIBRARY_PATH="$HERE/lib:$ROOTFS/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}"
# The validation layer's manifest names its library by file name, found via LD_LIBRARY_PATH.
export VK_LAYER_PATH="$ROOTFS/usr/share/vulkan/explicit_layer.d${VK_LAYER_PATH:+:$VK_LAYER_PATH}"

# 2. OpenCL: a vendors folder naming the NVIDIA library (its ICD file is often missing).
NV_OCL=""
for dir in /usr/lib/x86_64-linux-gnu /usr/local/nvidia/lib64 /usr/local/nvidia/lib /usr/lib64 /usr/lib \
           /usr/lib/x86_64-linux-gnu/nvidia/current /usr/local/cuda/lib64 /run/nvidia/driver/usr/lib/x86_64-linux-gnu; do
  if [[ -e "$dir/libnvidia-opencl.so.1" ]]; then NV_OCL="$dir/libnvidia-opencl.so.1"; break; fi
done
if [[ -z "$NV_OCL" ]]; then
  NV_OCL="$(ldconfig -p 2>/dev/null | awk '/libnvidia-opencl.so.1/ {print $NF; exit}')"
fi
if [[ -n "$NV_OCL" ]]; then
  mkdir -p "$HERE/vendors"
  echo "$NV_OCL" > "$HERE/vendors/nvidia.icd"
  export OCL_ICD_VENDORS="$HERE/vendors"
  echo "OpenCL: $NV_OCL"
else
  echo "OpenCL: libnvidia-opencl.so.1 not found; using the system's ICD setup" >&2
fi

# 3. Vulkan: the NVIDIA ICD JSON.
for f in /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json /usr/share/vulkan/icd.d/nvidia_icd.json \
         /etc/vulkan/icd.d/nvidia_icd.json /usr/local/share/vulkan/icd.d/nvidia_icd.json; do
  if [[ -f "$f" ]]; then export VK_DRIVER_FILES="$f"; echo "Vulkan: $f"; break; fi
done
[[ -n "${VK_DRIVER_FILES:-}" ]] || echo "Vulkan: nvidia_icd.json not found" >&2

ENV

cat > "$BUNDLE/run.sh" <<'RUN'
#!/usr/bin/env bash
# Runs gradparity on an NVIDIA machine without package access. Adapt the variables below.
#   OUT (or $1)          where reports, test results and benchmark JSON go (default ./out)
#   BACKENDS             the --backend list (default opencl,vulkan)
#   GRADPARITY_ARGS      extra arguments for `gradparity run`
#   SEEDS                extra seeds for summary-only parity runs (e.g. "$(seq 2 20)")
#   GP_BENCH_MAX_MIB     largest benchmark size in MiB (default 1024)
#   GP_VK_BENCH_MIB, GP_VK_BENCH_REPEAT   bench_vulkan's tensor size and calls per submit (256, 16)
#   RUN_TESTS=0 / RUN_BENCH=0 / RUN_STRESS=0 skip the unit tests / benchmarks / stress runs
#   CONTROL_RUNS, CONTROLS   repetitions and names of the stress positive controls
#   BENCH_ARGS           extra Google Benchmark arguments (e.g. --benchmark_filter=...)
set -uo pipefail
source "$(cd "$(dirname "$0")" && pwd)/env.sh"
OUT="$(realpath -m "${1:-${OUT:-$HERE/out}}")"
BACKENDS="${BACKENDS:-opencl,vulkan}"
mkdir -p "$OUT"
status=0
# 4. The parity run (CLI: gradparity run --backend LIST --report-dir DIR).
if [[ -x "$HERE/bin/gradparity" ]]; then
  "$HERE/bin/gradparity" run --backend "$BACKENDS" --report-dir "$OUT/reports" ${GRADPARITY_ARGS:-} \
    2>&1 | tee "$OUT/gradparity.log" || status=1
fi
# 4b. More seeds: summary lines only (the report of the first run is the one kept).
for seed in ${SEEDS:-}; do
  line=$("$HERE/bin/gradparity" run --backend "$BACKENDS" --seed "$seed" --no-progress ${GRADPARITY_ARGS:-} 2>&1 | tail -1)
  echo "seed $seed: $line" | tee -a "$OUT/seeds.log"
  [[ "$line" == *" 0 FAIL, "*" 0 ERROR"* ]] || status=1
done
# 4c. Stress: normal mode on every backend, then each positive control (must be detected).
if [[ "${RUN_STRESS:-1}" == 1 && -x "$HERE/bin/gradparity" ]]; then
  stress=("$HERE/bin/gradparity" stress --no-progress --mode-timeout 120)
  "${stress[@]}" --backend "$BACKENDS" --dtype f32 --filter '^(?!.*64x128)' --threads 16 --iterations 200 \
    --report-dir "$OUT/stress" > "$OUT/stress.log" 2>&1 || status=1
  tail -12 "$OUT/stress.log"
  for i in $(seq 1 "${CONTROL_RUNS:-20}"); do
    # The unlocked shared cl_kernel races between clSetKernelArg and the enqueue. On an H200 that
    # window is narrow: 16 threads x 150 calls of single-kernel ops were caught in 5 of 20 runs,
    # 64 threads x 300 calls of multi-kernel ops (layer_norm, linear, ...) in 19 of 20.
    for control in "opencl opencl-shared-kernel --op layer_norm,linear,matmul,softmax,concat,cross_entropy --threads 64 --iterations 300" \
                   "vulkan vulkan-unlocked-queue --op add,exp --threads 16 --iterations 120" \
                   "vulkan vulkan-no-barrier --op cross_entropy,layer_norm --threads 2 --iterations 4"; do
      set -- $control
      backend=$1 fault=$2
      [[ " ${CONTROLS:-opencl-shared-kernel vulkan-unlocked-queue vulkan-no-barrier} " == *" $fault "* ]] || continue
      shift 2
      if "${stress[@]}" --backend "$backend" --inject "$fault" --mode shared --dtype f32 --filter '^(?!.*64x128)' "$@" \
           > "$OUT/control.log" 2>&1; then
        echo "control $fault run $i: NOT detected" | tee -a "$OUT/controls.log"
      else
        echo "control $fault run $i: detected ($(grep -Eo 'mismatch[a-z]* [0-9]+|SIGNAL[^ ]*|signal [0-9A-Z]+|SYNC-HAZARD[A-Z_-]*|UNASSIGNED-Threading[A-Za-z-]*' "$OUT/control.log" | sort | uniq -c | tr '\n' ' '))" >> "$OUT/controls.log"
      fi
    done
  done
  grep -c "detected (" "$OUT/controls.log" | sed 's/^/controls detected: /'
  for f in ${CONTROLS:-opencl-shared-kernel vulkan-unlocked-queue vulkan-no-barrier}; do
    echo "$f: $(grep -c "$f run [0-9]*: detected" "$OUT/controls.log")/${CONTROL_RUNS:-20} detected"
  done
fi
# 5. Unit tests of the backends (each writes gtest XML).
if [[ "${RUN_TESTS:-1}" == 1 ]]; then
  for t in "$HERE"/bin/gp_test_*; do
    [[ -x "$t" ]] || continue
    "$t" --gtest_output="xml:$OUT/tests/$(basename "$t").xml" > "$OUT/tests-$(basename "$t").log" 2>&1 || status=1
  done
fi
# 6. Benchmarks (device timers; JSON for later comparison).
if [[ "${RUN_BENCH:-1}" == 1 ]]; then
  export GP_BENCH_MAX_MIB="${GP_BENCH_MAX_MIB:-1024}"
  # bench_vulkan: 256 MiB tensors, 16 calls per command buffer (the steady state)
  export GP_VK_BENCH_MIB="${GP_VK_BENCH_MIB:-256}" GP_VK_BENCH_REPEAT="${GP_VK_BENCH_REPEAT:-16}"
  for b in "$HERE"/bin/bench_*; do
    [[ -x "$b" ]] || continue
    "$b" --benchmark_out="$OUT/$(basename "$b").json" --benchmark_out_format=json ${BENCH_ARGS:-} 2>&1 |
      tee "$OUT/$(basename "$b").log"
  done
fi
echo "results in $OUT (status $status)"
exit "$status"
RUN
chmod +x "$BUNDLE/run.sh"
echo "bundle: $BUNDLE ($(du -sh "$BUNDLE" | cut -f1))"
