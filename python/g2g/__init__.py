# SPDX-License-Identifier: LGPL-2.1-or-later
"""g2g for Python applications: GStreamer frames as NumPy, PyTorch and CuPy tensors, with no copy.

    import g2g, numpy, torch
    frame = g2g.frame(sample)                 # a Gst.Sample from an appsink (or buffer, caps)
    luma = numpy.asarray(frame.planes[0])     # a read-only view of the frame's own memory
    chroma = torch.from_dlpack(frame.planes[1])

Frames of g2gview under meta:G2gTensorView caps are views: a rotation's planes have negative
strides, which NumPy reads as they are; a DLPack consumer gets the frame written densely once
unless the frame says otherwise (negative_strides). CUDA frames (nvh264dec) go out as CUDA tensors
on their device. A tensor holds its frame (buffer and mapping) exactly as long as it lives.

The C API's classification, kinds and errors are also introspected: gi.require_version('G2g',
'1.0'); from gi.repository import G2g.
"""

from ._native import Error
from .appsink import frames, pull
from .frame import NEGATIVE_STRIDES, Frame, Plane, frame

__all__ = ["Error", "Frame", "NEGATIVE_STRIDES", "Plane", "frame", "frames", "pull"]
