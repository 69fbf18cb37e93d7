#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# g2g installed into a fresh Debian root, used with nothing set (run.sh's `test` runs it, as root):
#   tests/install/run-install-test.sh BUILD_DIR ROOT_DIR RESULTS_FILE
#   tests/install/run-install-test.sh --checks      the names of the checks, one a line
# BUILD_DIR: a build of this tree (-Dtests=disabled will do). ROOT_DIR: a Debian root holding what
# a user has, kept pristine: each prefix is installed (meson install --destdir) into the upper
# layer of an overlayfs over it, mounted in a mount namespace of its own, so every run starts from
# the fresh root. tests/install/checks.sh runs inside it; RESULTS_FILE gets one line per check,
# "NAME ok" or "NAME failed", which run.sh's summary counts.
set -euo pipefail
cd "$(dirname "$0")/../.."

# The prefixes: Debian's own, where nothing is to be set, and one of a user's, where env.sh is.
prefixes=("usr /usr" "opt /opt/g2g")
checks_of() {
  [ "$2" = /usr ] || printf "$1-%s\n" without-env env-twice
  printf "$1-%s\n" plugin python gi c-program
}

if [ "${1:-}" = --checks ]; then
  for entry in "${prefixes[@]}"; do checks_of $entry; done
  exit 0
fi
build_dir=$1 root=$2 results=$3
work=$PWD/$build_dir/install-test
rm -rf "$work" "$results"
mkdir -p "$work"

# The elements this build registers on this machine: the plugin file itself, inspected on the host.
elements=$(GST_REGISTRY=$work/host-registry.bin gst-inspect-1.0 "$build_dir/gst/libgstg2g.so" |
             sed -n 's/^  \(g2g[a-z]*\): .*/\1/p' | sort -u)
if [ -z "$elements" ]; then
  echo "gst-inspect-1.0 $build_dir/gst/libgstg2g.so lists no element" >&2
  exit 1
fi
echo "the elements of this build:" $elements

for entry in "${prefixes[@]}"; do
  read -r label prefix <<<"$entry"
  layer=$work/$label
  mkdir -p "$layer/upper" "$layer/work" "$layer/merged"
  if ! { meson configure "$build_dir" -Dprefix="$prefix" &&
         meson install -C "$build_dir" --destdir "$layer/upper"; } >"$layer/install.log" 2>&1; then
    tail -n 20 "$layer/install.log"
    echo "meson install --prefix=$prefix failed (log: $layer/install.log)" >&2
    continue
  fi
  # The checks and the C program travel in the layer; nothing of the checkout is seen inside.
  mkdir -p "$layer/upper/root/g2g-install-test"
  cp tests/install/checks.sh tests/install/classify.c "$layer/upper/root/g2g-install-test/"
  # shellcheck disable=SC2086 # the element names are words
  unshare --mount --propagation private bash -c '
    set -e
    root=$1 layer=$2; shift 2
    mount -t overlay overlay -o "lowerdir=$root,upperdir=$layer/upper,workdir=$layer/work" "$layer/merged"
    mount -t proc proc "$layer/merged/proc"
    mount --rbind /dev "$layer/merged/dev"
    mount --rbind /sys "$layer/merged/sys"
    exec chroot "$layer/merged" /usr/bin/env -i HOME=/root LANG=C.UTF-8 \
      PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
      sh /root/g2g-install-test/checks.sh "$@"
  ' _ "$root" "$layer" "$label" "$prefix" $elements | tee "$layer/checks.log" || true
  grep -E '^[a-z0-9-]+ (ok|failed)$' "$layer/checks.log" >>"$results" || true
done
# A check that did not run (its install failed, the root did not start) has no line: run.sh counts
# it as failed.
