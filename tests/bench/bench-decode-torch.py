#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Decoded H.264 frames to PyTorch on the GPU, whole paths, g2g against what an application does
today, on the same streams in one run (paths alternating round by round):

  decode alone     filesrc ! h264parse ! nvh264dec ! appsink (CUDA memory), each sample pulled and
                   dropped: the baseline every other path is measured against
  g2g in place     the same frames as CUDA torch tensors through g2g (torch.from_dlpack of each
                   plane: the decoder's memory, no copy), no view
  g2g 90r torch    nvh264dec ! g2gview video-direction=90r ! appsink (CUDA memory + the view meta);
                   torch.from_dlpack of each plane. PyTorch holds no negative strides, so this is
                   the rotated frame written densely once on the GPU by g2g's kernel (what
                   .contiguous() would make of a strided view): the row the goals are read from
  g2g 90r into     the same view written by g2g into the application's own CUDA tensors
                   (Frame.materialize_into: the rotation and the copy are one kernel)
  g2g 90r CuPy     the same view as CuPy arrays over the decoder's memory with negative strides, no
                   copy at all (only where CuPy is installed)
  g2g crop torch   nvh264dec ! g2gview left/right/top/bottom ! appsink: the crop as CUDA tensors in
                   place (positive strides: no copy)
  g2g host 90r     nvh264dec ! cudadownload ! g2gview 90r ! appsink (system memory): g2g rotates on
                   the CPU, then torch.from_dlpack(plane).cuda(); and the same with identity
                   drop-allocation=true before g2gview, so that cudadownload copies into its own
                   pool instead of handing its CUDA memory on for g2gview to map
  today            nvh264dec ! cudadownload ! videoflip video-direction=90r ! appsink:
                   gst_buffer_map, numpy.frombuffer(...).copy(), torch.from_numpy(copy).cuda()

Every path ends the way a consumer would: the sum of every plane on the device, read back to the
host (int(...): the device is waited for), so no path can skip work. Before the timed rounds the
program checks, once per path, that its tensors at two frames equal the decoded frame rotated or
cropped by torch on the host (the g2g paths and today's path against the same expectation, so
they equal each other too).

Frames per second of a whole run (pipeline and consumer together, as an application sees them),
from the end of the 10th frame's consumer to the end of the last; best of --rounds runs of each
path. "added" is a path's ms/frame minus decode alone's in the same rounds; "today / added" is
today's added cost over the path's; "whole / decode" the path's frame rate over decode alone's;
"app ms" the consumer's own time per frame in the application's thread (pull excluded).

    G2G_MEDIA_DIR=.media python3 tests/bench/bench-decode-torch.py [--rounds 5] [--csv DIR]
        [--streams ball-1920x1080-300f.h264,...] [--paths decode,g2g-90r,today,...] [--min-frames 240]
        [--cpu-test]

GStreamer through ctypes (tests/python/gst_ctypes.py): the GPU machine's Python has torch and CuPy
but no PyGObject; GStreamer's libraries and libg2g are found through LD_LIBRARY_PATH (the GPU
bundle's env.sh sets it). The g2g package comes from PYTHONPATH, else from the build directory
(G2G_BUILD_DIR, default build/ at the project's root: build/python, and build/lib/libg2g.so.0 where
the loader finds no libg2g), else from .gstbundle/python (the package copied into the bundle:
docs/performance.md).
Without torch, a CUDA device or nvh264dec it says so and exits 0. --cpu-test runs the same code
with a software decoder (openh264dec or avdec_h264) and CPU tensors: it tests this program on a
machine without a GPU; its figures are not the benchmark.

Goals (issue 32): at 4K g2g's added cost at least 5x below today's; g2g's whole path at least 0.9x
decode alone.
"""

import argparse
import ctypes
import os
import pathlib
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "python"))


def _import_g2g():
    """The g2g package from PYTHONPATH, else as the build assembled it (the build directory's
    python/, its lib/ for libg2g where the loader finds none), else from a GPU bundle's python/
    (the package copied there beside the bundle's libg2g)."""
    try:
        import g2g
        return g2g
    except ImportError:
        pass
    build = pathlib.Path(os.environ.get("G2G_BUILD_DIR", ROOT / "build"))
    for folder in (build / "python", ROOT / ".gstbundle" / "python"):
        if (folder / "g2g" / "_capsule.abi3.so").exists():
            sys.path.insert(0, str(folder))
            break
    library = build / "lib" / "libg2g.so.0"
    if "G2G_LIBRARY" not in os.environ and library.exists():
        try:
            ctypes.CDLL("libg2g.so.0")
        except OSError:
            os.environ["G2G_LIBRARY"] = str(library)
    import g2g
    return g2g


try:
    import numpy
except ImportError as missing:
    print(f"bench-decode-torch: NumPy is not installed ({missing}): nothing measured")
    sys.exit(0)
try:
    import torch
except ImportError as missing:
    print(f"bench-decode-torch: PyTorch is not installed ({missing}): nothing measured")
    sys.exit(0)

import gst_ctypes  # noqa: E402  (initializes GStreamer)
from gst_ctypes import MapInfo, Pipeline, has_elements  # noqa: E402

g2g = _import_g2g()

try:
    import cupy
except ImportError:
    cupy = None

_p = ctypes.c_void_p


def _declare(library, name, restype, *argtypes):
    function = getattr(library, name)
    function.restype = restype
    function.argtypes = list(argtypes)
    return function


_gst = ctypes.CDLL("libgstreamer-1.0.so.0")
_gstapp = ctypes.CDLL("libgstapp-1.0.so.0")
_gstvideo = ctypes.CDLL("libgstvideo-1.0.so.0")
_glib = ctypes.CDLL("libglib-2.0.so.0")
_try_pull_sample = _declare(_gstapp, "gst_app_sink_try_pull_sample", _p, _p, ctypes.c_uint64)
_sample_get_buffer = _declare(_gst, "gst_sample_get_buffer", _p, _p)
_sample_get_caps = _declare(_gst, "gst_sample_get_caps", _p, _p)
_sample_unref = _declare(_gst, "gst_sample_unref", None, _p)
_buffer_map = _declare(_gst, "gst_buffer_map", ctypes.c_int, _p, _p, ctypes.c_int)
_buffer_unmap = _declare(_gst, "gst_buffer_unmap", None, _p, _p)
_element_get_bus = _declare(_gst, "gst_element_get_bus", _p, _p)
_bus_pop_filtered = _declare(_gst, "gst_bus_pop_filtered", _p, _p, ctypes.c_int)
_message_parse_error = _declare(_gst, "gst_message_parse_error", None, _p, ctypes.POINTER(_p), _p)
_message_unref = _declare(_gst, "gst_mini_object_unref", None, _p)
_object_unref = _declare(_gst, "gst_object_unref", None, _p)
_error_free = _declare(_glib, "g_error_free", None, _p)
_version_string = _declare(_gst, "gst_version_string", ctypes.c_char_p)
_video_info_new = _declare(_gstvideo, "gst_video_info_new", _p)
_video_info_free = _declare(_gstvideo, "gst_video_info_free", None, _p)
_video_info_from_caps = _declare(_gstvideo, "gst_video_info_from_caps", ctypes.c_int, _p, _p)
_video_format_to_string = _declare(_gstvideo, "gst_video_format_to_string", ctypes.c_char_p, ctypes.c_int)

_MESSAGE_ERROR = 1 << 1
_MAP_READ = 1
_SECOND = 1_000_000_000


class _GError(ctypes.Structure):
    _fields_ = [("domain", ctypes.c_uint32), ("code", ctypes.c_int), ("message", ctypes.c_char_p)]


class _VideoFormatInfo(ctypes.Structure):
    """The start of GstVideoFormatInfo: its format."""

    _fields_ = [("format", ctypes.c_int)]


class _VideoInfo(ctypes.Structure):
    """The start of GstVideoInfo (gst/video/video-info.h, 1.22 to 1.28), up to the strides; always
    allocated by gst_video_info_new, so its tail is never needed here."""

    _fields_ = [("finfo", ctypes.POINTER(_VideoFormatInfo)), ("interlace_mode", ctypes.c_int),
                ("flags", ctypes.c_int), ("width", ctypes.c_int), ("height", ctypes.c_int),
                ("size", ctypes.c_size_t), ("views", ctypes.c_int), ("chroma_site", ctypes.c_int),
                ("colorimetry", ctypes.c_int * 4), ("par_n", ctypes.c_int), ("par_d", ctypes.c_int),
                ("fps_n", ctypes.c_int), ("fps_d", ctypes.c_int), ("offset", ctypes.c_size_t * 4),
                ("stride", ctypes.c_int * 4)]


# Plane geometry of the decoders' formats: (rows divisor, columns divisor, components) per plane.
PLANES = {"NV12": [(1, 1, 1), (2, 2, 2)], "I420": [(1, 1, 1), (2, 2, 1), (2, 2, 1)]}


def video_layout(caps):
    """(format, width, height, [(offset, stride, rows, columns, components)]) of raw video caps,
    as GstVideoInfo computes them (what an application reads from GstVideo.VideoInfo)."""
    info_address = _video_info_new()
    try:
        if not _video_info_from_caps(info_address, caps):
            raise RuntimeError("caps that are not raw video")
        info = _VideoInfo.from_address(info_address)
        name = _video_format_to_string(info.finfo.contents.format).decode()
        if name not in PLANES:
            raise RuntimeError(f"a format this benchmark does not split into planes: {name}")
        planes = []
        for index, (rows_div, columns_div, components) in enumerate(PLANES[name]):
            planes.append((info.offset[index], info.stride[index], -(-info.height // rows_div),
                           -(-info.width // columns_div), components))
        return name, info.width, info.height, planes
    finally:
        _video_info_free(info_address)


def pipeline_error(pipeline):
    """The message of the first error the pipeline posted, or None."""
    bus = _element_get_bus(pipeline.pipeline)
    message = _bus_pop_filtered(bus, _MESSAGE_ERROR)
    _object_unref(bus)
    if not message:
        return None
    error = _p()
    _message_parse_error(message, ctypes.byref(error), None)
    text = _GError.from_address(error.value).message.decode("utf-8", "replace")
    _error_free(error)
    _message_unref(message)
    return text


class Setup:
    """Where the frames are and what moves them: the GPU machine's (nvh264dec, CUDA memory, CUDA
    tensors), or --cpu-test's (a software decoder, system memory, CPU tensors)."""

    def __init__(self, cpu_test):
        self.cpu_test = cpu_test
        if cpu_test:
            self.decoder = "openh264dec" if has_elements("openh264dec") else "avdec_h264"
            self.raw_caps = "video/x-raw"
            self.view_caps = "video/x-raw(memory:SystemMemory, meta:G2gTensorView)"
            self.download = "identity"  # stands for cudadownload: the frames are in system memory
            self.device = torch.device("cpu")
        else:
            self.decoder = "nvh264dec"
            self.raw_caps = "video/x-raw(memory:CUDAMemory)"
            self.view_caps = "video/x-raw(memory:CUDAMemory, meta:G2gTensorView)"
            self.download = "cudadownload"
            self.device = torch.device("cuda")

    def missing(self):
        """Why this machine cannot run the benchmark, or None."""
        needed = ["filesrc", "multifilesrc", "h264parse", self.decoder, "g2gview", "videoflip", "identity", "appsink"]
        if not self.cpu_test:
            if not torch.cuda.is_available():
                return "PyTorch sees no CUDA device (--cpu-test runs this program on the CPU)"
            needed.append("cudadownload")
        absent = [name for name in needed if not has_elements(name)]
        if absent:
            return f"no {', '.join(absent)} here"
        return None


SINK = "appsink name=sink sync=false max-buffers=2 enable-last-sample=false"
# The crop: even, so that the subsampled chroma planes are cropped by whole samples.
CROP = {"left": 64, "right": 64, "top": 32, "bottom": 32}


def touch_torch(planes):
    """What a consumer does with the frame: reads all of it on its device (one reduction a plane);
    int() waits for the device."""
    total = planes[0].sum(dtype=torch.int64)
    for plane in planes[1:]:
        total = total + plane.sum(dtype=torch.int64)
    return int(total)


def touch_cupy(arrays):
    xp = cupy if cupy is not None and isinstance(arrays[0], cupy.ndarray) else numpy
    total = arrays[0].sum(dtype=xp.int64)
    for array in arrays[1:]:
        total = total + array.sum(dtype=xp.int64)
    return int(total)


def host_copy(array):
    """A copy of a plane (torch tensor, CuPy or NumPy array) on the host: its own bytes, which the
    next frames cannot change (a CPU tensor's .numpy() would be the frame's memory, or the
    application's tensor that the next frame is written into)."""
    if isinstance(array, torch.Tensor):
        return numpy.array(array.cpu().numpy())
    if cupy is not None and isinstance(array, cupy.ndarray):
        return cupy.asnumpy(array)
    return numpy.array(array)


class Path:
    """One way from the decoder to tensors: the pipeline after the decoder, and what the
    application does with each sample (returns the planes, touched)."""

    def __init__(self, key, label, tail, consume, expect):
        self.key, self.label, self.tail, self.consume, self.expect = key, label, tail, consume, expect
        self.state = {}

    def start(self):
        self.state = {}


def make_paths(setup):
    device = setup.device
    crop = " ".join(f"{side}={pixels}" for side, pixels in CROP.items())

    def frame_of(sample):
        return g2g.frame(_sample_get_buffer(sample), _sample_get_caps(sample))

    def drop(path, sample):
        return None

    def in_place(path, sample):
        planes = [torch.from_dlpack(plane) for plane in frame_of(sample).planes]
        touch_torch(planes)
        return planes

    def into_own(path, sample):
        frame = frame_of(sample)
        targets = path.state.get("targets")
        if targets is None:
            targets = [torch.empty(plane.shape, dtype=torch.uint8, device=device) for plane in frame.planes]
            path.state["targets"] = targets
        # materialize_into takes __cuda_array_interface__ (CUDA) or __array_interface__ (host).
        frame.materialize_into(targets if device.type == "cuda" else [t.numpy() for t in targets])
        touch_torch(targets)
        return targets

    def strided(path, sample):
        frame = g2g.frame(_sample_get_buffer(sample), _sample_get_caps(sample), negative_strides="keep")
        convert = cupy.asarray if device.type == "cuda" else numpy.asarray
        arrays = [convert(plane) for plane in frame.planes]
        touch_cupy(arrays)
        return arrays

    def host_round_trip(path, sample):
        planes = [torch.from_dlpack(plane).to(device) for plane in frame_of(sample).planes]
        touch_torch(planes)
        return planes

    def today(path, sample):
        buffer = _sample_get_buffer(sample)
        layout = path.state.get("layout")
        if layout is None:
            layout = path.state["layout"] = video_layout(_sample_get_caps(sample))
        _, _, _, planes = layout
        info = MapInfo()
        if not _buffer_map(buffer, ctypes.byref(info), _MAP_READ):
            raise RuntimeError("gst_buffer_map failed")
        try:
            copy = numpy.frombuffer((ctypes.c_uint8 * info.size).from_address(info.data), numpy.uint8).copy()
        finally:
            _buffer_unmap(buffer, ctypes.byref(info))
        whole = torch.from_numpy(copy).to(device)
        # The planes as views of the uploaded bytes, at GstVideoInfo's offsets and strides.
        tensors = []
        for offset, stride, rows, columns, components in planes:
            if components > 1:
                tensors.append(whole.as_strided((rows, columns, components), (stride, components, 1), offset))
            else:
                tensors.append(whole.as_strided((rows, columns), (stride, 1), offset))
        touch_torch(tensors)
        return tensors

    def rotated(planes):
        return [numpy.rot90(plane, k=-1, axes=(0, 1)) for plane in planes]

    def cropped(planes):
        out = []
        for index, plane in enumerate(planes):
            step = 1 if index == 0 else 2
            rows, columns = plane.shape[0], plane.shape[1]
            out.append(plane[CROP["top"] // step:rows - CROP["bottom"] // step,
                             CROP["left"] // step:columns - CROP["right"] // step])
        return out

    def unchanged(planes):
        return planes

    paths = [
        Path("decode", "decode alone", f"! {setup.raw_caps} ! {SINK}", drop, None),
        Path("g2g-in-place", "g2g in place (no view)", f"! {setup.raw_caps} ! {SINK}", in_place, unchanged),
        Path("g2g-90r", "g2g 90r torch (dense on the device by g2g)",
             f"! g2gview video-direction=90r ! {setup.view_caps} ! {SINK}", in_place, rotated),
        Path("g2g-90r-into", "g2g 90r into the app's tensors",
             f"! g2gview video-direction=90r ! {setup.view_caps} ! {SINK}", into_own, rotated),
    ]
    if cupy is not None or setup.cpu_test:
        library = "NumPy" if setup.cpu_test else "CuPy"
        paths.append(Path("g2g-90r-strided", f"g2g 90r strided, no copy ({library})",
                          f"! g2gview video-direction=90r ! {setup.view_caps} ! {SINK}", strided, rotated))
    paths += [
        Path("g2g-crop", "g2g crop torch (in place)", f"! g2gview {crop} ! {setup.view_caps} ! {SINK}",
             in_place, cropped),
        # As a user writes it: cudadownload hands its CUDA memory on under system caps to g2gview,
        # whose allocation answer lists GstVideoMeta (always on 1.22), and g2gview reads it once
        # through its mapping (docs/design-notes.md, known trouble), as videoflip does below.
        Path("g2g-host", "g2g host round trip (cudadownload ! g2gview 90r, .cuda())",
             f"! {setup.download} ! video/x-raw ! g2gview video-direction=90r ! video/x-raw ! {SINK}",
             host_round_trip, rotated),
        # The same with cudadownload made to download into its own pool (identity answers no
        # allocation query, so no GstVideoMeta): which of the two downloads costs less.
        Path("g2g-host-pool", "g2g host round trip, cudadownload's own copy (identity drop-allocation=true)",
             f"! {setup.download} ! video/x-raw ! identity drop-allocation=true ! g2gview video-direction=90r "
             f"! video/x-raw ! {SINK}", host_round_trip, rotated),
        Path("today", "today: cudadownload ! videoflip 90r, map+copy, .cuda()",
             f"! {setup.download} ! videoflip video-direction=90r ! video/x-raw ! {SINK}", today, rotated),
    ]
    return paths


class Stream:
    def __init__(self, name, location, repeat):
        self.name, self.location, self.repeat = name, location, repeat

    def source(self):
        if self.repeat == 1:
            return f"filesrc location={self.location} ! h264parse"
        # The file again and again: an H.264 byte stream that starts with its parameter sets.
        return (f"multifilesrc location={self.location} start-index=0 stop-index={self.repeat - 1} "
                "caps=video/x-h264,stream-format=byte-stream ! h264parse")


class PathFailed(RuntimeError):
    pass


def run(setup, stream, path, warmup, stop_after=None, keep=()):
    """Runs `path` on `stream`: (frames timed, seconds, application seconds, {index: planes on the
    host} for the frames in `keep`)."""
    path.start()
    description = f"{stream.source()} ! {setup.decoder} {path.tail}"
    kept = {}
    with Pipeline(description) as pipeline:
        sink = pipeline.element("sink")
        count, app_seconds, started = 0, 0.0, None
        while stop_after is None or count < stop_after:
            sample = _try_pull_sample(sink, 60 * _SECOND)
            if not sample:
                break
            begin = time.perf_counter()
            try:
                planes = path.consume(path, sample)
            except Exception as error:
                _sample_unref(sample)
                raise PathFailed(f"{type(error).__name__}: {error}") from error
            _sample_unref(sample)
            done = time.perf_counter()
            if count in keep:
                kept[count] = [host_copy(plane) for plane in planes]
            del planes
            count += 1
            if started is not None:
                app_seconds += done - begin
            if count == warmup:
                started = done
        ended = time.perf_counter()
        error = pipeline_error(pipeline)
    if error:
        raise PathFailed(f"the pipeline failed: {error} ({description})")
    if stop_after is None and (started is None or count <= warmup):
        raise PathFailed(f"only {count} frames ({description})")
    timed = count - warmup if started is not None else 0
    return timed, (ended - started) if started is not None else 0.0, app_seconds, kept


def check(setup, stream, paths, frames):
    """Each path's planes at `frames` against the decoded frame (g2g in place) rotated or cropped
    on the host: (path key -> "equal" or what differs)."""
    reference_path = next(p for p in paths if p.key == "g2g-in-place")
    last = max(frames) + 1
    _, _, _, reference = run(setup, stream, reference_path, warmup=0, stop_after=last, keep=frames)
    verdicts = {}
    for path in paths:
        if path.expect is None:
            continue
        try:
            _, _, _, got = run(setup, stream, path, warmup=0, stop_after=last, keep=frames)
        except PathFailed as failure:
            verdicts[path.key] = f"failed: {failure}"
            continue
        verdict = "equal"
        for index in frames:
            if index not in got or index not in reference:
                verdict = f"frame {index} missing"
                break
            expected = path.expect(reference[index])
            for p, (plane, want) in enumerate(zip(got[index], expected)):
                if plane.shape != want.shape:
                    verdict = f"frame {index} plane {p}: shape {plane.shape}, expected {want.shape}"
                elif not numpy.array_equal(plane, want):
                    differ = int(numpy.count_nonzero(plane != want))
                    verdict = f"frame {index} plane {p}: {differ} of {plane.size} bytes differ"
                if verdict != "equal":
                    break
            if verdict != "equal":
                break
        verdicts[path.key] = verdict
    return verdicts


def ratio_text(value, digits=2):
    return "-" if value is None else f"{value:.{digits}f}x"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--warmup", type=int, default=10, help="frames before the timing starts (10)")
    parser.add_argument("--min-frames", type=int, default=240,
                        help="a stream shorter than this is played again within a run (multifilesrc) (240)")
    parser.add_argument("--streams", default="ball-1920x1080-300f.h264,smpte-3840x2160-120f.h264")
    parser.add_argument("--paths", default=None, help="path keys, comma-separated (all)")
    parser.add_argument("--csv", default=None, metavar="DIR", help="write decode-torch*.csv there")
    parser.add_argument("--no-check", action="store_true", help="skip the byte checks")
    parser.add_argument("--cpu-test", action="store_true",
                        help="software decoder and CPU tensors: tests this program where there is no GPU")
    args = parser.parse_args()
    sys.stdout.reconfigure(line_buffering=True)  # what a stopped run printed is there

    setup = Setup(args.cpu_test)
    why = setup.missing()
    if why:
        print(f"bench-decode-torch: {why}: nothing measured")
        return 0
    paths = make_paths(setup)
    if args.paths:
        wanted = args.paths.split(",")
        unknown = set(wanted) - {p.key for p in paths}
        if unknown:
            print(f"unknown paths {', '.join(sorted(unknown))}; there are {', '.join(p.key for p in paths)}")
            return 2
        paths = [p for p in paths if p.key in wanted or p.key in ("decode", "g2g-in-place")]

    torch.zeros(1, device=setup.device).sum().item()  # the device's context, before any timing
    print(f"{_version_string().decode()}, torch {torch.__version__}"
          + (f" ({torch.cuda.get_device_name()})" if setup.device.type == "cuda" else "")
          + (f", CuPy {cupy.__version__}" if cupy is not None else ", no CuPy (its path is left out)"))
    if args.cpu_test:
        print(f"CPU TEST MODE ({setup.decoder}, CPU tensors, identity for cudadownload): this tests the "
              "program, its figures are not the benchmark")
    media = os.environ.get("G2G_MEDIA_DIR")
    directories = [d for d in (media, ROOT / ".media", ROOT.parent / "shared" / "media") if d]
    csv_rows = []
    failed_checks = False
    for name in args.streams.split(","):
        location = next((pathlib.Path(d) / name for d in directories if (pathlib.Path(d) / name).exists()), None)
        if location is None:
            print(f"\n{name}: not on this machine (set G2G_MEDIA_DIR): skipped")
            continue
        # The frame count from the name (ball-1920x1080-300f.h264), to decide the repeats.
        frames_in_file = next((int(part[:-1]) for part in name.rsplit(".", 1)[0].split("-")
                               if part.endswith("f") and part[:-1].isdigit()), args.min_frames)
        repeat = max(1, -(-args.min_frames // frames_in_file))
        stream = Stream(name, location, repeat)
        print(f"\n## {name}: {frames_in_file * repeat} frames a run ({repeat}x the file), "
              f"timed from frame {args.warmup}; best of {args.rounds} rounds, paths alternating")

        failures = {}
        if not args.no_check:
            verdicts = check(setup, stream, paths, frames=(0, min(37, frames_in_file - 1)))
            print("check (frames 0 and 37 against the decoded frame, rotated or cropped on the host):")
            for path in paths:
                if path.key in verdicts:
                    verdict = verdicts[path.key]
                    print(f"  {path.label}: {verdict}")
                    if verdict.startswith("failed"):
                        failures[path.key] = verdict
                    elif verdict != "equal":
                        failed_checks = True
        best = {}
        spread = {}
        app = {}
        for _ in range(args.rounds):
            for path in paths:
                if path.key in failures:
                    continue
                try:
                    timed, seconds, app_seconds, _ = run(setup, stream, path, args.warmup)
                except PathFailed as failure:
                    failures[path.key] = f"failed: {failure}"
                    print(f"  {path.label}: {failures[path.key]}")
                    continue
                ms = 1000 * seconds / timed
                if ms < best.get(path.key, float("inf")):
                    best[path.key] = ms
                    app[path.key] = 1000 * app_seconds / timed
                spread.setdefault(path.key, []).append(ms)
        if "decode" not in best:
            print("decode alone did not run: no table")
            continue
        decode_ms = best["decode"]
        today_added = best["today"] - decode_ms if "today" in best else None
        noise = max(spread["decode"]) - min(spread["decode"])
        print(f"\n| path | fr/s | ms/frame | added ms/frame | today's added / this path's | whole path / decode alone "
              f"| app thread ms/frame |")
        print("|---|---|---|---|---|---|---|")
        for path in paths:
            if path.key not in best:
                print(f"| {path.label} | {failures.get(path.key, 'not run')} | | | | | |")
                continue
            ms = best[path.key]
            added = ms - decode_ms
            whole = decode_ms / ms
            if path.key == "decode":
                versus, added_text = None, "-"
            else:
                added_text = f"{added:.3f}"
                versus = today_added / added if today_added is not None and added > 0 else None
            versus_text = ratio_text(versus, 1)
            if path.key not in ("decode", "today") and today_added is not None and added <= 0:
                versus_text = "no added cost measurable"
            print(f"| {path.label} | {1000 / ms:.1f} | {ms:.3f} | {added_text} | {versus_text} | "
                  f"{whole:.2f}x | {app[path.key]:.3f} |")
            csv_rows.append((name, path.key, 1000 / ms, ms, added if path.key != "decode" else 0.0,
                             versus if versus is not None else "", whole))
        print(f"decode alone's rounds spread over {noise:.3f} ms/frame (the noise of an added cost)")
        # The goals, read from the torch row (a dense tensor, what a model takes); the other g2g
        # 90r rows beside it.
        for key, what in (("g2g-90r", "g2g 90r torch"), ("g2g-90r-into", "(g2g 90r into)"),
                          ("g2g-90r-strided", "(g2g 90r strided)")):
            if key not in best:
                continue
            g2g_added = best[key] - decode_ms
            whole = decode_ms / best[key]
            line = f"{what}: whole path {whole:.2f}x decode alone (goal 0.9x: {'met' if whole >= 0.9 else 'NOT met'})"
            if today_added is not None and "3840x2160" in name:
                if g2g_added <= 0:
                    line += (f"; adds nothing measurable ({g2g_added:.3f} ms), today's {today_added:.3f} ms "
                             "(goal 5x: met)")
                else:
                    factor = today_added / g2g_added
                    line += (f"; adds {g2g_added:.3f} ms, today's {today_added:.3f} ms: {factor:.1f}x "
                             f"(goal at 4K 5x: {'met' if factor >= 5 else 'NOT met'})")
            print(line)
    if args.csv and csv_rows:
        write_csv(args.csv, csv_rows, [p.key for p in paths])
    if failed_checks:
        print("\nSOME PATH'S BYTES DIFFER FROM THE EXPECTED FRAME (see the checks above): its figures do not count")
        return 1
    return 0


def write_csv(directory, rows, order):
    """decode-torch.csv (every figure), and for tests/bench/plot-decode-torch.gp one file a figure
    with a column a stream: decode-torch-added.csv (added ms/frame), decode-torch-whole.csv (whole
    path / decode alone)."""
    os.makedirs(directory, exist_ok=True)
    with open(os.path.join(directory, "decode-torch.csv"), "w") as out:
        out.write("stream,path,fps,ms_per_frame,added_ms,today_added_over_added,whole_over_decode\n")
        for row in rows:
            out.write(",".join(str(v) if not isinstance(v, float) else f"{v:.4f}" for v in row) + "\n")
    streams = list(dict.fromkeys(row[0] for row in rows))
    table = {(row[0], row[1]): row for row in rows}
    short = {s: s.split("-")[1] if "-" in s else s for s in streams}
    for figure, column, skip in (("added", 4, {"decode"}), ("whole", 6, set())):
        with open(os.path.join(directory, f"decode-torch-{figure}.csv"), "w") as out:
            out.write("path," + ",".join(short[s] for s in streams) + "\n")
            for key in order:
                if key in skip or not any((s, key) in table for s in streams):
                    continue
                values = [f"{table[(s, key)][column]:.4f}" if (s, key) in table else "" for s in streams]
                out.write(f"{key}," + ",".join(values) + "\n")
    print(f"\nCSV files in {directory}")


if __name__ == "__main__":
    sys.exit(main())
