#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# g2g's one entry point, for a fresh Debian 12 machine (as root, or with sudo):
#   ./run.sh demo   install what is missing, build, run the demo
#   ./run.sh test   install what is missing, build, run every test on each GStreamer g2g supports:
#                   on the host's (Debian 12: GStreamer 1.22) a plain build, then one with
#                   AddressSanitizer + UndefinedBehaviorSanitizer and GStreamer's leaks tracer, then
#                   each fuzz target for a minute (clang's libFuzzer, tests/fuzz/README.md); then a
#                   plain build and the suite in a Debian 13 root (GStreamer 1.26) and in a Debian
#                   unstable root (GStreamer 1.28), made with debootstrap from Debian's archive the
#                   first time and kept in $G2G_ROOTS (default /var/cache/g2g-roots, outside the
#                   checkout); and g2g as `meson install` puts it, at /usr and at /opt/g2g, in fresh
#                   copies of a Debian 12 root of a user's packages (tests/install). Its last line
#                   counts every case of every build.
set -euo pipefail
cd "$(dirname "$0")"

# What every build needs, on the host and in the other versions' roots.
build_packages=(
  meson ninja-build pkg-config g++ python3
  libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev libgstreamer-plugins-bad1.0-dev
  gstreamer1.0-tools gstreamer1.0-plugins-base gstreamer1.0-plugins-good gstreamer1.0-plugins-bad
  libvulkan-dev mesa-vulkan-drivers libxkbcommon-dev libxkbcommon-x11-dev
  libgtest-dev glslc libdrm-dev
  # The D3D11 adapter (g2g/d3d11-texture.h) is compiled against the real d3d11.h: a test.
  g++-mingw-w64-x86-64-posix mingw-w64-x86-64-dev
  # Frames as tensors: DLPack's header, the GIR/typelib (G2g-1.0), the Python package and its
  # tests' consumers (PyGObject with GStreamer's overrides, NumPy, PyTorch built for the CPU).
  libdlpack-dev gobject-introspection libgirepository1.0-dev gir1.2-gstreamer-1.0 gir1.2-gst-plugins-base-1.0
  python3-dev python3-gi python3-gst-1.0 python3-numpy python3-torch
)
# What the host needs besides: clang for the fuzzing build, bench-view's peer (libyuv's rotations
# and mirrors, tests/bench), debootstrap for the roots.
host_packages=("${build_packages[@]}" clang libclang-rt-dev libyuv-dev debootstrap)

# The other GStreamer versions: Debian roots (name, Debian suite, packages of that root alone).
# Debian unstable's nvcc host compiler: CUDA 13.0 refuses its GCC 16 (meson.build tries g++-15).
roots=("debian13 trixie" "debian-unstable sid g++-15")
# A user's Debian 12, where tests/install installs g2g: GStreamer's and Python's runtime, what a C
# program of libg2g builds with, and the libraries libg2g and the plugin link (Vulkan and CUDA are
# in plugins-bad's libraries); no meson, no g++, no build package. The g2g package imports NumPy
# only when an array is asked for, so it is not here either.
install_root="debian12 bookworm"
user_packages=(
  gstreamer1.0-tools gstreamer1.0-plugins-base python3 python3-gi gir1.2-gstreamer-1.0
  gir1.2-gst-plugins-base-1.0 libgstreamer-plugins-bad1.0-0 libvulkan1
  pkg-config gcc libc6-dev libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev
)
root_cache=${G2G_ROOTS:-/var/cache/g2g-roots}
debian_mirror=http://deb.debian.org/debian

# System plugins the tests use (as peers and oracles).
test_plugins=(coreelements coretracers videotestsrc audiotestsrc app vulkan nvcodec videoconvertscale
              videofilter videocrop videoparsersbad debugutilsbad typefindfunctions png)

sudo=""
[ "$(id -u)" -eq 0 ] || sudo=sudo

# install_packages PACKAGE... [-- PREFIX...]: installs what is missing of PACKAGE..., through PREFIX
# (in_root NAME) where given.
install_packages() {
  local wanted=() prefix=()
  while [ $# -gt 0 ] && [ "$1" != -- ]; do wanted+=("$1"); shift; done
  [ $# -gt 0 ] && { shift; prefix=("$@"); }
  local missing
  missing=$(comm -23 <(printf '%s\n' "${wanted[@]}" | sort -u) \
    <(${prefix[@]+"${prefix[@]}"} dpkg-query -W -f='${db:Status-Abbrev} ${Package}\n' 2>/dev/null |
      awk '$1 == "ii" { print $2 }' | sed 's/:.*//' | sort -u))
  [ -z "$missing" ] && return 0
  echo "installing${prefix[1]+ in the ${prefix[1]} root}:" $missing
  # in_root is root already; a function cannot be run through sudo.
  [ ${#prefix[@]} -gt 0 ] || prefix=($sudo)
  # shellcheck disable=SC2086 # a list of package names
  { ${prefix[@]+"${prefix[@]}"} apt-get update -qq &&
    ${prefix[@]+"${prefix[@]}"} env DEBIAN_FRONTEND=noninteractive \
      apt-get install -y -qq --no-install-recommends $missing; } >/dev/null
}

# in_root NAME COMMAND...: COMMAND as root in the root NAME, this checkout mounted at its own path,
# with /proc, /dev and /sys, and the host's CUDA toolkit where it has one (Debian has none: so
# the kernels build on every version). The mounts live in a mount namespace of the command's own:
# nothing stays mounted after it.
in_root() {
  local dir=$root_cache/$1; shift
  $sudo unshare --mount --propagation private bash -c '
    set -e
    dir=$1 src=$2; shift 2
    mount -t proc proc "$dir/proc"
    mount --rbind /dev "$dir/dev"
    mount --rbind /sys "$dir/sys"
    mkdir -p "$dir$src"
    mount --bind "$src" "$dir$src"
    if [ -x /usr/local/cuda/bin/nvcc ]; then
      mkdir -p "$dir/usr/local/cuda"
      mount --bind -o ro "$(readlink -f /usr/local/cuda)" "$dir/usr/local/cuda"
    fi
    exec chroot "$dir" /usr/bin/env -i HOME=/root LANG=C.UTF-8 \
      PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
      sh -c "cd \"\$0\" && exec \"\$@\"" "$src" "$@"
  ' _ "$dir" "$PWD" "$@"
}

# make_root NAME SUITE [PACKAGE...]: the root of Debian SUITE in $root_cache/NAME, made once with
# debootstrap from Debian's archive and reused; then completed with what the packages lists gained:
# build_packages and PACKAGE..., or PACKAGE... alone where $root_packages is "only".
make_root() {
  local name=$1 suite=$2 dir=$root_cache/$1; shift 2
  if [ ! -f "$dir/etc/g2g-root" ]; then
    echo "making the $name root (Debian $suite) in $dir"
    $sudo mkdir -p "$root_cache"
    $sudo rm -rf "$dir.partial"
    if ! $sudo debootstrap --variant=minbase "$suite" "$dir.partial" "$debian_mirror" >"$root_cache/$name.log" 2>&1; then
      tail -n 20 "$root_cache/$name.log"
      echo "debootstrap of $suite failed (log: $root_cache/$name.log)" >&2
      return 1
    fi
    # Debian unstable's Release file on the mirror is past its Valid-Until date.
    echo 'Acquire::Check-Valid-Until "false";' | $sudo tee "$dir.partial/etc/apt/apt.conf.d/99g2g" >/dev/null
    echo "$suite" | $sudo tee "$dir.partial/etc/g2g-root" >/dev/null
    $sudo rm -rf "$dir"
    $sudo mv "$dir.partial" "$dir"
  fi
  if [ "${root_packages:-}" = only ]; then
    install_packages "$@" -- in_root "$name"
  else
    install_packages "${build_packages[@]}" "$@" -- in_root "$name"
  fi
}

# The features each build must have where its GStreamer has them: a domain that disappears from a
# version that has it fails the build instead of skipping its tests. CUDA where the machine has the
# toolkit too (nvcc: Debian has none).
required_features() {
  echo -Ddmabuf=enabled
  pkg-config --exists gstreamer-vulkan-1.0 && echo -Dvulkan=enabled
  pkg-config --exists gstreamer-cuda-1.0 && [ -x /usr/local/cuda/bin/nvcc ] && echo -Dcuda=enabled
  return 0
}

# build DIR [meson options...]: quiet when it works, the compiler's words when it does not.
# $build_targets, when set, names the targets to build (all of them otherwise).
build() {
  local dir=$1; shift
  mkdir -p "$dir"
  # shellcheck disable=SC2086 # a list of target names
  if ! { [ -f "$dir/build.ninja" ] || meson setup "$dir" "$@"; } >"$dir.setup.log" 2>&1 ||
     ! meson compile -C "$dir" ${build_targets:-} >"$dir.compile.log" 2>&1; then
    tail -n 40 "$dir.setup.log" "$dir.compile.log" 2>/dev/null
    echo "build of $dir failed" >&2
    return 1
  fi
}

run_demo() {
  build build $(required_features) || exit 1
  GST_PLUGIN_PATH=$PWD/build/gst GST_REGISTRY=$PWD/build/demo-registry.bin build/tests/g2g-demo "$PWD/build/demo"
}

# test DIR LABEL: runs meson test; never stops the script, the summary counts what failed.
run_suite() {
  local dir=$1 label=$2
  echo "== $label"
  meson test -C "$dir" --num-processes 2 --print-errorlogs >"$dir/test-output.txt" 2>&1 || true
  grep -E '^ *[0-9]+/[0-9]+ ' "$dir/test-output.txt" || true
}

# Counts GoogleTest cases from each run's JUnit report. A program that failed as a whole (a
# crash, a sanitizer report, the leaks tracer) with no failing case counts as one failure. A
# fuzzing build's fuzz-results.txt (run_fuzz) counts one case per target: failed when it crashed;
# the install test's install-results.txt (run_install_test) one case per check.
summarize() {
  python3 - "$@" <<'PY'
import json, os, sys, xml.etree.ElementTree as ET
passed = failed = skipped = 0
for build in sys.argv[1:]:
    # The install test's checks (run_install_test): one case each, failed when it did not run.
    if os.path.exists(f"{build}/install-checks.txt"):
        try:
            with open(f"{build}/install-results.txt") as results:
                ran = dict(line.split() for line in results if len(line.split()) == 2)
        except OSError:
            ran = {}
        with open(f"{build}/install-checks.txt") as checks:
            for check in checks.read().split():
                if ran.get(check) == "ok":
                    passed += 1
                else:
                    print(f"{build}: install check {check} " + ("failed" if check in ran else "did not run"),
                          file=sys.stderr)
                    failed += 1
        continue
    if os.path.exists(f"{build}/build.ninja") and os.path.exists(f"{build}/fuzz-targets.txt"):
        try:
            with open(f"{build}/fuzz-results.txt") as results:
                runs = [line.split() for line in results if line.strip()]
        except OSError:
            runs = []
        with open(f"{build}/fuzz-targets.txt") as targets:
            expected = targets.read().split()
        for target in expected:
            run = next((r for r in runs if r[0] == target), None)
            if run and run[1] == "ok":
                passed += 1
            else:
                print(f"{build}: fuzz-{target} " + ("found a crash" if run else "did not run"), file=sys.stderr)
                failed += 1
        continue
    try:
        root = ET.parse(f"{build}/meson-logs/testlog.junit.xml").getroot()
    except (OSError, ET.ParseError):
        print(f"{build}: no test results (the build or the test run failed)", file=sys.stderr)
        failed += 1
        continue
    failing_programs = set()
    for suite in root.iter("testsuite"):
        # "g2g.g2g:unit / kinds.MemoryDomainKind": project, program, GoogleTest suite
        program = suite.get("name").removeprefix("g2g.").rpartition(".")[0]
        for case in suite.iter("testcase"):
            if case.find("skipped") is not None:
                skipped += 1
            elif case.find("failure") is not None or case.find("error") is not None:
                failed += 1
                failing_programs.add(program)
            else:
                passed += 1
    with open(f"{build}/meson-logs/testlog.json") as log:
        for test in map(json.loads, log):
            if test["result"] in ("OK", "SKIP"):
                continue
            # What the failing program printed last: a crash's cause, a sanitizer's stack. TAP
            # programs' stderr is logged apart from their stdout (a Python traceback is there).
            output = (test.get("stdout") or "") + (test.get("stderr") or "")
            tail = "\n".join(output.splitlines()[-40:])
            print(f"--- {build}: the end of {test['name']}'s output\n{tail}\n---", file=sys.stderr)
            if test["name"] not in failing_programs:
                print(f"{build}: {test['name']} failed as a whole ({test['result']})", file=sys.stderr)
                failed += 1
line = f"{passed} passed, {failed} failed"
if skipped:
    line += f", {skipped} skipped"
print(line)
sys.exit(1 if failed else 0)
PY
}

# Each fuzz target for $fuzz_seconds over a copy of its seed corpus, all at once (the machine's
# cores shared), in a clang build with libFuzzer and AddressSanitizer of the targets, libg2g and
# the plugin only. Per target: the executions libFuzzer made, and a crash's input (path and
# base64) to add to tests/fuzz/regressions/<target>/. Never stops the script.
fuzz_targets=(view caps properties layout ipc-wire ipc-lane)
fuzz_seconds=60
run_fuzz() {
  local dir=build-fuzz
  echo "== libFuzzer (clang, AddressSanitizer), ${fuzz_seconds}s a target"
  mkdir -p "$dir"
  rm -f "$dir/fuzz-results.txt"
  echo "${fuzz_targets[*]}" >"$dir/fuzz-targets.txt"
  CC=clang CXX=clang++ build_targets="gstg2g ${fuzz_targets[*]/#/fuzz-}" \
    build "$dir" -Dfuzzing=true -Db_sanitize=address -Db_lundef=false -Dcuda=disabled -Dintrospection=disabled \
    -Dpython=disabled || return 0
  # The targets load this build's plugin and, of the system's, only the core elements (fakesink).
  local sysplugins=$dir/system-plugins
  rm -rf "$sysplugins"; mkdir -p "$sysplugins"
  ln -s "$system_plugin_dir/libgstcoreelements.so" "$sysplugins/"
  local t runs=()
  for t in "${fuzz_targets[@]}"; do
    local work=$dir/fuzz-$t unwind=1
    rm -rf "$work"; mkdir -p "$work/corpus"
    cp tests/fuzz/corpus/"$t"/* "$work/corpus/"
    # fuzz-caps needs whole malloc stacks (through GLib, which has no frame pointers) for the
    # suppression of GStreamer's own caps-parser leak to match.
    [ "$t" = caps ] && unwind=0
    ASAN_OPTIONS=fast_unwind_on_malloc=$unwind GST_PLUGIN_PATH=$PWD/$dir/gst GST_PLUGIN_SYSTEM_PATH_1_0=$PWD/$sysplugins \
      GST_REGISTRY=$PWD/$work/registry.bin GST_REGISTRY_FORK=no \
      LSAN_OPTIONS=suppressions=$PWD/tests/fuzz/fuzz-lsan.supp:print_suppressions=0 \
      "$dir/tests/fuzz/fuzz-$t" -max_total_time="$fuzz_seconds" -timeout=20 -rss_limit_mb=2048 \
      -print_final_stats=1 -artifact_prefix="$work/" "$work/corpus" >"$work/log" 2>&1 &
    runs+=($!)
  done
  # Its own jobs only: a bare wait would reap the roots' jobs too, whose status wait_root reads.
  wait "${runs[@]}" || true
  for t in "${fuzz_targets[@]}"; do
    local work=$dir/fuzz-$t crash execs
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/log")
    crash=$(find "$work" -maxdepth 1 -type f \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' \
              -o -name 'oom-*' \) | head -n 1)
    if [ -z "$crash" ] && grep -q '^Done [0-9]* runs' "$work/log"; then
      echo "fuzz-$t: ${execs:-?} executions, no crash"
      echo "$t ok ${execs:-0}" >>"$dir/fuzz-results.txt"
    else
      echo "fuzz-$t: ${execs:-?} executions, FAILED (log: $work/log)"
      grep -E -m 3 'ERROR: |SUMMARY: |^fuzz-' "$work/log" || tail -n 20 "$work/log"
      if [ -n "$crash" ]; then
        echo "crash input: $crash (copy it to tests/fuzz/regressions/$t/), base64:"
        base64 "$crash"
      fi
      echo "$t failed ${execs:-0}" >>"$dir/fuzz-results.txt"
    fi
  done
}

# Each root's build and suite, run inside it (./run.sh _root-test DIR LABEL there); the roots are
# made meanwhile the host's builds run.
root_build_dir() { echo "build-$1"; }
run_root_tests() {
  local name=$1 dir
  dir=$(root_build_dir "$name")
  if ! wait_root "$name"; then
    echo "== $name: no root (see above); its suite did not run"
    return 0
  fi
  in_root "$name" ./run.sh _root-test "$dir" || true
}

# The root jobs started by start_roots, and their logs.
declare -A root_jobs=()
start_roots() {
  local entry name
  for entry in "${roots[@]}"; do
    read -r name _ <<<"$entry"
    # shellcheck disable=SC2086 # suite and packages
    make_root $entry >"build-$name.root.log" 2>&1 &
    root_jobs[$name]=$!
  done
  read -r name _ <<<"$install_root"
  # shellcheck disable=SC2086 # name and suite
  root_packages=only make_root $install_root "${user_packages[@]}" >"build-$name.root.log" 2>&1 &
  root_jobs[$name]=$!
}
wait_root() {
  local status=0
  wait "${root_jobs[$1]}" || status=$?
  cat "build-$1.root.log"
  return $status
}

# g2g installed with --prefix=/usr, then /opt/g2g, into fresh copies of a user's Debian 12 root
# (tests/install/run-install-test.sh): one case per check in build-install/install-results.txt,
# every check listed in install-checks.txt first, so that one that did not run counts as failed.
run_install_test() {
  local dir=build-install name
  read -r name _ <<<"$install_root"
  echo "== installed into a Debian 12 root holding what a user has"
  mkdir -p "$dir"
  rm -f "$dir/install-results.txt"
  tests/install/run-install-test.sh --checks >"$dir/install-checks.txt"
  # The features of the plain build; no tests: only what `meson install` installs is built.
  build "$dir" --prefix=/usr -Dtests=disabled $(required_features) || return 0
  if ! wait_root "$name"; then
    echo "== $name: no root (see above); the install checks did not run"
    return 0
  fi
  $sudo tests/install/run-install-test.sh "$dir" "$root_cache/$name" "$dir/install-results.txt" || true
}

run_tests() {
  rm -f build/meson-logs/testlog.* build-asan/meson-logs/testlog.*
  local entry name
  for entry in "${roots[@]}"; do
    read -r name _ <<<"$entry"
    rm -f "$(root_build_dir "$name")"/meson-logs/testlog.*
  done
  start_roots
  if build build $(required_features); then
    run_suite build "plain build, GStreamer $(pkg-config --modversion gstreamer-1.0)"
  fi
  run_install_test
  # The application interfaces (the GIR, whose scanner runs a program linked with the library, and
  # the Python package) are tested in the plain build: sanitized, neither would run uninstrumented.
  if build build-asan -Db_sanitize=address,undefined -Db_lundef=false -Dintrospection=disabled -Dpython=disabled; then (
    # The sanitized programs scan the registry in-process; they see only the system plugins the
    # tests use, so leaks of unrelated plugins' init code (there are some) are not reported.
    local sysplugins=build-asan/system-plugins
    rm -rf "$sysplugins"; mkdir -p "$sysplugins"
    for p in "${test_plugins[@]}"; do
      [ -f "$system_plugin_dir/libgst$p.so" ] && ln -s "$system_plugin_dir/libgst$p.so" "$sysplugins/"
    done
    export GST_PLUGIN_SYSTEM_PATH_1_0=$PWD/$sysplugins
    export GST_TRACERS=leaks
    export ASAN_OPTIONS=detect_leaks=1:fast_unwind_on_malloc=0:abort_on_error=0
    export LSAN_OPTIONS=suppressions=$PWD/tests/sanitizers/lsan.supp:print_suppressions=0
    export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
    run_suite build-asan "AddressSanitizer + UndefinedBehaviorSanitizer + leaks tracer"
  ) fi
  run_fuzz
  local dirs=(build build-install build-asan build-fuzz)
  for entry in "${roots[@]}"; do
    read -r name _ <<<"$entry"
    run_root_tests "$name"
    dirs+=("$(root_build_dir "$name")")
  done
  summarize "${dirs[@]}"
}

command=${1:-demo}
case "$command" in
  # Inside a root (run_root_tests): the plain build and its suite, with that root's GStreamer.
  _root-test)
    build "$2" $(required_features) && run_suite "$2" "plain build, GStreamer $(pkg-config --modversion gstreamer-1.0) ($(. /etc/os-release; echo "$PRETTY_NAME") root)"
    exit 0 ;;
  # A command in a root, as the tests run there (tests/gpu/bundle-from-root.sh uses it).
  _in-root)
    shift
    in_root "$@"
    exit ;;
  demo|test) ;;
  *) echo "usage: $0 demo|test" >&2; exit 2 ;;
esac
install_packages "${host_packages[@]}"
system_plugin_dir=$(pkg-config --variable=pluginsdir gstreamer-1.0)
case "$command" in
  demo) run_demo ;;
  test) run_tests ;;
esac
