# SPDX-License-Identifier: LGPL-2.1-or-later
"""What the g2g package refuses, and how: every refusal is an exception that says what was wrong and
what to do, never a misread tensor or a crash (docs/robustness.md lists them)."""

import unittest

import numpy

import gst_ctypes
import support
from support import VIEW_CAPS, Gst, Pipeline

import g2g

try:
    import torch
except ImportError:
    torch = None


def pull(description, name="sink"):
    with Pipeline(description) as pipeline:
        return pipeline.pull(name)


def rgba_frame():
    return pull("videotestsrc num-buffers=1 ! video/x-raw,format=RGBA,width=16,height=8 ! appsink name=sink sync=false")


def rgba_view(direction="90r"):
    return pull("videotestsrc num-buffers=1 ! video/x-raw,format=RGBA,width=16,height=8 ! "
                f"g2gview video-direction={direction} ! appsink name=sink sync=false caps=\"{VIEW_CAPS}\"")


class FrameArguments(unittest.TestCase):
    def test_caps_that_do_not_describe_the_buffer_are_refused(self):
        sample = rgba_frame()
        with self.assertRaises(g2g.Error) as refused:
            g2g.frame(sample.get_buffer(), "video/x-raw,format=RGBA,width=64,height=64")
        self.assertEqual(refused.exception.code, 4)
        self.assertEqual(str(refused.exception), "g2g_frame_new: plane 0 (bytes 0..16384) lies outside the "
                                                 "512-byte buffer")

    def test_a_views_caps_must_be_the_views(self):
        sample = rgba_view("90r")
        with self.assertRaises(g2g.Error) as refused:
            g2g.frame(sample.get_buffer(), "video/x-raw,format=RGBA,width=16,height=8")
        self.assertEqual(str(refused.exception), "g2g_frame_new: the buffer's view is RGBA 8x16 but the video info "
                                                 "says RGBA 16x8")

    def test_caps_that_are_not_raw_video_or_not_caps_are_refused(self):
        sample = rgba_frame()
        with self.assertRaises(g2g.Error) as refused:
            g2g.frame(sample.get_buffer(), "audio/x-raw,format=S16LE,rate=48000,channels=2")
        self.assertTrue(str(refused.exception).startswith("g2g_frame_new needs raw video caps, got caps audio/x-raw"))
        with self.assertRaises(ValueError) as unparsed:
            g2g.frame(sample.get_buffer(), "not caps at all ((")
        self.assertEqual(str(unparsed.exception), "caps: cannot parse 'not caps at all (('")

    def test_caps_that_are_not_fixed_or_have_no_pixels_are_refused_as_the_c_api_refuses_them(self):
        # The texts of tests/unit/core/test-layout-refusals.cpp: caps that are not fixed never reach
        # gst_video_info_from_caps (which asserts on them), a width of 0 is named.
        buffer = rgba_frame().get_buffer()
        not_fixed = "g2g_frame_new needs fixed raw video caps (one structure, one value per field), got caps "
        for caps, text in (("ANY", not_fixed + "ANY"), ("EMPTY", not_fixed + "EMPTY"),
                           ("video/x-raw,format={RGBA,NV12},width=16,height=8",
                            not_fixed + "video/x-raw, format=(string){ RGBA, NV12 }, width=(int)16, height=(int)8"),
                           ("video/x-raw,format=RGBA,width=0,height=8",
                            "g2g_frame_new: the caps give a frame of width 0 and height 8, which has no pixels: "
                            "video/x-raw, format=(string)RGBA, width=(int)0, height=(int)8")):
            with self.assertRaises(g2g.Error) as refused:
                g2g.frame(buffer, caps)
            self.assertEqual(refused.exception.code, 4)
            self.assertEqual(str(refused.exception), text)

    def test_a_view_over_memory_smaller_than_the_view_is_refused(self):
        # g2gview's 90r view of RGBA 16x8 carried by a buffer of 100 bytes (an element replaced the
        # memory and kept the meta): its plane would reach 512 bytes into 100.
        sample = rgba_view("90r")
        small = gst_ctypes.BufferWithOtherMemory(hash(sample.get_buffer()), 100)
        self.addCleanup(small.close)
        with self.assertRaises(g2g.Error) as refused:
            g2g.frame(small.address, sample.get_caps())
        self.assertEqual(refused.exception.code, 4)
        self.assertEqual(str(refused.exception), "g2g_frame_new: plane 0 of the view would read bytes 0..512 of a "
                                                 "100-byte memory")

    @unittest.skipUnless(support.has_elements("g2gdmabufupload"), "a build without the dmabuf feature")
    def test_dma_drm_caps_of_g2gs_own_upload_are_a_frame(self):
        source = "videotestsrc num-buffers=1 ! video/x-raw,format=NV12,width=16,height=8 ! "
        sample = pull(source + "g2gdmabufupload ! video/x-raw(memory:DMABuf),format=DMA_DRM ! "
                      "appsink name=sink sync=false")
        self.assertIn("DMA_DRM", sample.get_caps().to_string())
        frame = g2g.frame(sample)
        self.assertEqual((frame.kind, frame.format, frame.width, frame.height), ("DmaBuf", "NV12", 16, 8))
        plain = support.source_planes(pull(source + "appsink name=sink sync=false"))
        for plane, expected in zip(frame.planes, plain):
            numpy.testing.assert_array_equal(numpy.asarray(plane).reshape(expected.shape), expected)

    def test_formats_no_view_describes_are_refused(self):
        sample = pull("videotestsrc num-buffers=1 ! video/x-raw,format=ABGR64_LE,width=8,height=8 ! "
                      "appsink name=sink sync=false")
        with self.assertRaises(g2g.Error) as refused:
            g2g.frame(sample)
        self.assertEqual(str(refused.exception), "g2g_frame_new: a frame view cannot describe format ABGR64_LE")

    def test_what_is_not_a_buffer_is_refused_before_any_call(self):
        sample = rgba_view()
        for value in (None, "buffer", 0, True, 3.5):
            with self.assertRaises((TypeError, ValueError)):
                g2g.frame(value, sample.get_caps())
        with self.assertRaises(TypeError) as no_caps:
            g2g.frame(sample.get_buffer())
        self.assertEqual(str(no_caps.exception), "frame: caps are needed with a buffer (they come with a Gst.Sample)")
        with self.assertRaises(ValueError) as policy:
            g2g.frame(sample, negative_strides="sometimes")
        self.assertEqual(str(policy.exception), "negative_strides: one of materialize, keep, refuse, not 'sometimes'")

    @unittest.skipUnless(support.has_elements("vulkanupload"), "no vulkanupload here")
    def test_vulkan_images_are_refused_with_the_converter_to_insert(self):
        sample = pull(f"videotestsrc num-buffers=1 ! video/x-raw,format=RGBA,width=16,height=8 ! {support.VULKAN_IMAGES} ! "
                      "appsink name=sink sync=false caps=video/x-raw(memory:VulkanImage)")
        with self.assertRaises(g2g.Error) as refused:
            g2g.frame(sample)
        self.assertEqual(refused.exception.code, 1)
        self.assertIn("received a VulkanTexture frame: insert ", str(refused.exception))


class ExportRefusals(unittest.TestCase):
    def test_big_endian_values_read_through_the_array_interface_but_not_dlpack(self):
        sample = pull("videotestsrc num-buffers=1 ! video/x-raw,format=GRAY16_BE,width=8,height=4 ! "
                      "appsink name=sink sync=false")
        frame = g2g.frame(sample)
        plane = frame.planes[0]
        self.assertEqual(plane.typestr, ">u2")
        numpy.testing.assert_array_equal(numpy.asarray(plane), support.source_planes(sample)[0].byteswap())
        with self.assertRaises(BufferError) as refused:
            numpy.from_dlpack(plane)
        self.assertEqual(str(refused.exception), "DLPack has no byte order and its consumers read this machine's: "
                                                 "the big-endian components of GRAY16_BE would be misread "
                                                 "(videoconvert to the little-endian format first)")

    def test_a_consumer_that_forbids_copies_gets_no_negative_strides(self):
        plane = g2g.frame(rgba_view("90r")).planes[0]
        with self.assertRaises(BufferError):
            plane.__dlpack__(copy=False)
        kept = g2g.frame(rgba_view("90r"), negative_strides="keep").planes[0]
        self.assertIsNotNone(kept.__dlpack__(copy=False))

    def test_a_device_the_plane_is_not_on_is_refused(self):
        plane = g2g.frame(rgba_view("90r")).planes[0]
        with self.assertRaises(BufferError) as refused:
            plane.__dlpack__(dl_device=(2, 0))
        self.assertEqual(str(refused.exception), "__dlpack__: the plane is on device (1, 0), not (2, 0): g2g does "
                                                 "not move frames between devices here")

    def test_a_cpu_plane_has_no_cuda_array_interface(self):
        plane = g2g.frame(rgba_view("90r")).planes[0]
        self.assertFalse(hasattr(plane, "__cuda_array_interface__"))


class MaterializeIntoRefusals(unittest.TestCase):
    def setUp(self):
        self.frame = g2g.frame(rgba_view("90r"))

    def test_destinations_must_be_one_writable_array_of_contiguous_rows_per_plane(self):
        good = numpy.zeros((16, 8, 4), numpy.uint8)
        with self.assertRaises(ValueError) as count:
            self.frame.materialize_into([good, good])
        self.assertEqual(str(count.exception), "materialize_into: the frame has 1 planes, got 2 destinations")
        read_only = good.copy()
        read_only.flags.writeable = False
        with self.assertRaises(ValueError) as refused:
            self.frame.materialize_into([read_only])
        self.assertEqual(str(refused.exception), "materialize_into: destination 0 is read-only")
        with self.assertRaises(ValueError) as refused:
            self.frame.materialize_into([numpy.zeros((16, 8, 8), numpy.uint8)[:, :, ::2]])
        self.assertEqual(str(refused.exception), "materialize_into: destination 0's rows are not contiguous "
                                                 "(strides (64, 8, 2))")
        with self.assertRaises(TypeError):
            self.frame.materialize_into([[0] * 512])

    def test_a_destination_too_small_is_refused_before_any_write(self):
        small = numpy.full((15, 8, 4), 7, numpy.uint8)
        with self.assertRaises(g2g.Error) as refused:
            self.frame.materialize_into([small])
        self.assertEqual(str(refused.exception), "g2g_frame_materialize_into: plane 0 of this RGBA frame is 16 rows "
                                                 "of 32 bytes; at dst_stride[0] = 32 they take 512 bytes but "
                                                 "dst_size[0] is 480")
        self.assertTrue((small == 7).all())


if __name__ == "__main__":
    unittest.main()
