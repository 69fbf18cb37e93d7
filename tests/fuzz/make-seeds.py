#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# Writes the seed corpora (corpus/<target>/): each seed is a hand-chosen case, encoded the way
# the target's FuzzInput (fuzz-input.h) reads its bytes, so that each seed starts the fuzzer at a
# meaningful frame, chain or caps string and its mutations stay near it.
#   tests/fuzz/make-seeds.py            (rewrites corpus/view, corpus/caps, corpus/properties, corpus/layout, corpus/ipc-wire)
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


class Writer:
    """The inverse of FuzzInput: each call appends the bytes that make the reader return value."""

    def __init__(self):
        self.out = bytearray()

    def byte(self, v):
        self.out.append(v & 0xFF)
        return self

    def range(self, low, high, value):
        assert low <= value <= high, (low, high, value)
        span, n, seen = high - low, 0, 0
        while seen < span:
            n += 1
            seen = (seen << 8) | 0xFF
        self.out += (value - low).to_bytes(n, "big") if n else b""
        return self

    def flag(self, v):
        return self.byte(1 if v else 0)

    def string(self, maximum, s):
        data = s.encode()
        self.range(0, maximum, len(data))
        self.out += data
        return self

    def raw(self, data):
        self.out += data.encode() if isinstance(data, str) else data
        return self


def write(target, name, data):
    folder = os.path.join(HERE, "corpus", target)
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, name), "wb") as f:
        f.write(bytes(data))


# ---- view: must follow fuzz-view.cpp's reads in order.
VIEW_FORMATS = ["GRAY8", "GRAY16_LE", "GRAY16_BE", "RGBA", "BGRA", "ARGB", "ABGR", "RGBx", "BGRx", "xRGB",
                "xBGR", "RGB", "BGR", "AYUV", "NV12", "NV21", "I420", "YV12", "Y444", "I420_10LE",
                "P010_10LE", "YUY2", "UYVY", "YVYU"]
PLANES = {"NV12": 2, "NV21": 2, "P010_10LE": 2, "I420": 3, "YV12": 3, "Y444": 3, "I420_10LE": 3}
METHODS = {"identity": 0, "90r": 1, "180": 2, "90l": 3, "horiz": 4, "vert": 5, "ul-lr": 6, "ur-ll": 7,
           "auto": 8, "custom": 9}


def view_seed(fmt, w, h, steps=(), meta=None, size_delta=None, memories=1, cuts=(), buffer_size=None,
              crop_meta=None, caller=None, raw_format=None):
    """steps: ("orient", name) or ("crop", x, y, cw, ch, current_w, current_h) or ("badcrop", x, y, cw, ch).
    meta: None or (same_w, mw, same_h, mh, [per-plane (mode, a, b)]). caller: per-plane padding or None."""
    o = Writer()
    if raw_format is not None:
        o.byte(7).byte(raw_format)
    else:
        o.byte(0).range(0, len(VIEW_FORMATS) - 1, VIEW_FORMATS.index(fmt))
    large = w > 40 or h > 40
    o.byte(15 if large else 0)
    o.range(1, 300 if large else 40, w).range(1, 300 if large else 40, h)
    o.flag(meta is not None)
    if meta is not None:
        same_w, mw, same_h, mh, planes = meta
        o.byte(0)  # the meta's format is the caps'
        o.flag(same_w)
        if not same_w:
            o.range(1, 48, mw)
        o.flag(same_h)
        if not same_h:
            o.range(1, 48, mh)
        for mode, a, b in planes:
            o.range(0, 3, mode)
            if mode == 1:
                o.range(0, 70, a).range(0, 200, b)
            elif mode >= 2:
                o.range(-80, 400, a).range(-8, 4000, b)
    o.flag(size_delta is not None)
    if size_delta is not None:
        o.range(-40, 40, size_delta)
    o.range(1, 3, memories)
    for c in cuts:
        o.range(0, buffer_size, c)
    o.byte(0x5A)  # the fill pattern
    if crop_meta is None:
        o.byte(0)
    else:
        o.byte(3)
        for v in crop_meta:
            o.range(0, 50, v)
    o.range(0, 8, len(steps))
    for step in steps:
        if step[0] == "orient":
            o.range(0, 2, 1).range(0, 9, METHODS[step[1]])
        elif step[0] == "crop":
            _, x, y, cw, ch, cur_w, cur_h = step
            o.range(0, 2, 0).range(0, 7, 1)
            o.range(1, cur_w, cw).range(1, cur_h, ch).range(0, cur_w - cw, x).range(0, cur_h - ch, y)
        else:
            _, x, y, cw, ch = step
            o.range(0, 2, 0).range(0, 7, 0)
            for v in (x, y, cw, ch):
                o.range(0, 320, v)
    o.flag(caller is not None)
    if caller is not None:
        for pad in caller:
            o.range(0, 67, pad)
    return o.out


def view_seeds():
    write("view", "gray8-1x1-identity", view_seed("GRAY8", 1, 1))
    write("view", "rgba-8x6-90r", view_seed("RGBA", 8, 6, [("orient", "90r")]))
    write("view", "nv12-16x12-crop-180", view_seed("NV12", 16, 12, [("crop", 3, 1, 9, 7, 16, 12), ("orient", "180")]))
    write("view", "i420-33x17-ur-ll-crop", view_seed("I420", 33, 17, [("orient", "ur-ll"), ("crop", 1, 3, 11, 20, 17, 33)],
                                                    caller=[5, 0, 3]))
    write("view", "yv12-7x5-every-orientation",
          view_seed("YV12", 7, 5, [("orient", m) for m in ("90r", "horiz", "90l", "vert", "ul-lr", "180", "ur-ll")]))
    write("view", "y444-9x9-transpose", view_seed("Y444", 9, 9, [("orient", "ul-lr")]))
    write("view", "p010-13x9-horiz", view_seed("P010_10LE", 13, 9, [("orient", "horiz")]))
    write("view", "i420-10le-12x10-90l", view_seed("I420_10LE", 12, 10, [("orient", "90l")]))
    write("view", "rgb-31x7-horiz-crop", view_seed("RGB", 31, 7, [("orient", "horiz"), ("crop", 5, 2, 20, 4, 31, 7)],
                                                   caller=[7]))
    write("view", "ayuv-5x40-vert", view_seed("AYUV", 5, 40, [("orient", "vert")]))
    write("view", "gray16-64x48-90r-large", view_seed("GRAY16_LE", 64, 48, [("orient", "90r")]))
    write("view", "bgrx-300x2-180-large", view_seed("BGRx", 300, 2, [("orient", "180")]))
    write("view", "yuy2-7x4-horiz", view_seed("YUY2", 7, 4, [("orient", "horiz")]))
    write("view", "uyvy-9x6-90r", view_seed("UYVY", 9, 6, [("orient", "90r")]))
    write("view", "yvyu-10x4-odd-crop", view_seed("YVYU", 10, 4, [("crop", 1, 0, 7, 4, 10, 4)]))
    write("view", "yuy2-8x4-vert-strided", view_seed("YUY2", 8, 4, [("orient", "vert"), ("crop", 2, 1, 5, 3, 8, 4)]))
    # GstVideoMeta layouts: padded rows and moved planes; rows that overlap; a plane outside.
    write("view", "nv12-meta-padded", view_seed("NV12", 12, 8, [("orient", "90r")], meta=(True, 0, True, 0, [(1, 20, 16), (1, 4, 100)])))
    write("view", "rgba-meta-other-size", view_seed("RGBA", 8, 8, [("orient", "horiz")], meta=(False, 5, False, 3, [(0, 0, 0)])))
    write("view", "gray8-meta-zero-stride", view_seed("GRAY8", 6, 4, [("orient", "90l")], meta=(True, 0, True, 0, [(2, 0, 0)])))
    write("view", "i420-meta-plane-outside", view_seed("I420", 8, 8, [], meta=(True, 0, True, 0, [(0, 0, 0), (0, 0, 0), (2, 4, 3000)])))
    write("view", "rgb-meta-negative-stride", view_seed("RGB", 4, 4, [], meta=(True, 0, True, 0, [(2, -12, 36)])))
    # Buffers: too small, split into memories (a plane straddling two), a crop meta.
    write("view", "rgba-short-buffer", view_seed("RGBA", 4, 4, [("orient", "90r")], size_delta=-1))
    write("view", "gray8-16x8-two-memories", view_seed("GRAY8", 16, 8, [("orient", "180")], memories=2, cuts=[64], buffer_size=128))
    write("view", "gray8-16x8-straddle", view_seed("GRAY8", 16, 8, [], memories=3, cuts=[20, 100], buffer_size=128))
    write("view", "nv12-crop-meta", view_seed("NV12", 20, 10, [("orient", "90r")], crop_meta=(3, 1, 9, 7)))
    write("view", "rgba-crop-meta-outside", view_seed("RGBA", 8, 8, [], crop_meta=(5, 5, 9, 9)))
    write("view", "nv12-crop-outside", view_seed("NV12", 8, 8, [("orient", "90r"), ("badcrop", 4, 0, 6, 2)]))
    write("view", "unsupported-format", view_seed("GRAY8", 8, 8, [("orient", "90r")], raw_format=60))


# ---- caps: the element, g2gview's settings, then three strings (filter, upstream, downstream).
VIEW_CAPS = "video/x-raw(memory:SystemMemory, meta:G2gTensorView)"


def caps_seed(element, filter_caps, up="", down="", direction=0, crops=(0, 0, 0, 0)):
    o = Writer().range(0, 3, ["g2gview", "g2gmaterialize", "g2gprobe", "g2gtee"].index(element))
    if element == "g2gview":
        o.range(0, 8, direction)
        for c in crops:
            if c == 0:
                o.range(0, 3, 0)
            elif c <= 64:
                o.range(0, 3, 1).range(0, 64, c)
            elif c <= 70000:
                o.range(0, 3, 2).range(0, 70000, c)
            else:
                o.range(0, 3, 3).range(2**31 - 1 - 70000, 2**31 - 1, c)
    o.string(600, filter_caps).string(600, up).raw(down)
    return o.out


def caps_seeds():
    fixed = "video/x-raw, format=NV12, width=64, height=48, framerate=30/1"
    write("caps", "view-fixed-90r", caps_seed("g2gview", fixed, direction=1))
    write("caps", "view-fixed-crop", caps_seed("g2gview", fixed, direction=0, crops=(8, 4, 2, 6)))
    write("caps", "view-crop-all", caps_seed("g2gview", fixed, crops=(40, 30, 0, 0)))
    write("caps", "view-huge-crops", caps_seed("g2gview", "video/x-raw, width=[1, 2147483647], height=[1, 2147483647]",
                                               direction=3, crops=(2**31 - 1, 2**31 - 1, 5, 70000)))
    write("caps", "view-range-to-view", caps_seed("g2gview", "video/x-raw, format={ RGBA, NV12 }, width=[ 16, 4096 ], height=[ 16, 4096 ]",
                                                  down=VIEW_CAPS, direction=6, crops=(3, 0, 0, 1)))
    write("caps", "view-list-sizes", caps_seed("g2gview", "video/x-raw, format=I420, width={ 1, 2, 640 }, height={ 480, 3 }",
                                               direction=2, crops=(1, 1, 1, 1)))
    write("caps", "view-view-in", caps_seed("g2gview", VIEW_CAPS + ", format=YUY2, width=33, height=17, framerate=0/1",
                                            up=VIEW_CAPS, direction=4))
    write("caps", "view-par", caps_seed("g2gview", "video/x-raw, format=RGBA, width=20, height=10, pixel-aspect-ratio=4/3",
                                        direction=1))
    write("caps", "view-any-features", caps_seed("g2gview", "video/x-raw(ANY)", direction=7))
    write("caps", "view-cuda", caps_seed("g2gview", "video/x-raw(memory:CUDAMemory), format=NV12, width=64, height=64",
                                         down="video/x-raw(memory:CUDAMemory)"))
    write("caps", "view-audio", caps_seed("g2gview", "audio/x-raw, format=S16LE, rate=48000, channels=2"))
    write("caps", "view-no-size", caps_seed("g2gview", "video/x-raw, format=NV12", direction=1, crops=(4, 0, 0, 0)))
    write("caps", "view-empty", caps_seed("g2gview", "EMPTY"))
    write("caps", "materialize-view-in", caps_seed("g2gmaterialize", VIEW_CAPS + ", format=NV12, width=64, height=48, framerate=30/1",
                                                   down="video/x-raw"))
    write("caps", "materialize-any", caps_seed("g2gmaterialize", "ANY"))
    write("caps", "materialize-dmabuf", caps_seed("g2gmaterialize", "video/x-raw(memory:DMABuf), format=NV12, width=64, height=48"))
    write("caps", "probe-fixed", caps_seed("g2gprobe", fixed))
    write("caps", "probe-strange", caps_seed("g2gprobe", "application/x-rtp, media=video, payload=[ 96, 127 ]"))
    write("caps", "tee-fixed-system", caps_seed("g2gtee", fixed, down="video/x-raw"))
    write("caps", "tee-view-branch", caps_seed("g2gtee", VIEW_CAPS + ", format=RGBA, width=8, height=8, framerate=0/1",
                                               down=VIEW_CAPS))
    write("caps", "tee-vulkan", caps_seed("g2gtee", "video/x-raw(memory:VulkanImage), format=RGBA, width=8, height=8, framerate=0/1",
                                          down="video/x-raw(memory:VulkanImage)"))
    write("caps", "tee-cuda-only-branch", caps_seed("g2gtee", fixed, down="video/x-raw(memory:CUDAMemory)"))
    write("caps", "tee-dmabuf", caps_seed("g2gtee", "video/x-raw(memory:DMABuf), format=NV12, width=64, height=48, framerate=30/1"))
    write("caps", "tee-features-list", caps_seed("g2gtee", "video/x-raw(memory:SystemMemory); video/x-raw(memory:CUDAMemory); video/x-raw(ANY)"))
    # DMA_DRM caps (GStreamer 1.24's form) next to 1.22's: restated by g2gtee and g2gprobe.
    dma_drm = "video/x-raw(memory:DMABuf), format=DMA_DRM, drm-format=NV12, width=64, height=48, framerate=30/1"
    dmabuf = "video/x-raw(memory:DMABuf), format=NV12, width=64, height=48, framerate=30/1"
    write("caps", "tee-dma-drm-to-122", caps_seed("g2gtee", dma_drm, down="video/x-raw(memory:DMABuf), format=NV12"))
    write("caps", "tee-122-to-dma-drm", caps_seed("g2gtee", dmabuf, down="video/x-raw(memory:DMABuf), format=DMA_DRM"))
    write("caps", "tee-dma-drm-tiled", caps_seed("g2gtee", dma_drm.replace("NV12", "NV12:0x0100000000000001"),
                                                 down="video/x-raw"))
    write("caps", "tee-dma-drm-list", caps_seed("g2gtee", "video/x-raw(memory:DMABuf), format=DMA_DRM, "
                                                "drm-format={ NV12, YU12:0x0100000000000001, junk, ABCD }",
                                                down="video/x-raw(memory:DMABuf), format={ NV12, I420 }"))
    write("caps", "probe-dma-drm-to-122", caps_seed("g2gprobe", dma_drm, down="video/x-raw(memory:DMABuf), format=NV12"))
    write("caps", "probe-dma-drm-garbage", caps_seed("g2gprobe", dma_drm.replace("NV12", "NV12:0xZZ"),
                                                     down="video/x-raw(memory:DMABuf)"))


# ---- properties: the stream, then steps. Property indices follow g_object_class_list_properties'
# order; the fuzzer finds the rest, these seeds only make the steps' kinds frequent.
def properties_seed(fmt, w, h, sink, meta, steps):
    o = Writer()
    o.range(0, 6, ["RGBA", "NV12", "I420", "YUY2", "GRAY8", "P010_10LE", "RGB"].index(fmt))
    o.range(1, 48, w).range(1, 48, h).range(0, 2, sink).flag(meta)
    o.range(1, 24, len(steps))
    for step in steps:
        o.raw(bytes(step))
    return o.out


def properties_seeds():
    push = [2, 1]  # two frames
    # A property step: kind 0, element (v1 p1 t m v2 p2), property index, value bytes. Indices in
    # g_object_class_list_properties' order: g2gview 0 video-direction, 1 qos, 2 left, 3 right,
    # 4 top, 5 bottom; g2gprobe 0 qos, 1 require, 2 silent; g2gtee 0 async-handling,
    # 1 message-forward, 2 has-chain, 3 silent, 4 pull-mode, 5 alloc-pad, 6 allow-not-linked,
    # 7 fan-out-policy, 8 copy-budget. Ints: a mode byte (0 min, 1 max, 2 -2..2, 3 0..100, ...) and
    # its value; enums: 1 then the value's index; flags: four bytes.
    def prop(element, index, *value):
        return [0, element, index, *value]

    def caps(fmt, w, h):
        return [3, fmt, w - 1, h - 1]

    write("properties", "rgba-frames", properties_seed("RGBA", 16, 8, 0, False, [push, push]))
    write("properties", "nv12-view-crop", properties_seed("NV12", 32, 24, 2, True,
                                                          [push, prop(0, 2, 3, 7), push, prop(0, 3, 3, 9), push]))
    write("properties", "i420-rotate-both", properties_seed("I420", 17, 9, 1, False,
                                                            [prop(0, 0, 1, 1), push, prop(4, 0, 1, 3), push,
                                                             prop(4, 0, 1, 6), push]))
    write("properties", "yuy2-odd", properties_seed("YUY2", 7, 5, 0, True,
                                                    [push, prop(0, 0, 1, 4), push, prop(4, 2, 3, 1), push]))
    write("properties", "gray8-crop-everything", properties_seed("GRAY8", 8, 8, 0, False,
                                                                 [push, prop(0, 2, 1), push, prop(0, 2, 3, 0), push]))
    write("properties", "tee-budget", properties_seed("RGB", 9, 9, 0, False,
                                                      [push, prop(2, 8, 2, 2), push, prop(2, 7, 1, 1), push]))
    write("properties", "probe-require", properties_seed("P010_10LE", 12, 6, 2, False,
                                                         [push, prop(1, 1, 0, 0, 0, 4), push,
                                                          prop(5, 1, 0, 0, 0, 16), push]))
    write("properties", "caps-changes", properties_seed("NV12", 16, 16, 2, True,
                                                        [push, caps(3, 9, 3), push, prop(0, 0, 1, 1), caps(0, 48, 48),
                                                         push]))
    write("properties", "many-steps", properties_seed("RGBA", 33, 21, 1, True,
                                                      [prop(e, i, 5, 255, 255, 255, 127) for e in range(6)
                                                       for i in range(3)] + [push]))


# ---- layout: must follow fuzz-layout.cpp's reads in order. Frames here are RGBA and NV12 of widths
# that are multiples of 4, whose sizes and rows are simple: rows of w*4 (RGBA); w, and w for h/2
# chroma rows (NV12).
def layout_rows(fmt, w, h):
    """(rows, row bytes) of each plane."""
    return [(h, w * 4)] if fmt == "RGBA" else [(h, w), ((h + 1) // 2, w)]


def layout_size(fmt, w, h):
    return sum(rows * row for rows, row in layout_rows(fmt, w, h))


def layout_frame_seed(fmt, w, h, source=0, method=0, view_bytes=None, meta_planes=(), caps=0, view_caps=False,
                      destinations=None):
    """source 0: the caps' layout; 1: a video meta, meta_planes (offset choice, value, stride or None
    for the default) per plane; 2: a view (method) over view_bytes (None: the memory it was made of).
    destinations: (kind, stride value or None, size short by or None) per plane; None: all fit."""
    out = Writer().range(0, 3, 0).range(0, len(VIEW_FORMATS) - 1, VIEW_FORMATS.index(fmt))
    out.range(1, 24, w).range(1, 24, h).range(0, 3, source)
    size = layout_size(fmt, w, h)
    if source == 2:
        out.range(0, 7, method).flag(view_bytes is None)
        if view_bytes is not None:
            out.range(0, size + 64, view_bytes)
    else:
        for choice, value, stride in meta_planes:
            out.range(0, 3, choice)
            if choice == 1:
                out.range(0, 200, value)
            elif choice == 2:
                out.range(0, 3000, value)
            elif choice == 3:
                out.range(0, 4000, value)
            if stride is None:
                out.flag(True).range(0, 40, 0)
            else:
                out.flag(False).range(-80, 400, stride)
        out.flag(False).flag(False).range(0, size, 0)
    out.range(0, 7, caps)
    if caps <= 3 and source == 2:
        out.flag(view_caps)
    rows = layout_rows(fmt, w, h)
    if source == 2 and method in (1, 3, 6, 7):
        rows = layout_rows(fmt, h, w)
    for p, (n, row) in enumerate(rows):
        kind, stride, short = (destinations or {}).get(p, (2, None, None))
        out.range(0, 7, kind)
        if kind == 1:
            out.range(-70, row + 8, stride)
        else:
            out.range(0, 40, stride or 0)
        out.flag(short is None)
        if short is not None:
            out.range(1, 64, short)
    return out.range(0, 2, 1).out


def layout_dmabuf_seed(fmt, w, h, fd_size, planes, tiled=False):
    """planes: (offset choice, value, stride or None for the default) per plane."""
    out = Writer().range(0, 3, 3).range(0, len(VIEW_FORMATS) - 1, VIEW_FORMATS.index(fmt))
    out.range(1, 40, w).range(1, 40, h).byte(7 if tiled else 0).range(1, 16384, fd_size).byte(0)
    for choice, value, stride in planes:
        out.byte(0).range(0, 3, choice)
        if choice == 1:
            out.range(0, 16384, value)
        elif choice == 2:
            out.range(0, 70000, value)
        if stride is None:
            out.flag(True)
        else:
            out.flag(False).range(-10, 400, stride)
    return out.out


def layout_seeds():
    write("layout", "rgba-16x8-dense", layout_frame_seed("RGBA", 16, 8))
    for stride in (60, 4, 0):
        write("layout", f"rgba-16x8-stride-{stride}", layout_frame_seed("RGBA", 16, 8, destinations={0: (1, stride, None)}))
    write("layout", "nv12-16x8-null-chroma", layout_frame_seed("NV12", 16, 8, destinations={1: (0, None, None)}))
    write("layout", "nv12-16x8-short-size", layout_frame_seed("NV12", 16, 8, destinations={1: (2, 0, 8)}))
    write("layout", "rgba-24x16-90r-view-over-100-bytes", layout_frame_seed("RGBA", 24, 16, source=2, method=1,
                                                                             view_bytes=100, view_caps=True))
    write("layout", "rgba-24x16-90r-view", layout_frame_seed("RGBA", 24, 16, source=2, method=1))
    write("layout", "rgba-16x8-meta-offset-near-maxsize", layout_frame_seed("RGBA", 16, 8, source=1,
                                                                             meta_planes=[(3, 100, None)]))
    write("layout", "nv12-16x8-meta-short-stride", layout_frame_seed("NV12", 16, 8, source=1,
                                                                      meta_planes=[(0, 0, None), (1, 40, 12)]))
    for caps, name in ((4, "width-0"), (5, "any"), (6, "empty"), (7, "format-list")):
        write("layout", f"rgba-16x8-caps-{name}", layout_frame_seed("RGBA", 16, 8, caps=caps))
    write("layout", "dmabuf-rgba-16x8-dense", layout_dmabuf_seed("RGBA", 16, 8, 512, [(0, 0, None)]))
    write("layout", "dmabuf-rgba-16x8-offset-near-maxsize", layout_dmabuf_seed("RGBA", 16, 8, 4096, [(2, 100, None)]))
    write("layout", "dmabuf-nv12-16x8-dense", layout_dmabuf_seed("NV12", 16, 8, 192, [(0, 0, None), (0, 0, None)]))
    write("layout", "dmabuf-nv12-16x8-tiled", layout_dmabuf_seed("NV12", 16, 8, 4096, [(0, 0, None), (1, 2048, None)],
                                                                 tiled=True))
    write("layout", "dmabuf-nv12-16x8-chroma-past-fd", layout_dmabuf_seed("NV12", 16, 8, 200,
                                                                          [(0, 0, None), (1, 150, None)]))


def new_buffer(memories, metas=(), frame_id=42, kind=0):
    """A NEW_BUFFER payload as unixfdsink writes it (host order: this x86-64's little-endian)."""
    import struct
    out = struct.pack("<6QIBBH", frame_id, 1000, 2**64 - 1, 33, 2**64 - 1, 2**64 - 1, 0, kind, len(memories), len(metas))
    for size, offset in memories:
        out += struct.pack("<QQ", size, offset)
    for name, version, payload in metas:
        out += struct.pack("<II", 8 + len(name) + 2 + len(payload), len(name)) + name + b"\0" + bytes([version]) + payload
    return out


def video_meta(width, height, offsets, strides):
    import struct
    n = len(offsets)
    return (struct.pack("<iiIII", 0, 23, width, height, n) + struct.pack(f"<{n}Q", *offsets)
            + struct.pack(f"<{n}i", *strides) + struct.pack("<4I", 0, 0, 0, 0) + struct.pack(f"<{n}I", *([0] * n)))


def ipc_wire_seeds():
    # The input: the descriptor count, then the payload (fuzz-ipc-wire.cpp).
    nv12 = video_meta(64, 48, [0, 80 * 48], [80, 80])
    write("ipc-wire", "nv12-one-memfd-video-meta", bytes([1]) + new_buffer([(80 * 72, 0)], [(b"GstVideoMeta", 0, nv12)]))
    write("ipc-wire", "two-dmabufs-two-metas", bytes([2]) + new_buffer([(4096, 0), (2048, 4096)],
                                                                     [(b"GstVideoMeta", 0, nv12), (b"G2gTestMeta", 3, b"abc")],
                                                                     kind=1))
    write("ipc-wire", "no-memory", bytes([0]) + new_buffer([]))
    write("ipc-wire", "fd-count-short", bytes([0]) + new_buffer([(100, 0)]))
    write("ipc-wire", "memory-end-wraps", bytes([1]) + new_buffer([(2048, 2**64 - 100)]))
    write("ipc-wire", "nv12-vulkan-images", bytes([2]) + new_buffer([(12288, 0), (8192, 0)],
                                                                    [(b"G2gVulkanImages", 1, vulkan_images(7, [
                                                                        (9, 64, 48, 0x17, 0, 1, 12288),
                                                                        (16, 32, 24, 0x17, 0, 1, 8192)]))],
                                                                    kind=2))

    # A decoder's frame: one multi-planar image (VK_FORMAT_G8_B8R8_2PLANE_420_UNORM, 1000156003) of its
    # coded size, with its profile's caps.
    write("ipc-wire", "nv12-vulkan-decoded", bytes([1]) + new_buffer([(20480, 0)],
                                                                     [(b"G2gVulkanImages", 1, vulkan_images(7, [
                                                                         (1000156003, 64, 64, 0x405, 0, 1, 20480)])),
                                                                      (b"G2gVulkanVideoProfile", 1,
                                                                       b"video/x-h264, profile=(string)high, "
                                                                       b"chroma-format=(string)4:2:0, "
                                                                       b"bit-depth-luma=(uint)8, bit-depth-chroma=(uint)8")],
                                                                     kind=2))

    # A view of those images: their layout (64x48), then the view record (fuzz-ipc-wire reads it for
    # a stream of NV12 64x48): the identity view, which it accepts, and a 90r one (48x64), refused.
    def view_record(width, height, origin, col, row):
        import struct
        return struct.pack("<3I6q", 23, width, height, *origin, *col, *row)  # 23: GST_VIDEO_FORMAT_NV12
    for name, view in (("identity", view_record(64, 48, (0, 0), (1, 0), (0, 1))),
                       ("90r", view_record(48, 64, (0, 47), (0, -1), (1, 0)))):
        write("ipc-wire", "nv12-vulkan-view-" + name,
              bytes([2]) + new_buffer([(12288, 0), (8192, 0)],
                                      [(b"G2gVulkanImages", 1, vulkan_images(7, [
                                          (9, 64, 48, 0x17, 0, 1, 12288),
                                          (16, 32, 24, 0x17, 0, 1, 8192)])),
                                       (b"GstVideoMeta", 0, video_meta(64, 48, [0, 64 * 48], [64, 64])),
                                       (b"G2gTensorView", 1, view)],
                                      kind=2))

    write("ipc-wire", "nv12-cuda-ipc-handle", bytes([0]) + new_buffer([(3110400, 0)],
                                                                      [(b"GstVideoMeta", 0, nv12),
                                                                       (b"G2gCudaIpc", 1, bytes(range(64)) +
                                                                        (512).to_bytes(8, "little") +
                                                                        (3110400).to_bytes(8, "little"))],
                                                                      kind=3))


def vulkan_images(frame, planes):
    """A G2gVulkanImages record's payload (gst/ipc/ipc-vulkan-record.cpp)."""
    import struct
    out = bytes(range(16)) + bytes(0xf0 | i for i in range(16)) + struct.pack("<QI", frame, len(planes))
    for plane in planes:
        out += struct.pack("<6IQ", *plane)
    return out


if __name__ == "__main__":
    view_seeds()
    caps_seeds()
    properties_seeds()
    layout_seeds()
    ipc_wire_seeds()
    sys.exit(0)
