# SPDX-License-Identifier: LGPL-2.1-or-later
"""Frames of g2gview (a rotation and a crop, as a view) reach NumPy with no copy, equal to
np.rot90 of the source's pixels; PyTorch gets them through DLPack, materialized where the strides
are negative and in place where they are not; appsink frames."""

import unittest

import numpy

import support  # noqa: F401 (skips the module without PyGObject)
from support import (VIEW_CAPS, Pipeline, array_span, crop_then_rotate, inside, memory_span, source_planes,
                     touched_span)

import g2g

try:
    import torch
except ImportError:  # the tests that need it skip
    torch = None

# Source 64x48; the crop as videocrop's properties (even: whole chroma samples of 4:2:0).
CROP = dict(left=6, right=2, top=4, bottom=8)
FORMATS = ("RGBA", "GRAY8", "NV12", "I420")


def view_pipeline(fmt, direction):
    crop = " ".join(f"{k}={v}" for k, v in CROP.items())
    return (f"videotestsrc num-buffers=1 pattern=smpte ! video/x-raw,format={fmt},width=64,height=48 ! "
            f"tee name=t t. ! queue ! appsink name=source sync=false "
            f"t. ! queue ! g2gview video-direction={direction} {crop} ! "
            f"appsink name=view sync=false caps=\"{VIEW_CAPS}\"")


def expected_planes(source_sample, fmt, direction):
    """The view's planes, made by NumPy from the source's: each plane cropped (in its own samples:
    chroma halves the crop of 4:2:0) and rotated."""
    planes = []
    for p, plane in enumerate(source_planes(source_sample)):
        shift = 1 if p > 0 and fmt in ("NV12", "I420") else 0
        crop = {k: v >> shift for k, v in CROP.items()}
        planes.append(crop_then_rotate(plane, rotation=direction, **crop))
    return planes


def pull_view(fmt, direction, **frame_options):
    with Pipeline(view_pipeline(fmt, direction)) as pipeline:
        source = pipeline.pull("source")
        view = pipeline.pull("view")
    return source, view, g2g.frame(view, **frame_options)


class NumPyGetsTheViewItself(unittest.TestCase):
    def test_a_rotated_cropped_view_is_read_in_place_and_equals_rot90(self):
        for fmt in FORMATS:
            with self.subTest(format=fmt):
                source, view, frame = pull_view(fmt, "90r")
                self.assertEqual(frame.kind, "SystemView")
                self.assertEqual((frame.format, frame.width, frame.height), (fmt, 48 - 12, 64 - 8))
                memory = memory_span(view.get_buffer())
                expected = expected_planes(source, fmt, "90r")
                self.assertEqual(len(frame.planes), len(expected))
                for plane, wanted in zip(frame.planes, expected):
                    array = numpy.asarray(plane)
                    # No copy: the array is the plane's own address, inside the buffer's memory.
                    self.assertEqual(array.__array_interface__["data"][0], plane.data_ptr)
                    self.assertTrue(inside(array_span(array), memory))
                    self.assertFalse(array.flags.writeable)
                    self.assertTrue(plane.has_negative_strides)
                    numpy.testing.assert_array_equal(array, wanted)

    def test_numpy_from_dlpack_gets_a_dense_copy_of_negative_strides_unless_the_frame_keeps_them(self):
        source, view, frame = pull_view("NV12", "90r")
        memory = memory_span(view.get_buffer())
        expected = expected_planes(source, "NV12", "90r")
        for plane, wanted in zip(frame.planes, expected):
            copied = numpy.from_dlpack(plane)
            numpy.testing.assert_array_equal(copied, wanted)
            self.assertFalse(inside(array_span(copied), memory))

        source, view, kept = pull_view("NV12", "90r", negative_strides="keep")
        memory = memory_span(view.get_buffer())
        for plane, wanted in zip(kept.planes, expected_planes(source, "NV12", "90r")):
            in_place = numpy.from_dlpack(plane)
            self.assertEqual(in_place.__array_interface__["data"][0], plane.data_ptr)
            self.assertTrue(inside(array_span(in_place), memory))
            numpy.testing.assert_array_equal(in_place, wanted)

    def assert_read_in_place(self, description, kind):
        """The frame of `description`'s appsink "sink" is `kind` and its planes are its own memory,
        equal to its pixels (NumPy, DLPack, and PyTorch where it is installed)."""
        with Pipeline(description) as pipeline:
            sample = pipeline.pull("sink")
        frame = g2g.frame(sample.get_buffer(), sample.get_caps())
        self.assertEqual(frame.kind, kind)
        memory = memory_span(sample.get_buffer())
        for plane, wanted in zip(frame.planes, source_planes(sample)):
            array = numpy.asarray(plane)
            self.assertTrue(inside(array_span(array), memory))
            numpy.testing.assert_array_equal(array, wanted)
            numpy.testing.assert_array_equal(numpy.from_dlpack(plane), wanted)
            if torch is not None:
                self.assertEqual(torch.from_dlpack(plane).data_ptr(), plane.data_ptr)

    def test_a_dense_frame_is_its_buffers_planes(self):
        self.assert_read_in_place("videotestsrc num-buffers=1 ! video/x-raw,format=I420,width=33,height=17 ! "
                                  "appsink name=sink sync=false", "System")

    @unittest.skipUnless(support.has_elements("g2gdmabufupload"), "a build without the dmabuf feature")
    def test_a_dma_buf_frame_is_read_in_place(self):
        self.assert_read_in_place("videotestsrc num-buffers=1 pattern=smpte ! video/x-raw,format=NV12,width=64,"
                                  "height=48 ! g2gdmabufupload ! appsink name=sink sync=false", "DmaBuf")

    def test_materialize_into_writes_the_view_into_the_applications_arrays(self):
        source, view, frame = pull_view("NV12", "90r")
        expected = expected_planes(source, "NV12", "90r")
        # Rows wider than the plane's, as a padded tensor's: the frame goes into its rows.
        padded = [numpy.zeros((p.shape[0], p.shape[1] + 5) + p.shape[2:], numpy.uint8) for p in expected]
        targets = [array[:, :p.shape[1]] for array, p in zip(padded, expected)]
        frame.materialize_into(targets, n_threads=2)
        for target, wanted in zip(targets, expected):
            numpy.testing.assert_array_equal(target, wanted)


@unittest.skipIf(torch is None, "python3-torch is not installed")
class TorchGetsTheFrameThroughDLPack(unittest.TestCase):
    def test_negative_strides_are_materialized_once_for_torch(self):
        for fmt in FORMATS:
            with self.subTest(format=fmt):
                source, view, frame = pull_view(fmt, "90r")
                memory = memory_span(view.get_buffer())
                dense = frame.dense()
                for p, (plane, wanted) in enumerate(zip(frame.planes, expected_planes(source, fmt, "90r"))):
                    self.assertTrue(plane.has_negative_strides)
                    tensor = torch.from_dlpack(plane)
                    self.assertEqual(tuple(tensor.shape), wanted.shape)
                    self.assertTrue(all(stride > 0 for stride in tensor.stride()))
                    # Materialized: the frame's one dense copy, not the source's memory.
                    self.assertEqual(tensor.data_ptr(), dense.planes[p].data_ptr)
                    span = touched_span(tensor.data_ptr(), tuple(tensor.shape), tuple(tensor.stride()), 1)
                    self.assertFalse(inside(span, memory))
                    numpy.testing.assert_array_equal(tensor.numpy(), wanted)

    def test_a_view_with_positive_strides_reaches_torch_in_place(self):
        for fmt in FORMATS:
            with self.subTest(format=fmt):
                source, view, frame = pull_view(fmt, "ul-lr")
                memory = memory_span(view.get_buffer())
                for plane, wanted in zip(frame.planes, expected_planes(source, fmt, "ul-lr")):
                    self.assertFalse(plane.has_negative_strides)
                    tensor = torch.from_dlpack(plane)
                    self.assertEqual(tensor.data_ptr(), plane.data_ptr)
                    self.assertEqual(tuple(s * tensor.element_size() for s in tensor.stride()), plane.strides)
                    span = touched_span(tensor.data_ptr(), tuple(tensor.shape), plane.strides, 1)
                    self.assertTrue(inside(span, memory))
                    numpy.testing.assert_array_equal(tensor.numpy(), wanted)

    def test_a_frame_that_refuses_copies_tells_torch_why(self):
        source, view, frame = pull_view("RGBA", "90r", negative_strides="refuse")
        with self.assertRaises(BufferError) as refused:
            torch.from_dlpack(frame.planes[0])
        self.assertEqual(str(refused.exception),
                         "plane 0 of this RGBA view has negative strides (a flipped or rotated view), which the "
                         "consumer was not said to read: only a copy can go out, and the consumer asked for none")


class VersionedDLPack(unittest.TestCase):
    """What a DLPack 1.0 consumer (max_version=(1, 0): NumPy 2.1+, PyTorch 2.4+) gets: the versioned
    capsule, flagged read-only, and flagged copied when it is the dense copy."""

    def capsule_flags(self, capsule):
        import ctypes

        api = ctypes.pythonapi
        api.PyCapsule_GetName.restype = ctypes.c_char_p
        api.PyCapsule_GetName.argtypes = [ctypes.py_object]
        api.PyCapsule_GetPointer.restype = ctypes.c_void_p
        api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
        name = api.PyCapsule_GetName(capsule)
        tensor = api.PyCapsule_GetPointer(capsule, name)
        # DLManagedTensorVersioned: version (8 bytes), manager_ctx, deleter, then flags.
        return name, ctypes.c_uint64.from_address(tensor + 24).value, ctypes.c_uint32.from_address(tensor).value

    def test_the_versioned_capsule_says_read_only_and_copied(self):
        source, view, frame = pull_view("RGBA", "90r")
        self.assertEqual(self.capsule_flags(frame.planes[0].__dlpack__(max_version=(1, 0))),
                         (b"dltensor_versioned", 0b11, 1))
        self.assertEqual(self.capsule_flags(frame.planes[0].__dlpack__(max_version=(1, 0), copy=True)),
                         (b"dltensor_versioned", 0b10, 1))
        source, view, frame = pull_view("RGBA", "ul-lr")
        self.assertEqual(self.capsule_flags(frame.planes[0].__dlpack__(max_version=(1, 0))),
                         (b"dltensor_versioned", 0b01, 1))
        self.assertEqual(self.capsule_flags(frame.planes[0].__dlpack__())[0], b"dltensor")


class AppsinkFrames(unittest.TestCase):
    def test_frames_yields_every_sample_until_the_end_of_the_stream(self):
        with Pipeline("videotestsrc num-buffers=5 ! video/x-raw,format=NV12,width=32,height=16 ! "
                      "g2gview video-direction=90l ! appsink name=sink sync=false "
                      f"caps=\"{VIEW_CAPS}\"") as pipeline:
            frames = list(g2g.frames(pipeline.sink("sink"), timeout=10))
        self.assertEqual(len(frames), 5)
        for frame in frames:
            self.assertEqual((frame.kind, frame.format, frame.width, frame.height), ("SystemView", "NV12", 16, 32))

    def test_pull_returns_none_when_no_sample_comes(self):
        with Pipeline("videotestsrc num-buffers=1 ! video/x-raw,format=GRAY8,width=8,height=8 ! "
                      "appsink name=sink sync=false") as pipeline:
            self.assertIsNotNone(g2g.pull(pipeline.sink("sink"), timeout=10))
            self.assertIsNone(g2g.pull(pipeline.sink("sink"), timeout=10))


if __name__ == "__main__":
    unittest.main()
