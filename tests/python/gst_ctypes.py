# SPDX-License-Identifier: LGPL-2.1-or-later
"""GStreamer through ctypes, for the tests that must run in a Python without PyGObject (the GPU
machine's, which has torch and CuPy): pipelines whose appsinks are pulled by address, and weak
references on buffers."""

import ctypes

_gst = ctypes.CDLL("libgstreamer-1.0.so.0")
_p = ctypes.c_void_p


def _declare(name, restype, *argtypes):
    function = getattr(_gst, name)
    function.restype = restype
    function.argtypes = list(argtypes)
    return function


_init = _declare("gst_init", None, _p, _p)
_parse_launch = _declare("gst_parse_launch", _p, ctypes.c_char_p, ctypes.POINTER(_p))
_set_state = _declare("gst_element_set_state", ctypes.c_int, _p, ctypes.c_int)
_get_state = _declare("gst_element_get_state", ctypes.c_int, _p, _p, _p, ctypes.c_uint64)
_get_by_name = _declare("gst_bin_get_by_name", _p, _p, ctypes.c_char_p)
_object_unref = _declare("gst_object_unref", None, _p)
_element_factory_find = _declare("gst_element_factory_find", _p, ctypes.c_char_p)
_memory_map = _declare("gst_memory_map", ctypes.c_int, _p, _p, ctypes.c_int)
_memory_unmap = _declare("gst_memory_unmap", None, _p, _p)
_buffer_peek_memory = _declare("gst_buffer_peek_memory", _p, _p, ctypes.c_uint)
_NOTIFY = ctypes.CFUNCTYPE(None, _p, _p)
_weak_ref = _declare("gst_mini_object_weak_ref", None, _p, _NOTIFY, _p)

_STATE_NULL, _STATE_PLAYING = 1, 4
# GST_MAP_READ | GST_MAP_CUDA (gstcudamemory.h: GST_MAP_FLAG_LAST << 1).
MAP_CUDA_READ = 1 | (1 << 17)

_init(None, None)


class MapInfo(ctypes.Structure):
    """GstMapInfo."""

    _fields_ = [("memory", _p), ("flags", ctypes.c_int), ("data", _p), ("size", ctypes.c_size_t),
                ("maxsize", ctypes.c_size_t), ("user_data", _p * 4), ("_gst_reserved", _p * 4)]


def has_elements(*names):
    found = [_element_factory_find(name.encode()) for name in names]
    for factory in found:
        if factory:
            _object_unref(factory)
    return all(found)


class Pipeline:
    """A pipeline from a gst-launch description, PLAYING until closed; its elements by address."""

    def __init__(self, description):
        error = _p()
        self.pipeline = _parse_launch(description.encode(), ctypes.byref(error))
        if not self.pipeline or error.value:
            raise RuntimeError(f"cannot parse {description!r}")
        self._elements = []
        _set_state(self.pipeline, _STATE_PLAYING)

    def element(self, name):
        element = _get_by_name(self.pipeline, name.encode())
        if not element:
            raise KeyError(name)
        self._elements.append(element)
        return element

    def close(self):
        _set_state(self.pipeline, _STATE_NULL)
        _get_state(self.pipeline, None, None, 0xFFFFFFFFFFFFFFFF)
        for element in self._elements:
            _object_unref(element)
        _object_unref(self.pipeline)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def watch_finalize(buffer_address):
    """A flag set when the GstBuffer at `buffer_address` is finalized: returns a list whose first
    item turns True, and the callback to keep alive until then."""
    freed = [False]

    def notify(data, obj):
        freed[0] = True

    callback = _NOTIFY(notify)
    _weak_ref(buffer_address, callback, None)
    return freed, callback


def device_pointer(buffer_address, index=0):
    """(CUdeviceptr, size) of CUDA memory `index` of a buffer, mapped for it as any CUDA element does."""
    memory = _buffer_peek_memory(buffer_address, index)
    info = MapInfo()
    if not _memory_map(memory, ctypes.byref(info), MAP_CUDA_READ):
        raise RuntimeError("cannot map the CUDA memory")
    pointer, size = info.data, info.size
    _memory_unmap(memory, ctypes.byref(info))
    return pointer, size


_buffer_copy = _declare("gst_buffer_copy", _p, _p)
_buffer_new_allocate = _declare("gst_buffer_new_allocate", _p, _p, ctypes.c_size_t, _p)
_buffer_get_all_memory = _declare("gst_buffer_get_all_memory", _p, _p)
_buffer_replace_all_memory = _declare("gst_buffer_replace_all_memory", None, _p, _p)
_mini_object_unref = _declare("gst_mini_object_unref", None, _p)


class BufferWithOtherMemory:
    """A copy of the buffer at `buffer_address` (its metas: a view's G2gTensorViewMeta comes along)
    whose memory is replaced by `size` new bytes, as an element that swaps a frame's memory and keeps
    its metas makes it. `address` is the copy's; it lives until close()."""

    def __init__(self, buffer_address, size):
        self.address = _buffer_copy(buffer_address)
        other = _buffer_new_allocate(None, size, None)
        _buffer_replace_all_memory(self.address, _buffer_get_all_memory(other))
        _mini_object_unref(other)

    def close(self):
        _mini_object_unref(self.address)
