# SPDX-License-Identifier: LGPL-2.1-or-later
"""What the Python tests share: GStreamer through PyGObject, pipelines that feed appsinks, the
source frame's planes read without g2g (GstVideo's layout of a mapped buffer: the oracle), and
where a buffer's memory lies."""

import unittest

try:
    import gi

    gi.require_version("Gst", "1.0")
    gi.require_version("GstApp", "1.0")
    gi.require_version("GstVideo", "1.0")
    from gi.repository import GLib, Gst, GstApp, GstVideo  # noqa: F401 (GstApp: appsink's methods)
except (ImportError, ValueError) as missing:
    raise unittest.SkipTest(f"PyGObject with GStreamer's typelibs is needed: {missing}")

import numpy

from gst_ctypes import watch_finalize  # noqa: F401 (for the tests)

Gst.init(None)

VIEW_CAPS = "video/x-raw(memory:SystemMemory, meta:G2gTensorView)"

# vulkanupload's VulkanImage frames for an appsink, each also through vulkandownload, which waits for
# the device: a pipeline torn down with VulkanImage frames in flight crashed in lavapipe's queue
# thread (GStreamer 1.22 and 1.26 alike; tests/support/pipeline.cpp's have_vulkan_device says so too).
VULKAN_IMAGES = "vulkanupload ! tee name=vk vk. ! queue ! vulkandownload ! fakesink vk. ! queue"


def has_elements(*names):
    return all(Gst.ElementFactory.find(name) for name in names)


class Pipeline:
    """A running pipeline whose appsinks are pulled by name; stopped on close (or exit of a with)."""

    def __init__(self, description):
        self.pipeline = Gst.parse_launch(description)
        self.pipeline.set_state(Gst.State.PLAYING)

    def sink(self, name):
        return self.pipeline.get_by_name(name)

    def pull(self, name, timeout=10):
        sample = self.sink(name).try_pull_sample(int(timeout * Gst.SECOND))
        if sample is None:
            raise AssertionError(f"appsink {name} got no sample: {self.error() or 'no error posted'}")
        return sample

    def error(self):
        message = self.pipeline.get_bus().pop_filtered(Gst.MessageType.ERROR)
        return message.parse_error()[0].message if message else None

    def close(self):
        # A Vulkan pipeline goes down once its stream has ended (its frames are all through
        # vulkandownload, which waits for the device): torn down with command buffers still running,
        # Debian 13's lavapipe crashed in its queue thread (python-gi's VulkanImage test, SIGSEGV, in
        # 2 of 2 loaded clean-clone runs). The C++ tests wait for the devices themselves
        # (tests/support/vulkan-teardown.h).
        if any(e.get_factory() and e.get_factory().get_name().startswith("vulkan")
               for e in self.pipeline.iterate_recurse()):
            self.pipeline.get_bus().timed_pop_filtered(5 * Gst.SECOND,
                                                       Gst.MessageType.EOS | Gst.MessageType.ERROR)
        self.pipeline.set_state(Gst.State.NULL)
        self.pipeline = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def source_planes(sample):
    """The planes of a dense frame as NumPy arrays of the values (rows, columns[, components]),
    read through GstVideo's layout of the mapped buffer: what g2g's planes are checked against."""
    info = GstVideo.VideoInfo.new_from_caps(sample.get_caps())
    buffer = sample.get_buffer()
    ok, mapped = buffer.map(Gst.MapFlags.READ)
    assert ok
    data = numpy.frombuffer(mapped.data, numpy.uint8).copy()
    buffer.unmap(mapped)
    finfo = info.finfo
    planes = []
    for p in range(info.finfo.n_planes):
        component = next(c for c in range(finfo.n_components) if finfo.plane[c] == p)
        components = sum(1 for c in range(finfo.n_components) if finfo.plane[c] == p)
        rows = -(-info.height >> finfo.h_sub[component]) if finfo.h_sub[component] else info.height
        columns = -(-info.width >> finfo.w_sub[component]) if finfo.w_sub[component] else info.width
        pixel = finfo.pixel_stride[component]
        size = 2 if finfo.depth[component] > 8 else 1
        row_bytes = columns * pixel
        plane = numpy.lib.stride_tricks.as_strided(data[info.offset[p]:], (rows, row_bytes),
                                                   (info.stride[p], 1))
        plane = numpy.ascontiguousarray(plane).view("<u2" if size == 2 else numpy.uint8)
        per_pixel = pixel // size
        # Packed RGB keeps every byte of its pixel (RGBx's padding too), as g2g's planes do.
        shape = (rows, columns, per_pixel) if per_pixel > 1 or components > 1 else (rows, columns)
        planes.append(plane.reshape(shape))
    return planes


def memory_span(buffer, index=0):
    """(first, end) addresses of memory `index` of `buffer`, mapped to see where it is."""
    memory = buffer.peek_memory(index)
    ok, mapped = memory.map(Gst.MapFlags.READ)
    assert ok
    first = numpy.frombuffer(mapped.data, numpy.uint8).ctypes.data
    size = mapped.size
    memory.unmap(mapped)
    return first, first + size


def touched_span(address, shape, strides, itemsize):
    """(first, end) addresses an array of `shape` and byte `strides` at `address` reads."""
    low = high = address
    for extent, stride in zip(shape, strides):
        reach = (extent - 1) * stride
        low, high = (low + reach, high) if reach < 0 else (low, high + reach)
    return low, high + itemsize


def array_span(array):
    return touched_span(array.__array_interface__["data"][0], array.shape, array.strides, array.itemsize)


def inside(span, memory):
    return memory[0] <= span[0] and span[1] <= memory[1]


def crop_then_rotate(plane, left, right, top, bottom, rotation):
    """What g2gview left/right/top/bottom and video-direction give, per videocrop then videoflip:
    rotation "90r" (clockwise), "90l", "ul-lr" (transpose) or None."""
    rows, columns = plane.shape[:2]
    cropped = plane[top:rows - bottom, left:columns - right]
    if rotation == "90r":
        return numpy.rot90(cropped, k=-1)
    if rotation == "90l":
        return numpy.rot90(cropped, k=1)
    if rotation == "ul-lr":
        return numpy.swapaxes(cropped, 0, 1)
    return cropped
