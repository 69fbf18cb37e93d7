# SPDX-License-Identifier: LGPL-2.1-or-later
"""The C API through GObject Introspection (G2g-1.0): classification, kinds and their caps
features, errors as GLib.Error, a frame's view per plane, views made by the application
(G2g.buffer_make_view), and materialize into the application's memory."""

import unittest

import numpy

import support
from support import VIEW_CAPS, VULKAN_IMAGES, GLib, Gst, GstVideo, Pipeline, crop_then_rotate, source_planes

try:
    support.gi.require_version("G2g", "1.0")
    from gi.repository import G2g
except (ImportError, ValueError) as missing:
    raise unittest.SkipTest(f"the G2g typelib is needed: {missing}")


class KindsAndClassification(unittest.TestCase):
    def test_every_kind_has_its_seed_name_and_caps_feature(self):
        expected = {
            G2g.MemoryDomainKind.SYSTEM: ("System", "memory:SystemMemory"),
            G2g.MemoryDomainKind.SYSTEM_VIEW: ("SystemView", "memory:SystemMemory, meta:G2gTensorView"),
            G2g.MemoryDomainKind.DMA_BUF: ("DmaBuf", "memory:DMABuf"),
            G2g.MemoryDomainKind.VULKAN_TEXTURE: ("VulkanTexture", "memory:VulkanImage"),
            G2g.MemoryDomainKind.CUDA: ("Cuda", "memory:CUDAMemory"),
            G2g.MemoryDomainKind.D3D11_TEXTURE: ("D3D11Texture", "memory:D3D11Memory"),
            G2g.MemoryDomainKind.WGPU_BUFFER: ("WgpuBuffer", "memory:WgpuBuffer"),
        }
        for kind, (name, feature) in expected.items():
            self.assertEqual(G2g.memory_domain_kind_name(kind), name)
            self.assertEqual(G2g.memory_domain_kind_caps_feature(kind), feature)

    def test_the_kinds_flags_combine_as_g2gprobe_reads_them(self):
        kinds = G2g.MemoryDomainKinds.SYSTEM | G2g.MemoryDomainKinds.CUDA
        self.assertEqual(int(kinds), (1 << 0) | (1 << 5))
        probe = Gst.ElementFactory.make("g2gprobe")
        probe.set_property("require", kinds)
        self.assertEqual(int(probe.get_property("require")), int(kinds))

    def test_buffers_of_real_elements_classify(self):
        with Pipeline("videotestsrc num-buffers=1 ! video/x-raw,format=RGBA,width=32,height=16 ! tee name=t "
                      "t. ! queue ! appsink name=dense sync=false "
                      f"t. ! queue ! g2gview video-direction=90r ! appsink name=view sync=false caps=\"{VIEW_CAPS}\""
                      ) as pipeline:
            dense = pipeline.pull("dense").get_buffer()
            view = pipeline.pull("view").get_buffer()
        self.assertEqual(G2g.buffer_get_memory_domain(dense), G2g.MemoryDomainKind.SYSTEM)
        self.assertEqual(G2g.buffer_get_memory_domain(view), G2g.MemoryDomainKind.SYSTEM_VIEW)
        # The view's bytes as a CPU reader needs them: materialized once, 16x32 RGBA.
        self.assertEqual(G2g.buffer_require_system_bytes(view, "pyapp").get_size(), 16 * 32 * 4)

    @unittest.skipUnless(support.has_elements("vulkanupload"), "no vulkanupload here")
    def test_a_wrong_domain_is_a_glib_error_naming_the_converter(self):
        with Pipeline(f"videotestsrc num-buffers=1 ! video/x-raw,format=RGBA,width=32,height=16 ! {VULKAN_IMAGES} ! "
                      "appsink name=sink sync=false caps=video/x-raw(memory:VulkanImage)") as pipeline:
            image = pipeline.pull("sink").get_buffer()
            self.assertEqual(G2g.buffer_get_memory_domain(image), G2g.MemoryDomainKind.VULKAN_TEXTURE)
            with self.assertRaises(GLib.Error) as refused:
                G2g.buffer_require_system_bytes(image, "pyapp")
        error = refused.exception
        self.assertEqual(error.domain, "g2g-error-quark")
        self.assertEqual(error.code, int(G2g.Error.UNSUPPORTED_DOMAIN))
        self.assertTrue(error.matches(G2g.error_quark(), G2g.Error.UNSUPPORTED_DOMAIN))
        self.assertEqual(error.message, "pyapp reads system memory but received a VulkanTexture frame: insert "
                                        "g2gmaterialize before it, or let caps negotiation settle on system memory")


class Frames(unittest.TestCase):
    def pull(self):
        with Pipeline("videotestsrc num-buffers=1 pattern=ball ! video/x-raw,format=NV12,width=64,height=48 ! "
                      "tee name=t t. ! queue ! appsink name=source sync=false t. ! queue ! "
                      f"g2gview video-direction=90r left=4 ! appsink name=view sync=false caps=\"{VIEW_CAPS}\""
                      ) as pipeline:
            return pipeline.pull("source"), pipeline.pull("view")

    def test_a_views_planes_are_shape_strides_and_offset(self):
        source, view = self.pull()
        frame = G2g.Frame.new(view.get_buffer(), view.get_caps())
        self.assertEqual(frame.get_memory_domain(), G2g.MemoryDomainKind.SYSTEM_VIEW)
        self.assertEqual((frame.get_width(), frame.get_height(), frame.get_n_planes()), (48, 60, 2))
        self.assertTrue(frame.is_strided())
        luma = frame.get_plane(0)
        chroma = frame.get_plane(1)
        self.assertEqual((luma.rows, luma.columns, luma.components, luma.component_size), (60, 48, 1, 1))
        self.assertEqual((chroma.rows, chroma.columns, chroma.components), (30, 24, 2))
        self.assertEqual(luma.device_type, G2g.DeviceType.CPU)
        # 90r: a row of the view is a column of the source, read bottom-up.
        self.assertEqual((luma.row_stride, luma.column_stride), (1, -64))
        self.assertEqual(luma.memory_index, 0)
        self.assertEqual(luma.offset, 47 * 64 + 4)
        with self.assertRaises(GLib.Error) as refused:
            frame.get_plane(2)
        self.assertEqual(refused.exception.message, "plane 2 of a NV12 frame: it has 2 planes")

    def test_materialize_into_numpy_arrays_equals_rot90(self):
        source, view = self.pull()
        frame = G2g.Frame.new(view.get_buffer(), view.get_caps())
        targets = [numpy.zeros((60, 48), numpy.uint8), numpy.zeros((30, 24, 2), numpy.uint8)]
        frame.materialize_into([t.ctypes.data for t in targets], [t.strides[0] for t in targets],
                               [t.nbytes for t in targets], 1)
        planes = source_planes(source)
        numpy.testing.assert_array_equal(targets[0], crop_then_rotate(planes[0], 4, 0, 0, 0, "90r"))
        numpy.testing.assert_array_equal(targets[1], crop_then_rotate(planes[1], 2, 0, 0, 0, "90r"))
        with self.assertRaises(GLib.Error) as refused:
            frame.materialize_into([t.ctypes.data for t in targets], [48, 40], [t.nbytes for t in targets], 1)
        self.assertEqual(refused.exception.message, "g2g_frame_materialize_into: plane 1 of this NV12 frame is 30 "
                                                    "rows of 48 bytes; dst_stride[1] is 40, shorter than a row: the "
                                                    "rows would overlap")
        with self.assertRaises(GLib.Error) as refused:
            frame.materialize_into([targets[0].ctypes.data], [48], [targets[0].nbytes], 1)
        self.assertEqual(refused.exception.message, "g2g_frame_materialize_into needs a destination, a stride and a "
                                                    "size for each of the frame's 2 planes, got 1")

    def test_the_dense_frame_is_a_copy_without_negative_strides(self):
        source, view = self.pull()
        frame = G2g.Frame.new(view.get_buffer(), view.get_caps())
        dense = frame.dense()
        self.assertTrue(dense.is_copy())
        self.assertEqual(dense.get_memory_domain(), G2g.MemoryDomainKind.SYSTEM)
        layout = dense.get_plane(0)
        self.assertEqual((layout.row_stride, layout.column_stride), (48, 1))


class ViewsMadeByTheApplication(unittest.TestCase):
    """G2g.buffer_make_view: a rotated, cropped view of a frame the application holds, written into
    its arrays, checked against GStreamer's videocrop ! videoflip on the same frame."""

    CROP = dict(left=4, right=2, top=6, bottom=0)
    # By value: PyGObject names the methods that start with a digit differently across versions
    # (3.42: getattr(..., "90R"); later: _90R).
    _90R = GstVideo.VideoOrientationMethod(1)

    def pull(self, direction):
        crop = " ".join(f"{side}={pixels}" for side, pixels in self.CROP.items())
        with Pipeline("videotestsrc num-buffers=1 pattern=snow ! video/x-raw,format=NV12,width=64,height=48 ! "
                      "tee name=t t. ! queue ! appsink name=source sync=false t. ! queue ! "
                      f"videocrop {crop} ! videoflip video-direction={direction} ! appsink name=peer sync=false"
                      ) as pipeline:
            return pipeline.pull("source"), pipeline.pull("peer")

    def make_view(self, sample, method):
        info = GstVideo.VideoInfo.new_from_caps(sample.get_caps())
        return G2g.buffer_make_view(sample.get_buffer(), info, method, *self.CROP.values())

    def test_a_rotated_cropped_view_materialized_into_numpy_equals_videoflip(self):
        for direction, method in (("90r", self._90R),
                                  ("ur-ll", GstVideo.VideoOrientationMethod.UR_LL),
                                  ("horiz", GstVideo.VideoOrientationMethod.HORIZ)):
            with self.subTest(direction):
                source, peer = self.pull(direction)
                view, info = self.make_view(source, method)
                expected = source_planes(peer)
                self.assertEqual((info.width, info.height), (expected[0].shape[1], expected[0].shape[0]))
                self.assertEqual(G2g.buffer_get_memory_domain(view), G2g.MemoryDomainKind.SYSTEM_VIEW)
                # Zero bytes copied: the view holds the frame's own memory.
                self.assertEqual(view.peek_memory(0), source.get_buffer().peek_memory(0))
                self.assertEqual(support.memory_span(view), support.memory_span(source.get_buffer()))
                frame = G2g.Frame.new(view, info.to_caps())
                targets = [numpy.zeros_like(plane) for plane in expected]
                frame.materialize_into([t.ctypes.data for t in targets], [t.strides[0] for t in targets],
                                       [t.nbytes for t in targets], 1)
                for written, wanted in zip(targets, expected):
                    numpy.testing.assert_array_equal(written, wanted)

    def test_a_view_of_a_view_composes(self):
        source, peer = self.pull("180")
        view, info = self.make_view(source, GstVideo.VideoOrientationMethod.VERT)
        view, info = G2g.buffer_make_view(view, info, GstVideo.VideoOrientationMethod.HORIZ, 0, 0, 0, 0)
        frame = G2g.Frame.new(view, info.to_caps())
        expected = source_planes(peer)
        targets = [numpy.zeros_like(plane) for plane in expected]
        frame.materialize_into([t.ctypes.data for t in targets], [t.strides[0] for t in targets],
                               [t.nbytes for t in targets], 0)
        for written, wanted in zip(targets, expected):
            numpy.testing.assert_array_equal(written, wanted)

    def test_a_crop_larger_than_the_frame_is_a_glib_error(self):
        source, _ = self.pull("identity")
        info = GstVideo.VideoInfo.new_from_caps(source.get_caps())
        with self.assertRaises(GLib.Error) as refused:
            G2g.buffer_make_view(source.get_buffer(), info, GstVideo.VideoOrientationMethod.IDENTITY, 0, 0, 30, 18)
        self.assertTrue(refused.exception.matches(G2g.error_quark(), G2g.Error.INVALID_ARGUMENT))
        self.assertEqual(refused.exception.message, "g2g_buffer_make_view: the crop (top 30, bottom 18) leaves no "
                                                    "row of the 48-pixel-high frame")


if __name__ == "__main__":
    unittest.main()
