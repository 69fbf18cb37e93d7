#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# A GPU-machine bundle of a build made in one of run.sh's roots (GStreamer 1.26 in debian13, 1.28
# in debian-unstable): ../shared/device/make-gst-bundle.sh run inside the root, plus that root's
# loader and C and C++ runtimes, which the GPU machine (Ubuntu 24.04, glibc 2.39) is too old for.
# Every program of the bundle then runs through the root's loader (bin/NAME is a wrapper of
# bin/.real/NAME, whose argv[0] is the wrapper's: a program that runs itself again, as bench-ipc
# runs its consumers, goes through the loader too); env.sh sets no LD_LIBRARY_PATH, so the machine's own programs keep its C library,
# and GST_REGISTRY_FORK=no, so GStreamer scans plugins in-process instead of starting its scanner.
#
#   tests/gpu/bundle-from-root.sh ROOT OUTDIR [BUILD_OUTPUT ...]     (from the project's root, as root)
#   e.g. tests/gpu/bundle-from-root.sh debian13 .gstbundle-1.26 build-debian13/gst/libgstg2g.so \
#          build-debian13/lib/libg2g.so* build-debian13/tests/test-vulkan-decode
# On the GPU machine: source OUTDIR/env.sh, then run the programs by name.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=${1:?usage: bundle-from-root.sh ROOT OUTDIR [BUILD_OUTPUT ...]}
out=${2:?usage: bundle-from-root.sh ROOT OUTDIR [BUILD_OUTPUT ...]}
shift 2
bundler=../shared/device/make-gst-bundle.sh
mkdir -p "build-$root"
cp "$bundler" "build-$root/make-gst-bundle.sh"
./run.sh _in-root "$root" bash "build-$root/make-gst-bundle.sh" "$out" "$@"
# The root's runtimes, and the wrappers that run the bundle's programs through its loader.
./run.sh _in-root "$root" sh -c "mkdir -p '$out/sys' && cp -L /lib64/ld-linux-x86-64.so.2 \
  /lib/x86_64-linux-gnu/libc.so.6 /lib/x86_64-linux-gnu/libm.so.6 /lib/x86_64-linux-gnu/libstdc++.so.6 \
  /lib/x86_64-linux-gnu/libgcc_s.so.1 /lib/x86_64-linux-gnu/libpthread.so.0 /lib/x86_64-linux-gnu/libdl.so.2 \
  /lib/x86_64-linux-gnu/librt.so.1 '$out/sys/'"
mkdir -p "$out/bin/.real"
for program in "$out"/bin/*; do
  [ -f "$program" ] || continue
  name=${program##*/}
  mv "$program" "$out/bin/.real/$name"
  cat >"$program" <<WRAP
#!/bin/sh
b=\$(cd "\$(dirname "\$0")/.." && pwd)
exec "\$b/sys/ld-linux-x86-64.so.2" --argv0 "\$0" --library-path "\$b/sys:\$b/lib" "\$b/bin/.real/$name" "\$@"
WRAP
  chmod +x "$program"
done
strip --strip-debug "$out"/bin/.real/* "$out"/lib/* "$out"/plugins/* 2>/dev/null || true
cat >"$out/env.sh" <<'ENV'
# source this on the GPU machine
_b=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
export GST_PLUGIN_SYSTEM_PATH=$_b/plugins GST_REGISTRY=/tmp/gst-bundle-registry-$(basename "$_b").bin
export GST_REGISTRY_FORK=no PATH=$_b/bin:$PATH
unset _b
ENV
du -sh "$out" | awk '{print "bundle: " $1 " in " $2}'
