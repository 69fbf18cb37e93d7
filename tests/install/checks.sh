#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Inside a fresh Debian root holding what a user has (no build packages) and g2g as `meson install`
# put it, with an empty environment: does each consumer find its part as a user meets it?
#   checks.sh LABEL PREFIX ELEMENT...   (run-install-test.sh runs it through chroot)
# With PREFIX /usr nothing is set; with any other it first proves that without the prefix's env.sh
# every consumer fails, then sources env.sh and asks again. One line per check: "LABEL-NAME ok" or
# "LABEL-NAME failed", after what the failing commands said.
set -u
label=$1 prefix=$2; shift 2
elements=$*
here=$(dirname "$0")
env_file=$prefix/share/g2g-1.0/env.sh
work=$(mktemp -d)

# check NAME COMMAND...: COMMAND's words are shown only when it fails.
check() {
  name=$1; shift
  if "$@" >"$work/out" 2>&1; then
    echo "$label-$name ok"
  else
    sed 's/^/    /' "$work/out"
    echo "$label-$name failed"
  fi
}

# Every element of the build is registered, from the plugin in GStreamer's own directory at /usr.
plugin() {
  gst-inspect-1.0 g2g >"$work/inspect" || { cat "$work/inspect"; return 1; }
  for element in $elements; do
    grep -q "^  $element: " "$work/inspect" || { echo "gst-inspect-1.0 g2g lists no $element:"; cat "$work/inspect"; return 1; }
  done
  if [ "$prefix" = /usr ]; then
    # Debian's /lib is /usr/lib: GStreamer may name either.
    file=$(readlink -f "$(sed -n 's/^  Filename *//p' "$work/inspect")")
    [ "$file" = "$(readlink -f "$(pkg-config --variable=pluginsdir gstreamer-1.0)")/libgstg2g.so" ] ||
      { echo "the plugin is $file, not in pkg-config's pluginsdir of gstreamer-1.0"; return 1; }
  fi
  echo "$elements" | wc -w
}

# The package imports (libg2g and its DLPack extension loaded), and reads a frame's planes by name.
python() {
  python3 - <<'PY'
import gi
gi.require_version("Gst", "1.0")
gi.require_version("GstApp", "1.0")
from gi.repository import Gst, GstApp  # noqa: F401
import g2g
Gst.init(None)
pipeline = Gst.parse_launch("videotestsrc num-buffers=1 ! video/x-raw,format=I420,width=64,height=48 ! appsink name=sink")
pipeline.set_state(Gst.State.PLAYING)
frame = g2g.pull(pipeline.get_by_name("sink"), timeout=10)
line = f"{frame.kind} {frame.format} {' '.join(plane.name for plane in frame.planes)}"
del frame
pipeline.set_state(Gst.State.NULL)
print(g2g.__file__, line)
assert line == "System I420 Y U V", line
PY
}

# The typelib, through PyGObject, classifies a buffer.
gi() {
  python3 -c '
import gi
gi.require_version("Gst", "1.0")
gi.require_version("G2g", "1.0")
from gi.repository import G2g, Gst
Gst.init(None)
kind = G2g.buffer_get_memory_domain(Gst.Buffer.new_allocate(None, 64, None))
print(G2g.memory_domain_kind_name(kind))
assert kind == G2g.MemoryDomainKind.SYSTEM, kind'
}

# A C program builds with pkg-config's flags alone and runs; the .pc says the C++ API's standard.
c_program() {
  # shellcheck disable=SC2046 # pkg-config's flags are words
  cc -Wall -Werror -o "$work/classify" "$here/classify.c" $(pkg-config --cflags --libs g2g-1.0) || return 1
  "$work/classify" >"$work/classify.out" || { cat "$work/classify.out"; return 1; }
  printf 'System (memory:SystemMemory)\nSystem (memory:SystemMemory)\n' | cmp -s - "$work/classify.out" ||
    { echo "classify printed:"; cat "$work/classify.out"; return 1; }
  [ "$(pkg-config --variable=cxx_std g2g-1.0)" = c++20 ] || { echo "g2g-1.0.pc has no cxx_std=c++20"; return 1; }
}

# Without env.sh, each consumer misses its part, and `import g2g` names the file to source.
without_env() {
  status=0
  gst-inspect-1.0 g2g >/dev/null 2>&1 && { echo "gst-inspect-1.0 found g2g"; status=1; }
  pkg-config --exists g2g-1.0 && { echo "pkg-config found g2g-1.0"; status=1; }
  python3 -c 'import gi; gi.require_version("G2g", "1.0")' 2>/dev/null && { echo "GI found G2g-1.0"; status=1; }
  # PYTHONPATH alone, as a user would try: the library is still missing, and the error says why.
  if PYTHONPATH=$(sed -n "s/^g2g_prepend PYTHONPATH '\(.*\)'$/\1/p" "$env_file") python3 -c 'import g2g' 2>"$work/import"; then
    echo "import g2g worked"; status=1
  elif ! grep -q "ImportError: g2g: cannot load libg2g (libg2g.so.0: .*run \`. $env_file\` first" "$work/import"; then
    echo "import g2g failed otherwise:"; cat "$work/import"; status=1
  fi
  tail -n 1 "$work/import"
  return $status
}

# Sourced again (a second shell's profile, a script that sources it too), env.sh changes nothing.
env_twice() {
  env | sort >"$work/env-once"
  # shellcheck source=/dev/null # the prefix's, as installed
  . "$env_file"
  env | sort | diff "$work/env-once" -
}

if [ "$prefix" != /usr ]; then
  check without-env without_env
  if [ -f "$env_file" ]; then
    # shellcheck source=/dev/null # the prefix's, as installed
    . "$env_file"
    check env-twice env_twice
  else
    echo "    $env_file is not installed"
  fi
fi
check plugin plugin
check python python
check gi gi
check c-program c_program
rm -rf "$work"
