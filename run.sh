#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# g2g's one entry point, for a fresh Debian 12 machine (as root, or with sudo):
#   ./run.sh demo   install what is missing, build, run the demo
#   ./run.sh test   install what is missing, build, run every test twice: a plain build, then one
#                   with AddressSanitizer + UndefinedBehaviorSanitizer and GStreamer's leaks tracer;
#                   then each fuzz target for a minute (clang's libFuzzer, tests/fuzz/README.md)
set -euo pipefail
cd "$(dirname "$0")"

packages=(
  meson ninja-build pkg-config g++ python3
  libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev libgstreamer-plugins-bad1.0-dev
  gstreamer1.0-tools gstreamer1.0-plugins-base gstreamer1.0-plugins-good gstreamer1.0-plugins-bad
  libvulkan-dev mesa-vulkan-drivers libxkbcommon-dev libxkbcommon-x11-dev
  libgtest-dev clang libclang-rt-dev glslc libdrm-dev
  # The D3D11 adapter (g2g/d3d11-texture.h) is compiled against the real d3d11.h: a test.
  g++-mingw-w64-x86-64-posix mingw-w64-x86-64-dev
  # bench-view's peer (tests/bench): libyuv's rotations and mirrors.
  libyuv-dev
  # Frames as tensors: DLPack's header, the GIR/typelib (G2g-1.0), the Python package and its
  # tests' consumers (PyGObject with GStreamer's overrides, NumPy, PyTorch built for the CPU).
  libdlpack-dev gobject-introspection libgirepository1.0-dev gir1.2-gstreamer-1.0 gir1.2-gst-plugins-base-1.0
  python3-dev python3-gi python3-gst-1.0 python3-numpy python3-torch
)

# System plugins the tests use (as peers and oracles).
test_plugins=(coreelements coretracers videotestsrc audiotestsrc app vulkan nvcodec videoconvertscale
              videofilter videocrop videoparsersbad debugutilsbad typefindfunctions png)

install_packages() {
  local missing=()
  for p in "${packages[@]}"; do
    dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null | grep -q '^ii' || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo=sudo
  echo "installing: ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
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
  build build || exit 1
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
# fuzzing build's fuzz-results.txt (run_fuzz) counts one case per target: failed when it crashed.
summarize() {
  python3 - "$@" <<'PY'
import json, os, sys, xml.etree.ElementTree as ET
passed = failed = skipped = 0
for build in sys.argv[1:]:
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
fuzz_targets=(view caps properties)
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
  local t
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
  done
  wait
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

run_tests() {
  rm -f build/meson-logs/testlog.* build-asan/meson-logs/testlog.*
  if build build; then
    run_suite build "plain build"
  fi
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
  summarize build build-asan build-fuzz
}

install_packages
system_plugin_dir=$(pkg-config --variable=pluginsdir gstreamer-1.0)
case "${1:-demo}" in
  demo) run_demo ;;
  test) run_tests ;;
  *) echo "usage: $0 demo|test" >&2; exit 2 ;;
esac
