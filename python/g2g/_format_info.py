# SPDX-License-Identifier: LGPL-2.1-or-later
"""Plane names from GStreamer's GstVideoFormatInfo: which components each plane holds, in memory
order ("Y", "UV", "VU", "RGBA", "BGRx"), so that a reader picks planes by what they hold, whatever
format the decoder chose (I420's three planes, NV12's two, RGBA's one)."""

import ctypes

from . import _native

_MAX_COMPONENTS = 4  # GST_VIDEO_MAX_COMPONENTS
_FLAG_RGB = 1 << 1  # GST_VIDEO_FORMAT_FLAG_RGB


class _VideoFormatInfo(ctypes.Structure):
    """The head of GstVideoFormatInfo (gst/video/video-format.h), stable since GStreamer 1.0."""

    _components = ctypes.c_uint * _MAX_COMPONENTS
    _fields_ = [
        ("format", ctypes.c_int),
        ("name", ctypes.c_char_p),
        ("description", ctypes.c_char_p),
        ("flags", ctypes.c_int),
        ("bits", ctypes.c_uint),
        ("n_components", ctypes.c_uint),
        ("shift", _components),
        ("depth", _components),
        ("pixel_stride", ctypes.c_int * _MAX_COMPONENTS),
        ("n_planes", ctypes.c_uint),
        ("plane", _components),
        ("poffset", _components),
    ]


def plane_name(video_format, index, components, component_size):
    """The name of plane `index` of `video_format` (a GstVideoFormat) whose elements have
    `components` values of `component_size` bytes (its layout's): its components' letters (Y U V A,
    or R G B A; GRAY's one is Y) in the order of their byte offsets, "x" for a value that is
    padding (RGBx). An element of several pixels (YUY2's Y U Y V) is named as GStreamer names the
    format."""
    address = _native.video_format_get_info(video_format)
    if not address:
        return str(index)
    info = _VideoFormatInfo.from_address(address)
    letters = "RGBA" if info.flags & _FLAG_RGB else "YUVA"
    held = [c for c in range(min(info.n_components, _MAX_COMPONENTS)) if info.plane[c] == index]
    offsets = {c: info.poffset[c] for c in held}
    one_pixel = all(info.pixel_stride[c] == components * component_size for c in held)
    if held and one_pixel and len(set(offsets.values())) == len(held):
        if len(held) == components:
            # In the order of their offsets only: P010's V is at poffset 1 of a 2-byte U.
            return "".join(letters[c] for c in sorted(held, key=offsets.get))
        slots = {c: offset // component_size for c, offset in offsets.items()}
        if len(set(slots.values())) == len(held) and max(slots.values()) < components:
            name = ["x"] * components
            for c, slot in slots.items():
                name[slot] = letters[c]
            return "".join(name)
    return info.name.decode() if info.n_planes == 1 else str(index)
