#!/usr/bin/env bash
# Installs pbsim's Debian packages (only the missing ones), builds, and then runs the default demo
# (no argument) or the whole test suite (--test). Safe to run again: every step is idempotent.
set -euo pipefail
cd "$(dirname "$0")/.."

mode=demo
case "${1:-}" in
  "") ;;
  --test) mode=test ;;
  *) echo "usage: bash scripts/setup.sh [--test]" >&2; exit 2 ;;
esac

packages=(build-essential cmake pkg-config git petsc-dev libsuitesparse-dev libopenmpi-dev openmpi-bin
          libgsl-dev libyaml-dev libhdf5-openmpi-dev check libopenblas0-pthread libcairo2-dev gnuplot-nox valgrind)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "pbsim setup: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo=sudo
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

build=${PBSIM_BUILD_DIR:-build}
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build "$build" -j "$(nproc)"

# Open MPI refuses to run as root unless told; CI and containers run as root.
if [ "$(id -u)" -eq 0 ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi

if [ "$mode" = demo ]; then
  "$build/pbsim" run configs/cloth.yaml -o out/demo
  echo "pbsim setup: demo frames in out/demo (open out/demo/cloth.pvd in ParaView; PNG snapshots out/demo/*.png)"
else
  ctest --test-dir "$build" --output-on-failure -j 2 -LE "fuzz|valgrind|long"  # on request: ctest -L valgrind, -L long; ctest -L fuzz in a PBSIM_FUZZ build
fi
