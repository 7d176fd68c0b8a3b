#!/usr/bin/env bash
# bench/native/build.sh -- compile dumbbell_main.cc with g++ against the ns3 wheel.
#
# Usage: bench/native/build.sh [PYTHON]   (default: the repository's .venv/bin/python)
# Output: bench/native/build/dumbbell_main (git-ignored).
#
# The defines match the wheel's own build (release profile with logging and asserts
# compiled in), and -O2 matches cppyy's JIT (EXTRA_CLING_ARGS defaults to -O2 -march=native).
# Extra flags can be passed in CXXFLAGS, e.g. CXXFLAGS=-march=native.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
py="${1:-$root/.venv/bin/python}"
# Importing aqmlab.engines.ns3.loader does not import ns-3; run from a small folder anyway.
prefix="$(cd /tmp && "$py" -c 'from aqmlab.engines.ns3.loader import wheel_prefix; print(wheel_prefix())')"
mkdir -p "$here/build"
libs=()
for m in core stats network bridge traffic-control internet point-to-point applications; do
    libs+=("-lns3.44-$m")
done
set -x
g++ -std=c++20 -O2 ${CXXFLAGS:-} \
    -DNS3_LOG_ENABLE -DNS3_ASSERT_ENABLE -DNS3_BUILD_PROFILE_RELEASE \
    -I"$prefix/include" -I"$root/aqmlab/engines/ns3/cpp" \
    "$here/dumbbell_main.cc" -o "$here/build/dumbbell_main" \
    -L"$prefix/lib64" -Wl,-rpath,"$prefix/lib64" "${libs[@]}"
