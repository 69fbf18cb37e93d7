# SPDX-License-Identifier: LGPL-2.1-or-later
"""The C pointers behind what an application hands the package: PyGObject's wrappers (Gst.Buffer,
Gst.Caps, Gst.Sample, GstApp.AppSink), or plain addresses where GStreamer is driven through ctypes
(a Python without PyGObject)."""

import ctypes
import sys

from . import _native


def _is_pygobject(value):
    gi = sys.modules.get("gi._gi")
    return gi is not None and isinstance(value, (gi.Boxed, gi.GObject))


def address_of(value, what):
    """The C pointer of `value`: an int or ctypes pointer as it is, a PyGObject wrapper's own.

    PyGObject's hash() of a boxed (Gst.Buffer, Gst.Caps, Gst.Sample) or of a GObject (an appsink)
    is the address of the C struct it wraps (pygboxed.c's gboxed_hash, pygobject-object.c's
    pygobject_hash). The pointer stays valid while `value` lives; callers take their own
    reference before they let it go."""
    if isinstance(value, bool) or value is None:
        raise TypeError(f"{what}: expected a {what} (a PyGObject object or an address), got {value!r}")
    if isinstance(value, int):
        address = value
    elif isinstance(value, ctypes.c_void_p):
        address = value.value
    elif _is_pygobject(value):
        address = hash(value)
    else:
        raise TypeError(f"{what}: expected a {what} (a PyGObject object or an address), got {type(value).__name__}")
    if not address:
        raise ValueError(f"{what}: a NULL pointer")
    return address


class OwnedCaps:
    """Caps as an address for the duration of a call: a Gst.Caps or address borrowed, a caps string
    parsed (and released on close)."""

    def __init__(self, caps):
        self._owned = None
        if isinstance(caps, str):
            if not _native.gst_is_initialized():
                _native.gst_init(None, None)
            self._owned = _native.caps_from_string(caps.encode())
            if not self._owned:
                raise ValueError(f"caps: cannot parse {caps!r}")
            self.address = self._owned
        else:
            self.address = address_of(caps, "Gst.Caps")

    def __enter__(self):
        return self.address

    def __exit__(self, *exc):
        if self._owned:
            _native.caps_unref(self._owned)
