# SPDX-License-Identifier: LGPL-2.1-or-later
"""Frames and their planes as tensors: NumPy through __array_interface__, CuPy through
__cuda_array_interface__, and every DLPack consumer (numpy.from_dlpack, torch.from_dlpack,
cupy.from_dlpack) through __dlpack__, all over the frame's own memory where the consumer can read
it as it is."""

import ctypes
import weakref

from . import _capsule, _format_info, _native
from ._pointers import OwnedCaps, address_of

# What DLPack export does with a plane whose strides are negative (a flipped or rotated view).
NEGATIVE_STRIDES = ("materialize", "keep", "refuse")


def frame(buffer, caps=None, *, negative_strides="materialize"):
    """The frame a buffer holds, as tensors.

    buffer: a Gst.Buffer, or a Gst.Sample (whose caps are then used), or a GstBuffer's address.
    caps: the caps the buffer was negotiated with (a Gst.Caps, a caps string or an address); for
        g2gview's output under meta:G2gTensorView caps, the view the buffer carries is the frame.
    negative_strides: what __dlpack__ hands out for a plane with negative strides: "materialize"
        (the default) a dense copy of the frame, made once, on its device; "keep" the strides as
        they are (NumPy and CuPy read them; PyTorch aborts the process on them); "refuse" a
        BufferError. __array_interface__ and __cuda_array_interface__ always give the view itself.

    Raises g2g.Error for memory no tensor can address (Vulkan images, platform handles, tiled
    DMA-BUFs), naming the domain and the converter to insert.
    """
    if negative_strides not in NEGATIVE_STRIDES:
        raise ValueError(f"negative_strides: one of {', '.join(NEGATIVE_STRIDES)}, not {negative_strides!r}")
    if caps is None:
        if not hasattr(buffer, "get_caps"):
            raise TypeError("frame: caps are needed with a buffer (they come with a Gst.Sample)")
        caps = buffer.get_caps()
        buffer = buffer.get_buffer()
    with OwnedCaps(caps) as caps_address:
        handle = _native.call(_native.frame_new, address_of(buffer, "Gst.Buffer"), caps_address)
    return Frame(handle, negative_strides)


class Frame:
    """A frame: its buffer held and its memory mapped until this object, its planes and every
    tensor made of them are gone. `planes` are its planes, each a tensor."""

    def __init__(self, handle, negative_strides):
        self._handle = handle
        self._negative_strides = negative_strides
        self._finalizer = weakref.finalize(self, _native.frame_unref, handle)
        # The planes handed out, by weak reference: a plane holds its frame (its arrays must keep
        # the frame alive), so a frame holding its planes would be a reference cycle, and the frame,
        # its buffer and mapping would then live until Python's cycle collector ran instead of
        # going with the last reference (a decoder's pool starved, tens of 4K frames held at once).
        # While any holds a plane, the frame gives that same plane again.
        self._layouts = None
        self._plane_refs = None
        self._dense = None

    @property
    def kind(self):
        """The memory domain's name: "System", "SystemView", "DmaBuf" or "Cuda"."""
        return _native.memory_domain_kind_name(_native.frame_get_memory_domain(self._handle)).decode()

    @property
    def format(self):
        """GStreamer's name of the frame's format ("RGBA", "NV12"): the view's, for a view."""
        return _native.video_format_to_string(_native.frame_get_format(self._handle)).decode()

    @property
    def width(self):
        return _native.frame_get_width(self._handle)

    @property
    def height(self):
        return _native.frame_get_height(self._handle)

    @property
    def buffer_address(self):
        """The GstBuffer's address (held by this frame)."""
        return _native.frame_get_buffer(self._handle)

    @property
    def strided(self):
        """False for a view only a copy can read (packed 4:2:2 moved sideways): its planes are
        then its dense copy's."""
        return bool(_native.frame_is_strided(self._handle))

    @property
    def is_copy(self):
        """True for a frame dense() wrote."""
        return bool(_native.frame_is_copy(self._handle))

    @property
    def planes(self):
        """The planes, each a tensor over the frame's memory (of its dense copy where the view is
        not strided)."""
        if not self.strided:
            return self.dense().planes
        if self._layouts is None:
            n = _native.frame_get_n_planes(self._handle)
            self._layouts = tuple(_plane_layout(self._handle, index) for index in range(n))
            self._plane_refs = [None] * n
        planes = []
        for index, layout in enumerate(self._layouts):
            plane = self._plane_refs[index]() if self._plane_refs[index] is not None else None
            if plane is None:
                plane = Plane(self, index, layout)
                self._plane_refs[index] = weakref.ref(plane)
            planes.append(plane)
        return tuple(planes)

    def plane(self, name):
        """The plane named `name` (Plane.name: "Y", "UV", "U", "RGBA"): the way to reach a plane
        whatever format the frame came in. KeyError, naming the planes there are, otherwise."""
        for plane in self.planes:
            if plane.name == name:
                return plane
        raise KeyError(f"this {self.format} frame has no plane {name!r}: its planes are "
                       f"{', '.join(repr(plane.name) for plane in self.planes)}")

    def dense(self):
        """The frame written densely, once, on its device (system memory by the CPU, CUDA memory
        by a kernel): planes without negative strides. A copy is its own dense frame."""
        if self.is_copy:
            return self
        if self._dense is None:
            self._dense = Frame(_native.call(_native.frame_dense, self._handle), self._negative_strides)
        return self._dense

    def materialize_into(self, destinations, n_threads=1):
        """Writes the frame densely into `destinations`, one writable array per plane whose rows
        hold the plane's (NumPy arrays, or anything with __array_interface__, for a frame in host
        memory; CuPy arrays or torch CUDA tensors, anything with __cuda_array_interface__ on the
        frame's GPU, for a CUDA frame): a view's flip, rotation and crop and the copy are one pass.
        n_threads as g2gview's n-threads (CPU writes only)."""
        n = _native.frame_get_n_planes(self._handle)
        if len(destinations) != n:
            raise ValueError(f"materialize_into: the frame has {n} planes, got {len(destinations)} destinations")
        on_device = self.kind == "Cuda"
        addresses = (ctypes.c_size_t * n)()
        strides = (ctypes.c_int * n)()
        sizes = (ctypes.c_size_t * n)()
        for p, destination in enumerate(destinations):
            addresses[p], strides[p], sizes[p] = _writable_rows(destination, on_device, p)
        _native.call(_native.frame_materialize_into, self._handle, addresses, strides, sizes, n, n_threads)

    def __repr__(self):
        return f"<g2g.Frame {self.kind} {self.format} {self.width}x{self.height}{' copy' if self.is_copy else ''}>"


def _writable_rows(destination, on_device, index):
    """(address, row stride, bytes) of a destination array whose rows are contiguous."""
    name = "__cuda_array_interface__" if on_device else "__array_interface__"
    interface = getattr(destination, name, None)
    if interface is None:
        raise TypeError(f"materialize_into: destination {index} has no {name}")
    address, read_only = interface["data"]
    if read_only:
        raise ValueError(f"materialize_into: destination {index} is read-only")
    shape = interface["shape"]
    itemsize = int(interface["typestr"][2:])
    strides = interface.get("strides")
    if strides is None:  # C-contiguous
        strides = []
        step = itemsize
        for extent in reversed(shape):
            strides.insert(0, step)
            step *= extent
    if not shape or any(extent == 0 for extent in shape):
        raise ValueError(f"materialize_into: destination {index} is empty")
    # Within a row, elements and their components must follow each other: the write is by rows.
    inner = itemsize
    for extent, stride in zip(reversed(shape[1:]), reversed(strides[1:])):
        if extent > 1 and stride != inner:
            raise ValueError(f"materialize_into: destination {index}'s rows are not contiguous (strides {strides})")
        inner *= extent
    if len(shape) > 1 and shape[0] > 1 and strides[0] < inner:
        raise ValueError(f"materialize_into: destination {index}'s rows overlap or run backwards "
                         f"(strides {strides})")
    row_stride = strides[0] if len(shape) > 1 else inner
    return address, row_stride, (shape[0] - 1) * row_stride + inner


def _plane_layout(handle, index):
    layout = _native.PlaneLayout()
    _native.call(_native.frame_get_plane, handle, index, ctypes.byref(layout))
    return layout


class Plane:
    """One plane of a frame as a tensor of unsigned integers: shape (rows, columns) or (rows,
    columns, components), strides in bytes (negative where a view runs backwards), on the CPU or a
    CUDA device. Holds its frame."""

    def __init__(self, frame, index, layout=None):
        self.frame = frame
        self.index = index
        self._layout = layout if layout is not None else _plane_layout(frame._handle, index)
        layout = self._layout
        # A third axis for elements of several values (RGBA's 4, NV12's chroma pair).
        axes = [(layout.rows, layout.row_stride), (layout.columns, layout.column_stride)]
        if layout.components > 1:
            axes.append((layout.components, layout.component_size))
        self.shape = tuple(extent for extent, _ in axes)
        self.strides = tuple(stride for _, stride in axes)  # bytes, as NumPy's

    @property
    def name(self):
        """What the plane holds, GStreamer's component letters in memory order: "Y", "U", "V"
        (I420), "Y", "UV" (NV12), "RGBA", "BGRx" (padding as x); a packed format whose element
        spans two pixels bears the format's name ("YUY2")."""
        layout = self._layout
        return _format_info.plane_name(_native.frame_get_format(self.frame._handle), self.index,
                                       layout.components, layout.component_size)

    @property
    def typestr(self):
        """The array interface's type: '|u1', '<u2' or '>u2'."""
        layout = self._layout
        if layout.component_size == 1:
            return "|u1"
        return ("<" if layout.little_endian else ">") + f"u{layout.component_size}"

    @property
    def data_ptr(self):
        """The address of element (0, 0): a CPU address, or a CUDA device pointer."""
        return self._layout.data

    @property
    def memory_offset(self):
        """(memory index, byte offset) of element (0, 0) in the buffer's memories."""
        return (self._layout.memory_index, self._layout.offset)

    @property
    def device(self):
        """("cpu", 0) or ("cuda", device ordinal)."""
        return ("cuda" if self._layout.device_type == _native.DEVICE_CUDA else "cpu", self._layout.device_id)

    @property
    def has_negative_strides(self):
        return self._layout.row_stride < 0 or self._layout.column_stride < 0

    def _interface(self):
        return {
            "version": 3,
            "shape": self.shape,
            "typestr": self.typestr,
            # Read-only: the frame may be in other branches too, or back in its pool.
            "data": (self.data_ptr, True),
            "strides": self.strides,
        }

    @property
    def __array_interface__(self):
        if self._layout.device_type != _native.DEVICE_CPU:
            raise AttributeError("__array_interface__: this plane is in CUDA device memory")
        return self._interface()

    @property
    def __cuda_array_interface__(self):
        if self._layout.device_type != _native.DEVICE_CUDA:
            raise AttributeError("__cuda_array_interface__: this plane is in host memory")
        # stream None: the frame is complete (the decoder's copy and g2g's kernels are waited for).
        return dict(self._interface(), stream=None)

    def __array__(self, dtype=None, copy=None):
        """NumPy's conversion. NumPy reads a CPU plane through __array_interface__; a CUDA plane,
        which has none, is refused here with what to do instead (NumPy would otherwise make an
        object array of this plane, a misread)."""
        if self._layout.device_type == _native.DEVICE_CPU:
            import numpy

            return numpy.array(self, dtype=dtype, copy=bool(copy))
        raise TypeError(f"plane {self.index} of this {self.frame.kind} frame is in CUDA device memory: "
                        "read it with torch.from_dlpack or cupy.from_dlpack, or insert cudadownload "
                        "before the appsink for NumPy")

    def __dlpack_device__(self):
        return (self._layout.device_type, self._layout.device_id)

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        """A DLPack capsule of the plane (versioned, read-only flag set, when the consumer passes
        max_version >= (1, 0)). stream: nothing to order, the frame is complete. copy: True a copy
        of the consumer's own, False never a copy; None (the default) the plane itself where it
        can go out as it is, else as the frame's negative_strides says."""
        del stream
        if dl_device is not None and tuple(dl_device) != self.__dlpack_device__():
            raise BufferError(f"__dlpack__: the plane is on device {self.__dlpack_device__()}, "
                              f"not {tuple(dl_device)}: g2g does not move frames between devices here")
        flags = 0
        policy = self.frame._negative_strides
        if policy == "keep":
            flags |= _native.EXPORT_KEEP_NEGATIVE_STRIDES
        if copy is True:
            flags |= _native.EXPORT_ALWAYS_COPY
        elif copy is False or policy == "refuse":
            flags |= _native.EXPORT_NEVER_COPY
        versioned = max_version is not None and tuple(max_version)[0] >= 1
        export = _native.frame_plane_to_dlpack_versioned if versioned else _native.frame_plane_to_dlpack
        try:
            tensor = _native.call(export, self.frame._handle, self.index, flags)
        except _native.Error as error:
            raise BufferError(str(error)) from error
        return _capsule.wrap(tensor, versioned)

    def __repr__(self):
        return (f"<g2g.Plane {self.index} ({self.name}) of {self.frame.format} {self.typestr} {self.shape} "
                f"strides {self.strides} on {self.device[0]}:{self.device[1]}>")
