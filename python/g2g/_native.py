# SPDX-License-Identifier: LGPL-2.1-or-later
"""libg2g's C API (g2g/g2g.h, g2g/frame.h, g2g/dlpack.h) through ctypes.

ctypes rather than the G2g typelib, so that the package runs where PyGObject is not installed
(a CUDA machine's Python with torch and CuPy): it needs only libg2g and GStreamer's libraries.
The library is found as G2G_LIBRARY names it, else as the dynamic loader finds libg2g.so.0
(`meson devenv`, an installation's env.sh and the GPU bundle put theirs first on LD_LIBRARY_PATH);
where it is not, the import fails saying which of these to use.
"""

import ctypes
import os
import pathlib

# Where `meson install` puts the environment file of a prefix other than /usr (lib/env/meson.build).
_ENV_FILE = pathlib.Path("share", "g2g-1.0", "env.sh")


def _env_file():
    """The env.sh of the prefix this package was installed into, if it is there: the package lies
    some levels below the prefix (lib/python3/dist-packages/g2g, lib/python3.11/site-packages/g2g)."""
    for prefix in pathlib.Path(__file__).resolve().parents:
        if (prefix / _ENV_FILE).is_file():
            return prefix / _ENV_FILE
    return None


def _load_library():
    name = os.environ.get("G2G_LIBRARY", "libg2g.so.0")
    try:
        return ctypes.CDLL(name)
    except OSError as error:
        # The loader's own words name only the file: say what puts it where the loader looks, or
        # the user is left to guess which of five variables was missing.
        if "G2G_LIBRARY" in os.environ:
            fix = "G2G_LIBRARY must name libg2g's path (or be unset)"
        elif (env_file := _env_file()) is not None:
            fix = f"run `. {env_file}` first: it sets the paths of g2g's installation"
        else:
            fix = ("installed with a prefix other than /usr: run `. <prefix>/share/g2g-1.0/env.sh` first "
                   "(it sets LD_LIBRARY_PATH, PYTHONPATH, GI_TYPELIB_PATH, GST_PLUGIN_PATH and "
                   "PKG_CONFIG_PATH); from a build tree: run the command through `meson devenv -C <build dir>`; "
                   "or set G2G_LIBRARY to libg2g's path")
        raise ImportError(f"g2g: cannot load libg2g ({error}): {fix}") from error


_library = _load_library()
# g2g's own dependencies, loaded with it: nothing here loads a second copy.
_glib = ctypes.CDLL("libglib-2.0.so.0")
_gst = ctypes.CDLL("libgstreamer-1.0.so.0")
_gstapp = ctypes.CDLL("libgstapp-1.0.so.0")
_gstvideo = ctypes.CDLL("libgstvideo-1.0.so.0")

_p = ctypes.c_void_p
_GErrorOut = ctypes.POINTER(ctypes.c_void_p)


class _GError(ctypes.Structure):
    _fields_ = [("domain", ctypes.c_uint32), ("code", ctypes.c_int), ("message", ctypes.c_char_p)]


class PlaneLayout(ctypes.Structure):
    """G2gPlaneLayout (g2g/frame.h)."""

    _fields_ = [
        ("data", ctypes.c_size_t),
        ("device_type", ctypes.c_int),
        ("device_id", ctypes.c_int),
        ("rows", ctypes.c_uint),
        ("columns", ctypes.c_uint),
        ("components", ctypes.c_uint),
        ("component_size", ctypes.c_uint),
        ("little_endian", ctypes.c_int),
        ("row_stride", ctypes.c_int64),
        ("column_stride", ctypes.c_int64),
        ("memory_index", ctypes.c_uint),
        ("offset", ctypes.c_int64),
    ]


def _declare(library, name, restype, *argtypes):
    function = getattr(library, name)
    function.restype = restype
    function.argtypes = list(argtypes)
    return function


frame_new = _declare(_library, "g2g_frame_new", _p, _p, _p, _GErrorOut)
frame_unref = _declare(_library, "g2g_frame_unref", None, _p)
frame_get_buffer = _declare(_library, "g2g_frame_get_buffer", _p, _p)
frame_get_memory_domain = _declare(_library, "g2g_frame_get_memory_domain", ctypes.c_int, _p)
frame_get_format = _declare(_library, "g2g_frame_get_format", ctypes.c_int, _p)
frame_get_width = _declare(_library, "g2g_frame_get_width", ctypes.c_uint, _p)
frame_get_height = _declare(_library, "g2g_frame_get_height", ctypes.c_uint, _p)
frame_get_n_planes = _declare(_library, "g2g_frame_get_n_planes", ctypes.c_uint, _p)
frame_is_strided = _declare(_library, "g2g_frame_is_strided", ctypes.c_int, _p)
frame_is_copy = _declare(_library, "g2g_frame_is_copy", ctypes.c_int, _p)
frame_get_plane = _declare(_library, "g2g_frame_get_plane", ctypes.c_int, _p, ctypes.c_uint,
                           ctypes.POINTER(PlaneLayout), _GErrorOut)
frame_dense = _declare(_library, "g2g_frame_dense", _p, _p, _GErrorOut)
frame_materialize_into = _declare(_library, "g2g_frame_materialize_into", ctypes.c_int, _p,
                                  ctypes.POINTER(ctypes.c_size_t), ctypes.POINTER(ctypes.c_int),
                                  ctypes.POINTER(ctypes.c_size_t), ctypes.c_uint, ctypes.c_uint, _GErrorOut)
frame_plane_to_dlpack = _declare(_library, "g2g_frame_plane_to_dlpack", _p, _p, ctypes.c_uint, ctypes.c_int,
                                 _GErrorOut)
frame_plane_to_dlpack_versioned = _declare(_library, "g2g_frame_plane_to_dlpack_versioned", _p, _p,
                                           ctypes.c_uint, ctypes.c_int, _GErrorOut)
memory_domain_kind_name = _declare(_library, "g2g_memory_domain_kind_name", ctypes.c_char_p, ctypes.c_int)

_error_free = _declare(_glib, "g_error_free", None, _p)
gst_is_initialized = _declare(_gst, "gst_is_initialized", ctypes.c_int)
gst_init = _declare(_gst, "gst_init", None, _p, _p)
caps_from_string = _declare(_gst, "gst_caps_from_string", _p, ctypes.c_char_p)
caps_unref = _declare(_gst, "gst_caps_unref", None, _p)
sample_get_buffer = _declare(_gst, "gst_sample_get_buffer", _p, _p)
sample_get_caps = _declare(_gst, "gst_sample_get_caps", _p, _p)
sample_unref = _declare(_gst, "gst_sample_unref", None, _p)
app_sink_try_pull_sample = _declare(_gstapp, "gst_app_sink_try_pull_sample", _p, _p, ctypes.c_uint64)
app_sink_is_eos = _declare(_gstapp, "gst_app_sink_is_eos", ctypes.c_int, _p)
video_format_to_string = _declare(_gstvideo, "gst_video_format_to_string", ctypes.c_char_p, ctypes.c_int)
video_format_get_info = _declare(_gstvideo, "gst_video_format_get_info", _p, ctypes.c_int)

# G2gTensorExportFlags (g2g/dlpack.h).
EXPORT_KEEP_NEGATIVE_STRIDES = 1 << 0
EXPORT_NEVER_COPY = 1 << 1
EXPORT_ALWAYS_COPY = 1 << 2

# G2gDeviceType: DLPack's kDLCPU and kDLCUDA.
DEVICE_CPU = 1
DEVICE_CUDA = 2


class Error(Exception):
    """A GError of the G2G_ERROR domain: `code` is its G2gError code (1 unsupported domain, 2
    unknown memory, 3 map failed, 4 invalid argument), the message says who refused what and
    what to insert."""

    def __init__(self, code, message):
        super().__init__(message)
        self.code = code


def call(function, *args):
    """Calls a g2g function whose last argument is a GError**; raises Error when it sets one."""
    error = ctypes.c_void_p()
    result = function(*args, ctypes.byref(error))
    if error.value:
        failure = _GError.from_address(error.value)
        raised = Error(failure.code, failure.message.decode("utf-8", "replace"))
        _error_free(error)
        raise raised
    return result
