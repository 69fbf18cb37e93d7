# SPDX-License-Identifier: LGPL-2.1-or-later
"""A plane is named by what it holds (GStreamer's components in memory order), so that a reader
picks planes by name whatever format the decoder chose: I420's Y U V, NV12's Y UV, RGBA's one."""

import unittest

import support  # noqa: F401 (skips the module without PyGObject)
from support import VIEW_CAPS, Pipeline

import g2g

NAMES = {
    "I420": ("Y", "U", "V"),
    "YV12": ("Y", "V", "U"),
    "Y444": ("Y", "U", "V"),
    "I420_10LE": ("Y", "U", "V"),
    "NV12": ("Y", "UV"),
    "NV21": ("Y", "VU"),
    "P010_10LE": ("Y", "UV"),  # GStreamer's poffset of its V is 1, of a 2-byte U
    "GRAY8": ("Y",),
    "GRAY16_LE": ("Y",),
    "RGBA": ("RGBA",),
    "AYUV": ("AYUV",),
    "RGB": ("RGB",),
    "BGRx": ("BGRx",),  # padding as x
    "xRGB": ("xRGB",),
    "YUY2": ("YUY2",),  # an element of two pixels: Y U Y V
    "UYVY": ("UYVY",),
}


def first_frame(description):
    with Pipeline(description) as pipeline:
        return g2g.frame(pipeline.pull("sink"))


class PlaneNames(unittest.TestCase):
    def test_each_format_names_its_planes_by_their_components(self):
        for fmt, names in NAMES.items():
            with self.subTest(format=fmt):
                frame = first_frame(f"videotestsrc num-buffers=1 ! video/x-raw,format={fmt},width=64,height=48 ! "
                                    "appsink name=sink sync=false")
                self.assertEqual(tuple(plane.name for plane in frame.planes), names)
                for plane in frame.planes:
                    self.assertIs(frame.plane(plane.name), plane)

    def test_a_views_planes_keep_their_names(self):
        for fmt, direction in (("NV12", "90r"), ("I420", "horiz"), ("YUY2", "horiz")):
            with self.subTest(format=fmt, direction=direction):
                frame = first_frame(f"videotestsrc num-buffers=1 ! video/x-raw,format={fmt},width=64,height=48 ! "
                                    f"g2gview video-direction={direction} ! appsink name=sink sync=false "
                                    f"caps=\"{VIEW_CAPS}\"")
                self.assertEqual(frame.kind, "SystemView")
                # YUY2 moved sideways has no stride form: its planes are its dense copy's.
                self.assertEqual(tuple(plane.name for plane in frame.planes), NAMES[fmt])

    def test_a_plane_the_frame_does_not_have_is_refused_naming_those_it_has(self):
        frame = first_frame("videotestsrc num-buffers=1 ! video/x-raw,format=I420,width=64,height=48 ! "
                            "appsink name=sink sync=false")
        with self.assertRaises(KeyError) as refused:
            frame.plane("UV")
        self.assertEqual(refused.exception.args[0], "this I420 frame has no plane 'UV': its planes are 'Y', 'U', 'V'")
