# SPDX-License-Identifier: LGPL-2.1-or-later
"""Runs every command the documentation shows, as written, and reports each in TAP.

    run-doc-commands.py SOURCE_ROOT BUILD_DIR [--marked-only]

A command is a line of a fenced block of README.md or docs/**/*.md (the element pages' example
sources in docs/elements/examples/ aside: the generated pages carry them) (not a ```python, ```c or
```cpp one) that starts with gst-launch-1.0, gst-inspect-1.0 or `meson devenv`, optionally after
VAR=value assignments, with its `\\` continuation lines. The build's own commands (`meson setup`,
`meson compile`, `./run.sh`) are not run here: they are what runs this.

What the documentation says about a command is checked too:
- comment lines right below it that start with "#   " are output it prints (joined, whitespace
  folded, "..." standing for anything); when that output has "ERROR:", the command must fail with it;
- a comment line above it (in the same block, up to a blank line) with "[NVIDIA GPU]" marks it as
  needing an NVIDIA GPU: without one (no nvh264dec) it is skipped, and it runs in the GPU suite
  (--marked-only: only the marked commands, and the commands that make files they read);
- "[benchmark]" marks the lines of a benchmark's procedure (docs/performance.md): performance is
  measured by hand, never in tests, so they do not run here, but every program and script they
  name (build/..., tests/...) must be in the checkout or defined by its build, so that they cannot
  drift from the code; "[install]" marks installing commands, which tests/install runs in a
  Debian 12 root (run.sh test), checked the same way.

Every command of a document runs in one sandbox directory, in order, so a command may read the
file an earlier one wrote (the README's sample H.264 file). The sandbox holds links to the
checkout's top-level entries, with `build` pointing at BUILD_DIR, so `-C build`, `$PWD/build/gst`
and `python/examples/...` mean what they mean in a checkout. The plugin is found through
GST_PLUGIN_PATH (BUILD_DIR/gst), as after "Building by hand" or an install. This machine shows no
video: autovideosink picks fakevideosink (raised to the highest rank), the way it picks the best
sink of a desktop; nothing else of a command changes.

A command naming an element this GStreamer does not have fails, unless it is marked (the GPU's
elements) or the element is one of GStreamer's Vulkan elements in a GStreamer built without them
(Debian's 1.28): then it is skipped with that reason.
"""

import os
import re
import shlex
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

TESTED_PREFIXES = ("gst-launch-1.0", "gst-inspect-1.0", "meson devenv")
NOT_RUN_PREFIXES = ("meson setup", "meson compile", "meson test", "./run.sh")
GPU_MARK = "[NVIDIA GPU]"
# Lines run elsewhere, each kind with why: checked for what they name, not run here.
ELSEWHERE_MARKS = {"[benchmark]": "a benchmark, run by hand",
                   "[install]": "installs g2g: tests/install does so in a Debian 12 root"}
VULKAN_ELEMENTS = {"vulkanupload", "vulkandownload", "vulkansink", "vulkancolorconvert", "vulkanh264dec"}
TIMEOUT_S = 120


@dataclass
class Command:
    document: str
    line: int
    text: str
    gpu: bool = False
    elsewhere: str = ""
    block: int = 0
    expected: list = field(default_factory=list)

    def name(self):
        if self.elsewhere:
            lines = self.text.splitlines()
            return f"{self.document}:{self.line} {lines[0].strip()} ({len(lines)} lines)"
        return f"{self.document}:{self.line} {' '.join(self.text.replace(chr(92) + chr(10), ' ').split())}"


def strip_assignments(line):
    words = line.split()
    while words and re.fullmatch(r"[A-Z_][A-Z0-9_]*=\S*", words[0]):
        words.pop(0)
    return " ".join(words)


def commands_of(path, document):
    """The commands of one Markdown file, with their marks and documented output."""
    commands, in_block, runnable, title_gpu, title_elsewhere, expecting = [], False, False, False, "", False
    block = 0
    lines = path.read_text().splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        fence = line.strip().startswith("```")
        if fence:
            in_block = not in_block
            block += 1
            runnable = in_block and line.strip()[3:].strip() in ("", "sh", "shell", "bash", "console")
            title_gpu = expecting = False
            title_elsewhere = ""
            i += 1
            continue
        if not (in_block and runnable):
            i += 1
            continue
        stripped = line.strip()
        if not stripped:
            title_gpu, title_elsewhere = False, ""
        elif stripped.startswith("#"):
            if stripped.startswith("#   ") and expecting:
                commands[-1].expected.append(stripped[1:].strip())
            else:
                expecting = False
                title_gpu = title_gpu or GPU_MARK in stripped
                title_elsewhere = title_elsewhere or next((why for mark, why in ELSEWHERE_MARKS.items()
                                                           if mark in stripped), "")
        elif title_elsewhere:
            # Lines run elsewhere are one case per block: a procedure's lines together.
            if commands and commands[-1].elsewhere and commands[-1].block == block:
                commands[-1].text += "\n" + line
            else:
                commands.append(Command(document, i + 1, line, elsewhere=title_elsewhere, block=block))
        elif strip_assignments(stripped).startswith(TESTED_PREFIXES):
            start, text = i, line
            while text.endswith("\\") and i + 1 < len(lines):
                i += 1
                text += "\n" + lines[i]
            commands.append(Command(document, start + 1, text, gpu=title_gpu))
            expecting = True
        else:
            expecting = False
            if not stripped.startswith(NOT_RUN_PREFIXES):
                # A line that is neither a command nor output: the documentation must not show
                # commands this test does not know. Output blocks belong in their own fence.
                commands.append(Command(document, i + 1, line, expected=["<not a command this test runs>"]))
        i += 1
    return commands


def elements_of(text):
    """The element factory names a gst-launch line uses."""
    names = []
    words = shlex.split(text.replace("\\\n", " "), comments=True)
    if not words or "gst-launch-1.0" not in words:
        return names
    pipeline = words[words.index("gst-launch-1.0") + 1:]
    segment_start = True
    for word in pipeline:
        if word == "!":
            segment_start = True
            continue
        if segment_start and not word.startswith("-") and "=" not in word and "/" not in word \
                and not word.endswith(".") and not word.startswith("("):
            names.append(word)
        segment_start = word.endswith(".") and "=" not in word and "/" not in word  # "t." starts a branch
    return names


def output_matches(expected_lines, output):
    expected = " ".join(" ".join(expected_lines).split())
    pattern = ".*?".join(re.escape(part) for part in expected.split("..."))
    return re.search(pattern, " ".join(output.split())) is not None


def main():
    source_root, build_dir = Path(sys.argv[1]).resolve(), Path(sys.argv[2]).resolve()
    marked_only = "--marked-only" in sys.argv[3:]
    # docs/elements/examples/ holds the examples the generated element pages carry: run once, there.
    examples = source_root / "docs" / "elements" / "examples"
    documents = [source_root / "README.md"] + sorted(d for d in (source_root / "docs").rglob("*.md")
                                                     if examples not in d.parents)
    env = dict(os.environ)
    plugin_dir = build_dir / "gst"
    if plugin_dir.is_dir():
        env["GST_PLUGIN_PATH"] = str(plugin_dir)
    env["GST_PLUGIN_FEATURE_RANK"] = "fakevideosink:MAX"
    env.pop("DISPLAY", None)
    env.pop("WAYLAND_DISPLAY", None)

    count, failed = 0, False
    with tempfile.TemporaryDirectory(prefix="g2g-doc-commands-") as scratch:
        env["GST_REGISTRY"] = os.path.join(scratch, "registry.bin")
        exists_cache = {}

        def has_element(name):
            if name not in exists_cache:
                # (not --exists: it answers no for features of rank none, every g2g element's)
                exists_cache[name] = subprocess.run(["gst-inspect-1.0", name], env=env,
                                                    capture_output=True).returncode == 0
            return exists_cache[name]

        has_gpu = has_element("nvh264dec")
        has_vulkan = has_element("vulkanupload")
        # One sandbox for every document, their commands in order: docs/ reads the README's sample.
        commands = [c for document in documents for c in commands_of(document, str(document.relative_to(source_root)))]
        sandbox = Path(scratch) / "checkout"
        sandbox.mkdir()
        for entry in source_root.iterdir():
            if not entry.name.startswith("build"):
                (sandbox / entry.name).symlink_to(entry)
        (sandbox / "build").symlink_to(build_dir)
        read_later = " ".join(c.text for c in commands if c.gpu)
        for command in commands:
            if marked_only and not command.gpu:
                made = re.findall(r"filesink location=(\S+)", command.text)
                if not any(f"location={m}" in read_later for m in made):
                    continue
            count += 1
            name = command.name()
            if command.expected == ["<not a command this test runs>"]:
                print(f"not ok {count} - {name}\n# a line in a shell block that is not a command this "
                      "test runs: make it one, or put output in a block of its own", flush=True)
                failed = True
                continue
            if command.elsewhere:
                # A program under build/ is one the build defines (benchmarks are not built by default),
                # or, of a domain this build lacks, one tests/bench/meson.build defines.
                targets = (build_dir / "build.ninja").read_text()
                benchmarks = (source_root / "tests" / "bench" / "meson.build").read_text()
                absent = [w for w in shlex.split(command.text, comments=True)
                          if w.startswith(("build/", "tests/")) and not list(sandbox.glob(w))
                          and f"\nbuild {w.removeprefix('build/')}: " not in targets
                          and not (w.startswith("build/tests/bench/")
                                   and f"executable('{Path(w).name}'" in benchmarks)]
                if absent:
                    failed = True
                    print(f"not ok {count} - {name}\n# not in this checkout or build: {', '.join(absent)}",
                          flush=True)
                else:
                    print(f"ok {count} - {name} # SKIP {command.elsewhere} (what it names is in this checkout and build)",
                          flush=True)
                continue
            missing = [e for e in elements_of(command.text) if not has_element(e)]
            if command.gpu and not has_gpu:
                print(f"ok {count} - {name} # SKIP needs an NVIDIA GPU (no nvh264dec here)", flush=True)
                continue
            if missing and not command.gpu and not has_vulkan and set(missing) <= VULKAN_ELEMENTS:
                print(f"ok {count} - {name} # SKIP this GStreamer has no Vulkan elements ({', '.join(missing)})",
                      flush=True)
                continue
            if missing:
                print(f"not ok {count} - {name}\n# this GStreamer has no {', '.join(missing)}"
                      f"{'' if command.gpu else ': mark the command ' + GPU_MARK + ' if it needs one'}",
                      flush=True)
                failed = True
                continue
            try:
                run = subprocess.run(["bash", "-c", command.text], cwd=sandbox, env=env, capture_output=True,
                                     text=True, errors="replace", timeout=TIMEOUT_S)
                output, returncode = run.stdout + run.stderr, run.returncode
            except subprocess.TimeoutExpired as timeout:
                output = "".join(part.decode(errors="replace") if isinstance(part, bytes) else part
                                 for part in (timeout.stdout or "", timeout.stderr or ""))
                returncode = None
            expects_error = any("ERROR:" in e for e in command.expected)
            problems = []
            if returncode is None:
                problems.append(f"still running after {TIMEOUT_S} s")
            elif expects_error and returncode == 0:
                problems.append("the documentation shows an error, but the command succeeded")
            elif not expects_error and returncode != 0:
                problems.append(f"exit status {returncode}")
            if command.expected and not output_matches(command.expected, output):
                problems.append("its output lacks what the documentation shows: " + " ".join(command.expected))
            if problems:
                failed = True
                print(f"not ok {count} - {name}", flush=True)
                for line in problems + ["output (last 30 lines):"] + output.splitlines()[-30:]:
                    print(f"# {line}", flush=True)
            else:
                print(f"ok {count} - {name}", flush=True)
    print(f"1..{count}", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
