#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Decode, rotate as a view, and hand each frame to NumPy and PyTorch: no copy where the consumer
reads the frame as it is, one dense copy where it cannot (PyTorch takes no negative strides).

    meson devenv -C build -w . python3 python/examples/frames_to_tensors.py [video.h264]

Without a file it rotates a test pattern. With an H.264 file it decodes with nvh264dec where there
is an NVIDIA GPU (the frames, and the tensors, stay in CUDA memory), else with decodebin.
"""

import sys

import gi

gi.require_version("Gst", "1.0")
from gi.repository import Gst  # noqa: E402

import numpy  # noqa: E402

import g2g  # noqa: E402

try:
    import torch
except ImportError:
    torch = None

Gst.init(None)

if len(sys.argv) > 1:
    on_gpu = Gst.ElementFactory.find("nvh264dec") is not None
    decoder = "nvh264dec ! video/x-raw(memory:CUDAMemory)" if on_gpu else "decodebin ! videoconvert"
    source = f"filesrc location={sys.argv[1]} ! h264parse ! {decoder}"
else:
    on_gpu = False
    source = "videotestsrc num-buffers=10 pattern=ball ! video/x-raw,format=NV12,width=1280,height=720"
memory = "CUDAMemory" if on_gpu else "SystemMemory"
# g2gview hands the rotation and crop on as a view (zero bytes copied) because the appsink asks
# for meta:G2gTensorView; a chain of g2gview would be one view too.
pipeline = Gst.parse_launch(f"{source} ! g2gview video-direction=90r left=16 right=16 ! "
                            f"appsink name=sink sync=false caps=\"video/x-raw(memory:{memory}, meta:G2gTensorView)\"")
pipeline.set_state(Gst.State.PLAYING)

for number, frame in enumerate(g2g.frames(pipeline.get_by_name("sink"), timeout=10)):
    # Planes by name, never by count: the decoder picks the format (nvh264dec NV12: Y, UV; a
    # software decoder I420: Y, U, V; an RGB format has one plane, RGBA).
    planes = {plane.name: plane for plane in frame.planes}
    picture = planes.get("Y", frame.planes[0])  # the luma, or the one plane of packed RGB
    chroma = planes.get("UV", planes.get("V", picture))  # the chroma (all of it, or its V)
    line = (f"frame {number}: {frame.kind} {frame.format} {frame.width}x{frame.height}, "
            f"planes {' '.join(planes)}")
    if picture.device[0] == "cpu":
        y = numpy.asarray(picture)  # the view itself: strides (1, -stride), read-only
        line += f"; numpy {picture.name} {y.shape} strides {y.strides}, mean {y.mean():.1f}"
    if torch is not None:
        uv = torch.from_dlpack(chroma)  # negative strides: one dense copy, on the frame's device
        copied = frame.dense().plane(chroma.name).data_ptr == uv.data_ptr()
        line += f"; torch {chroma.name} {tuple(uv.shape)} on {uv.device}, copied: {copied}"
    print(line, flush=True)

pipeline.set_state(Gst.State.NULL)
