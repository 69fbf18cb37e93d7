# SPDX-License-Identifier: LGPL-2.1-or-later
"""NVDEC frames reach PyTorch and CuPy on the GPU with no copy: nvh264dec's CUDA memory is the
tensor's memory (its data_ptr is the frame's device pointer) and equals what cudadownload copies to
the host; a g2gview rotation arrives strided (CuPy) or materialized on the GPU (PyTorch, which
refuses negative strides). Runs without PyGObject (GStreamer through ctypes): the GPU machine's
Python has torch and CuPy but no PyGObject. Skips without an NVIDIA GPU, nvh264dec or the sample.

    G2G_MEDIA_DIR=.media python3 tests/python/test_cuda_tensors.py   (the package on PYTHONPATH)
"""

import gc
import os
import unittest

from gst_ctypes import Pipeline, device_pointer, has_elements, watch_finalize

try:
    import torch
except ImportError as missing:
    raise unittest.SkipTest(f"PyTorch is not installed: {missing}")
if not torch.cuda.is_available():
    raise unittest.SkipTest("PyTorch sees no CUDA device")
if not has_elements("nvh264dec", "cudadownload", "h264parse", "g2gview"):
    raise unittest.SkipTest("nvh264dec, cudadownload, h264parse or g2gview is missing")
MEDIA = os.path.join(os.environ.get("G2G_MEDIA_DIR", ""), "ball-1920x1080-300f.h264")
if not os.path.exists(MEDIA):
    raise unittest.SkipTest(f"the sample {MEDIA} is missing (set G2G_MEDIA_DIR)")

import numpy

import g2g

try:
    import cupy
except ImportError:
    cupy = None

CUDA_CAPS = "video/x-raw(memory:CUDAMemory)"
VIEW_CAPS = "video/x-raw(memory:CUDAMemory, meta:G2gTensorView)"
FRAMES = 6


def decode(view_direction="90r"):
    """The same decoded frames three ways: CUDA memory as nvh264dec made it, the host copy
    cudadownload makes of it, and a g2gview of it (CUDA memory plus the view)."""
    return Pipeline(
        f"filesrc location={MEDIA} ! h264parse ! nvh264dec ! {CUDA_CAPS} ! tee name=t "
        f"t. ! queue max-size-buffers=2 ! appsink name=cuda sync=false max-buffers=2 enable-last-sample=false caps=\"{CUDA_CAPS}\" "
        "t. ! queue max-size-buffers=2 ! cudadownload ! video/x-raw ! "
        "appsink name=host sync=false max-buffers=2 enable-last-sample=false "
        f"t. ! queue max-size-buffers=2 ! g2gview video-direction={view_direction} ! "
        f"appsink name=view sync=false max-buffers=2 enable-last-sample=false caps=\"{VIEW_CAPS}\"")


def triples(pipeline, count=FRAMES, **options):
    sinks = [pipeline.element(name) for name in ("cuda", "host", "view")]
    for _ in range(count):
        frames = [g2g.pull(sink, timeout=20, **options) for sink in sinks]
        assert all(frames), "a branch got no frame"
        yield frames


def host_planes(frame):
    return [numpy.asarray(plane) for plane in frame.planes]


class NvdecFramesInTorch(unittest.TestCase):
    def test_a_decoded_frame_is_the_tensors_memory_and_equals_cudadownloads_bytes(self):
        with decode() as pipeline:
            for cuda, host, _ in triples(pipeline):
                self.assertEqual((cuda.kind, cuda.format, cuda.width, cuda.height), ("Cuda", "NV12", 1920, 1080))
                pointer, size = device_pointer(cuda.buffer_address)
                tensors = [torch.from_dlpack(plane) for plane in cuda.planes]
                for plane, tensor in zip(cuda.planes, tensors):
                    self.assertEqual(plane.device, ("cuda", torch.cuda.current_device()))
                    self.assertEqual(tensor.device.type, "cuda")
                    # No copy: the tensor is the frame's CUDA memory.
                    self.assertTrue(pointer <= tensor.data_ptr() < pointer + size)
                    self.assertEqual(tensor.data_ptr(), plane.data_ptr)
                self.assertEqual(tensors[0].data_ptr(), pointer, "luma starts the frame's memory")
                for tensor, expected in zip(tensors, host_planes(host)):
                    numpy.testing.assert_array_equal(tensor.cpu().numpy(), expected)

    def test_a_rotation_reaches_torch_materialized_on_the_gpu(self):
        with decode("90r") as pipeline:
            for cuda, host, view in triples(pipeline):
                self.assertEqual((view.kind, view.width, view.height), ("Cuda", 1080, 1920))
                pointer, size = device_pointer(view.buffer_address)
                for p, (plane, source) in enumerate(zip(view.planes, cuda.planes)):
                    self.assertTrue(plane.has_negative_strides)
                    tensor = torch.from_dlpack(plane)
                    self.assertEqual(tensor.device.type, "cuda")
                    self.assertFalse(pointer <= tensor.data_ptr() < pointer + size, "materialized, not the frame")
                    self.assertEqual(tensor.data_ptr(), view.dense().planes[p].data_ptr)
                    expected = torch.rot90(torch.from_dlpack(source), k=-1, dims=(0, 1))
                    self.assertTrue(torch.equal(tensor, expected), f"plane {p} of the dense rotation")

    def test_the_application_writes_a_rotation_into_its_own_cuda_tensors(self):
        with decode("90l") as pipeline:
            for cuda, host, view in triples(pipeline, 2):
                targets = [torch.zeros((1920, 1080), dtype=torch.uint8, device="cuda"),
                           torch.zeros((960, 540, 2), dtype=torch.uint8, device="cuda")]
                view.materialize_into(targets)
                for target, source in zip(targets, cuda.planes):
                    expected = torch.rot90(torch.from_dlpack(source), k=1, dims=(0, 1))
                    self.assertTrue(torch.equal(target, expected))

    def test_a_destination_that_is_not_on_the_frames_gpu_is_refused(self):
        class HostMemory:  # a host array posing as device memory
            def __init__(self, array):
                self.array = array
                self.__cuda_array_interface__ = dict(array.__array_interface__, version=3)

        with decode("90l") as pipeline:
            cuda, host, view = next(triples(pipeline, 1))
        targets = [HostMemory(numpy.zeros((1920, 1080), numpy.uint8)), HostMemory(numpy.zeros((960, 540, 2), numpy.uint8))]
        with self.assertRaises(g2g.Error) as refused:
            view.materialize_into(targets)
        self.assertEqual(str(refused.exception), "destination plane 0 is not CUDA device memory: the frame is on CUDA "
                                                 "device 0, whose kernel writes it")
        self.assertFalse(targets[0].array.any(), "nothing was written")

    def test_the_buffer_is_freed_when_the_last_cuda_tensor_dies(self):
        with decode() as pipeline:
            cuda, host, view = next(triples(pipeline, 1))
        freed, keep_callback = watch_finalize(cuda.buffer_address)
        tensor = torch.from_dlpack(cuda.planes[1])
        del cuda, host, view
        gc.collect()
        self.assertFalse(freed[0], "the tensor holds the CUDA frame")
        torch.cuda.synchronize()
        del tensor
        gc.collect()
        self.assertTrue(freed[0], "the last tensor let the CUDA frame go")
        del keep_callback

    def test_numpy_is_told_to_use_a_gpu_library(self):
        with decode() as pipeline:
            cuda, host, view = next(triples(pipeline, 1))
        with self.assertRaises(TypeError) as refused:
            numpy.asarray(cuda.planes[0])
        self.assertEqual(str(refused.exception), "plane 0 of this Cuda frame is in CUDA device memory: read it with "
                                                 "torch.from_dlpack or cupy.from_dlpack, or insert cudadownload "
                                                 "before the appsink for NumPy")


@unittest.skipUnless(hasattr(torch, "uint16"), "this PyTorch has no uint16 (2.3 and later have)")
class SixteenBitPlanes(unittest.TestCase):
    def test_p010_planes_reach_torch_as_uint16_in_place(self):
        with Pipeline("videotestsrc num-buffers=1 pattern=ball ! video/x-raw,format=P010_10LE,width=64,height=48 ! "
                      "cudaupload ! tee name=t t. ! queue ! appsink name=cuda sync=false caps=\"%s\" "
                      "t. ! queue ! cudadownload ! video/x-raw ! appsink name=host sync=false" % CUDA_CAPS) as pipeline:
            cuda = g2g.pull(pipeline.element("cuda"), timeout=20)
            host = g2g.pull(pipeline.element("host"), timeout=20)
        self.assertEqual(cuda.kind, "Cuda")
        for plane, expected in zip(cuda.planes, host_planes(host)):
            tensor = torch.from_dlpack(plane)
            self.assertEqual((tensor.dtype, tensor.data_ptr()), (torch.uint16, plane.data_ptr))
            numpy.testing.assert_array_equal(tensor.cpu().to(torch.int32).numpy(), expected.astype(numpy.int32))


@unittest.skipIf(cupy is None, "CuPy is not installed")
class NvdecFramesInCuPy(unittest.TestCase):
    def test_a_rotation_reaches_cupy_strided_with_no_copy(self):
        with decode("90r") as pipeline:
            for cuda, host, view in triples(pipeline, 3, negative_strides="keep"):
                pointer, size = device_pointer(view.buffer_address)
                for plane, expected in zip(view.planes, host_planes(host)):
                    through_dlpack = cupy.from_dlpack(plane)
                    through_interface = cupy.asarray(plane)
                    for array in (through_dlpack, through_interface):
                        self.assertEqual(array.data.ptr, plane.data_ptr)
                        self.assertEqual(array.strides, plane.strides)
                        numpy.testing.assert_array_equal(cupy.asnumpy(array), numpy.rot90(expected, k=-1))
                    self.assertTrue(pointer <= plane.data_ptr < pointer + size)


if __name__ == "__main__":
    unittest.main()
