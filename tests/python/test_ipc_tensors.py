# SPDX-License-Identifier: LGPL-2.1-or-later
"""NVDEC frames of another process reach PyTorch with no copy (issue 33): a gst-launch-1.0 process
decodes with nvh264dec into g2gipcsink; this process reads them with g2gipcsrc, and each CUDA
tensor's memory is the producer's frame memory, opened here by its CUDA IPC handle (the tensor's
data_ptr is the device pointer of the frame's memory in this process, and the producer counts no
copy and no conversion: no byte went through the host). The bytes equal nvh264dec's own, decoded
here. GStreamer through ctypes (the GPU machine's Python has no PyGObject). Skips without an NVIDIA
GPU, nvh264dec or the sample.

    G2G_MEDIA_DIR=.media python3 tests/python/test_ipc_tensors.py   (the package on PYTHONPATH)
"""

import os
import re
import subprocess
import tempfile
import time
import unittest

from gst_ctypes import Pipeline, device_pointer, has_elements

try:
    import torch
except ImportError as missing:
    raise unittest.SkipTest(f"PyTorch is not installed: {missing}")
if not torch.cuda.is_available():
    raise unittest.SkipTest("PyTorch sees no CUDA device")
if not has_elements("nvh264dec", "cudadownload", "h264parse", "g2gipcsink", "g2gipcsrc"):
    raise unittest.SkipTest("nvh264dec, cudadownload, h264parse, g2gipcsink or g2gipcsrc is missing")
MEDIA = os.path.join(os.environ.get("G2G_MEDIA_DIR", ""), "ball-1920x1080-300f.h264")
if not os.path.exists(MEDIA):
    raise unittest.SkipTest(f"the sample {MEDIA} is missing (set G2G_MEDIA_DIR)")

import numpy

import g2g

CUDA_CAPS = "video/x-raw(memory:CUDAMemory)"
FRAMES = 12  # compared byte for byte with nvh264dec's here; every frame is checked for its memory


class NvdecFramesOfAnotherProcessInTorch(unittest.TestCase):
    def test_a_tensor_is_the_producers_frame_memory_and_equals_its_bytes(self):
        with tempfile.TemporaryDirectory(prefix="g2g-ipc-torch-") as scratch:
            socket = os.path.join(scratch, "socket")
            log = open(os.path.join(scratch, "producer.log"), "w+")
            self.addCleanup(log.close)
            producer = subprocess.Popen(
                ["gst-launch-1.0", "-m", "filesrc", f"location={MEDIA}", "!", "h264parse",
                 "!", "nvh264dec", "!", "g2gipcsink", f"socket-path={socket}", "min-consumers=1", "queue-full=wait"],
                stdout=log, stderr=subprocess.STDOUT)
            try:
                for _ in range(200):
                    if os.path.exists(socket):
                        break
                    time.sleep(0.05)
                received = []
                with Pipeline(f"g2gipcsrc socket-path={socket} ! appsink name=cuda sync=false max-buffers=2 "
                              f"enable-last-sample=false caps=\"{CUDA_CAPS}\"") as consumer:
                    sink = consumer.element("cuda")
                    while True:
                        frame = g2g.pull(sink, timeout=20)
                        if frame is None:
                            break
                        self.assertEqual((frame.kind, frame.format, frame.width, frame.height),
                                         ("Cuda", "NV12", 1920, 1080))
                        pointer, size = device_pointer(frame.buffer_address)
                        tensors = [torch.from_dlpack(plane) for plane in frame.planes]
                        for plane, tensor in zip(frame.planes, tensors):
                            self.assertEqual(tensor.device.type, "cuda")
                            # No copy: the tensor is the frame's memory, the producer's allocation
                            # opened in this process.
                            self.assertEqual(tensor.data_ptr(), plane.data_ptr)
                            self.assertTrue(pointer <= tensor.data_ptr() < pointer + size)
                        self.assertEqual(tensors[0].data_ptr(), pointer, "luma starts the frame's memory")
                        received.append([tensor.cpu().numpy() for tensor in tensors] if len(received) < FRAMES
                                        else None)
                        del tensors, frame
                self.assertEqual(producer.wait(timeout=30), 0)
            finally:
                if producer.poll() is None:
                    producer.kill()
            log.seek(0)
            said = log.read()
            stats = re.search(r"g2gipcsink-stats, (.*)", said)
            self.assertIsNotNone(stats, said)
            self.assertIn("copies=(guint64)0,", stats.group(1))
            self.assertIn("conversions=(guint64)0,", stats.group(1))
            self.assertIn(f"shares=(guint64){len(received)},", stats.group(1))

        self.assertGreater(len(received), FRAMES)
        with Pipeline(f"filesrc location={MEDIA} ! h264parse ! nvh264dec ! cudadownload ! "
                      "video/x-raw ! appsink name=host sync=false max-buffers=2 enable-last-sample=false") as peer:
            host = peer.element("host")
            for planes in received[:FRAMES]:
                expected = g2g.pull(host, timeout=20)
                self.assertIsNotNone(expected, "nvh264dec decoded fewer frames here")
                for got, want in zip(planes, expected.planes):
                    numpy.testing.assert_array_equal(got, numpy.asarray(want))


if __name__ == "__main__":
    unittest.main()
