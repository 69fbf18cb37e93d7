# SPDX-License-Identifier: LGPL-2.1-or-later
"""docs/python.md's example as a reader runs it: `meson devenv -C build -w . python3
python/examples/frames_to_tensors.py [in.h264]`, with a python3 first on PATH that is not the build's
(pyenv's has no PyGObject: "No module named 'gi'"), and none of the test environment's paths. On
an H.264 file without nvh264dec the fallback decoder gives I420, three planes: the example reads
planes by name."""

import os
import re
import subprocess
import tempfile
import unittest

import support  # noqa: F401 (skips the module without PyGObject)
from support import Gst, has_elements

FRAMES = 5
# The example: a 90° rotation of the source with 16 columns cropped off each side.
LINE = re.compile(r"^frame (\d+): SystemView (\S+) (\d+)x(\d+), planes ([A-Za-z ]+); numpy (\S+) ")
# The variables through which the test environment finds the build: the devenv alone must.
BUILD_PATHS = ("PYTHONPATH", "GI_TYPELIB_PATH", "LD_LIBRARY_PATH", "GST_PLUGIN_PATH", "G2G_LIBRARY")


def run_example(work, *args):
    """The example through `meson devenv`, a python3 that fails first on PATH: its output lines."""
    decoy = os.path.join(work, "bin")
    os.makedirs(decoy, exist_ok=True)
    with open(os.path.join(decoy, "python3"), "w") as script:
        script.write("#!/bin/sh\necho \"$0: not the build's python3\" >&2\nexit 3\n")
    os.chmod(os.path.join(decoy, "python3"), 0o755)
    env = {name: value for name, value in os.environ.items() if name not in BUILD_PATHS}
    env["PATH"] = decoy + os.pathsep + env.get("PATH", "/usr/bin:/bin")
    command = [os.environ["G2G_MESON"], "devenv", "-C", os.environ["G2G_BUILD_ROOT"], "-w",
               os.environ["G2G_SOURCE_ROOT"], "python3", os.path.join("python", "examples", "frames_to_tensors.py"),
               *args]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120)
    if done.returncode != 0:
        raise AssertionError(f"{' '.join(command)} exited with {done.returncode}:\n{done.stdout}{done.stderr}")
    return done.stdout.splitlines()


def make_h264(path):
    """FRAMES frames of videotestsrc's ball, 320x240, as an H.264 elementary stream."""
    pipeline = Gst.parse_launch(f"videotestsrc pattern=ball num-buffers={FRAMES} ! video/x-raw,width=320,height=240 ! "
                                f"openh264enc ! h264parse ! filesink location={path}")
    pipeline.set_state(Gst.State.PLAYING)
    message = pipeline.get_bus().timed_pop_filtered(30 * Gst.SECOND, Gst.MessageType.EOS | Gst.MessageType.ERROR)
    pipeline.set_state(Gst.State.NULL)
    if message is None or message.type != Gst.MessageType.EOS:
        raise AssertionError(f"writing {path}: {message.parse_error() if message else 'no end of stream'}")


class Example(unittest.TestCase):
    def setUp(self):
        self.work = tempfile.TemporaryDirectory()
        self.addCleanup(self.work.cleanup)

    def frames(self, lines):
        frames = [LINE.match(line) for line in lines]
        self.assertTrue(frames and all(frames), "\n".join(lines))
        return frames

    def test_pattern_with_another_python3_first_on_path(self):
        frames = self.frames(run_example(self.work.name))
        self.assertEqual(len(frames), 10)
        for frame in frames:
            # 1280x720 NV12, 16 columns off each side, rotated: 720 wide, 1248 high.
            self.assertEqual(frame.group(2, 3, 4, 5, 6), ("NV12", "720", "1248", "Y UV", "Y"))

    def test_h264_file_decoded_to_i420(self):
        if Gst.ElementFactory.find("nvh264dec") is not None:
            self.skipTest("nvh264dec is here: the example keeps its frames in CUDA memory (test_cuda_tensors)")
        if not has_elements("openh264enc", "h264parse"):
            self.skipTest("no H.264 encoder (openh264enc of gst-plugins-bad) to make the file with")
        path = os.path.join(self.work.name, "in.h264")
        make_h264(path)
        frames = self.frames(run_example(self.work.name, path))
        self.assertEqual(len(frames), FRAMES)
        for frame in frames:
            # 320x240, 16 columns off each side, rotated: 240 wide, 288 high; I420's three planes.
            self.assertEqual(frame.group(2, 3, 4, 5, 6), ("I420", "240", "288", "Y U V", "Y"))
