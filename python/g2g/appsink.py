# SPDX-License-Identifier: LGPL-2.1-or-later
"""Frames pulled from an appsink: GstApp.AppSink objects of PyGObject, or an appsink's address
where GStreamer is driven through ctypes."""

from . import _native
from ._pointers import address_of
from .frame import frame as _frame

# GST_CLOCK_TIME_NONE: wait as long as it takes.
_FOREVER = 0xFFFFFFFFFFFFFFFF


def pull(appsink, timeout=None, *, negative_strides="materialize"):
    """The next sample of `appsink` as a frame, waiting at most `timeout` seconds (None: until a
    sample or the end of the stream); None at the end of the stream or when the time ran out."""
    sink = address_of(appsink, "GstAppSink")
    nanoseconds = _FOREVER if timeout is None else max(0, int(timeout * 1e9))
    sample = _native.app_sink_try_pull_sample(sink, nanoseconds)
    if not sample:
        return None
    try:
        return _frame(_native.sample_get_buffer(sample), _native.sample_get_caps(sample),
                      negative_strides=negative_strides)
    finally:
        _native.sample_unref(sample)


def frames(appsink, timeout=None, *, negative_strides="materialize"):
    """Every sample of `appsink` as a frame, until the end of the stream (or until no sample came
    for `timeout` seconds). Each frame holds its buffer only as long as it (or a tensor of it)
    lives: a pipeline's pool gets its buffers back as the application lets frames go."""
    while True:
        pulled = pull(appsink, timeout, negative_strides=negative_strides)
        if pulled is None:
            return
        yield pulled
