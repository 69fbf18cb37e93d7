# SPDX-License-Identifier: LGPL-2.1-or-later
"""A tensor holds its frame, buffer and mapping, exactly as long as it lives: the buffer is freed
when the last tensor of it dies (a weak reference on the GstBuffer says when), and a whole run
leaves nothing behind for GStreamer's leaks tracer."""

import gc
import os
import subprocess
import sys
import unittest
import weakref

import numpy

import support  # noqa: F401 (skips the module without PyGObject)
from support import VIEW_CAPS, Pipeline, watch_finalize

import g2g

try:
    import torch
except ImportError:
    torch = None

# A view with positive strides (a transpose): NumPy and PyTorch both read it in place.
PIPELINE = ("videotestsrc num-buffers=3 ! video/x-raw,format=NV12,width=64,height=48 ! "
            "g2gview video-direction=ul-lr left=2 ! "
            f"appsink name=sink sync=false enable-last-sample=false caps=\"{VIEW_CAPS}\"")


@unittest.skipIf(torch is None, "python3-torch is not installed")
class TheLastTensorFreesTheBuffer(unittest.TestCase):
    def test_the_buffer_lives_while_any_tensor_lives_and_not_longer(self):
        with Pipeline(PIPELINE) as pipeline:
            frame = g2g.pull(pipeline.sink("sink"), timeout=10)
        freed, keep_callback = watch_finalize(frame.buffer_address)
        frame_alive = weakref.ref(frame)

        array = numpy.asarray(frame.planes[0])     # __array_interface__: holds the Python plane
        from_dlpack = numpy.from_dlpack(frame.planes[0])
        tensor = torch.from_dlpack(frame.planes[1])
        del frame
        gc.collect()
        self.assertIsNotNone(frame_alive(), "the array's plane holds the Python frame")
        del array
        gc.collect()
        self.assertIsNone(frame_alive(), "nothing holds the Python frame once the array is gone")
        self.assertFalse(freed[0], "the DLPack tensors hold the buffer")
        del from_dlpack
        gc.collect()
        self.assertFalse(freed[0], "the torch tensor still holds the buffer")
        self.assertEqual(int(tensor.sum()), int(tensor.sum()))  # still readable
        del tensor
        gc.collect()
        self.assertTrue(freed[0], "the last tensor let the buffer go")
        del keep_callback

    def test_a_capsule_no_consumer_took_releases_its_frame(self):
        with Pipeline(PIPELINE) as pipeline:
            frame = g2g.pull(pipeline.sink("sink"), timeout=10)
        freed, keep_callback = watch_finalize(frame.buffer_address)
        capsules = [frame.planes[0].__dlpack__(), frame.planes[1].__dlpack__(max_version=(1, 0))]
        del frame
        gc.collect()
        self.assertFalse(freed[0])
        del capsules
        gc.collect()
        self.assertTrue(freed[0], "an untaken capsule's destructor runs the tensor's deleter")
        del keep_callback


class NoCycleHoldsTheFrame(unittest.TestCase):
    """A frame goes with its last reference, not when Python's cycle collector next runs: an
    application that reads every frame's planes would otherwise hold tens of frames at a time (a
    decoder's pool starved, 12 MB a 4K frame; bench-cpu-path.py grew to 6 GB)."""

    def test_a_frame_whose_planes_were_read_is_freed_with_its_last_reference(self):
        with Pipeline(PIPELINE) as pipeline:
            frame = g2g.pull(pipeline.sink("sink"), timeout=10)
        freed, keep_callback = watch_finalize(frame.buffer_address)
        gc.collect()
        gc.disable()
        try:
            arrays = [numpy.asarray(plane) for plane in frame.planes]
            self.assertEqual(frame.plane("Y").shape, arrays[0].shape)
            del frame
            self.assertFalse(freed[0], "the arrays hold the frame")
            del arrays
            self.assertTrue(freed[0], "the last reference let the buffer go, with no cycle collection")
        finally:
            gc.enable()
        del keep_callback


# The child: frames to NumPy and PyTorch, everything dropped (or, with "keep", one tensor kept past
# the end), then gst_deinit, when the leaks tracer reports what is still alive.
CHILD = f"""
import gc, sys, numpy, torch
import support, g2g
from support import Gst, Pipeline
with Pipeline({PIPELINE!r}) as pipeline:
    frames = list(g2g.frames(pipeline.sink("sink"), timeout=10))
tensors = [torch.from_dlpack(f.planes[1]) for f in frames]
arrays = [numpy.asarray(f.planes[0]) for f in frames] + [numpy.from_dlpack(frames[0].planes[0])]
kept = tensors[0] if sys.argv[1] == "keep" else None
del frames, tensors, arrays, pipeline
gc.collect()
Gst.deinit()
"""


@unittest.skipIf(torch is None, "python3-torch is not installed")
class TheLeaksTracerFindsNothingLeft(unittest.TestCase):
    def run_child(self, mode):
        environment = dict(os.environ, GST_TRACERS="leaks", GST_DEBUG="GST_TRACER:7")
        return subprocess.run([sys.executable, "-c", CHILD, mode], env=environment, capture_output=True,
                              text=True, timeout=120, cwd=os.path.dirname(os.path.abspath(__file__)))

    def test_frames_and_tensors_dropped_leave_no_object_alive(self):
        child = self.run_child("release")
        self.assertEqual(child.returncode, 0, child.stderr[-2000:])
        self.assertNotIn("Leaks detected", child.stderr, child.stderr[-4000:])

    def test_a_tensor_kept_past_the_end_is_reported_with_its_buffer(self):
        child = self.run_child("keep")
        self.assertIn("Leaks detected", child.stderr)
        self.assertIn("GstBuffer", child.stderr)


if __name__ == "__main__":
    unittest.main()
