#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The CPU path end to end: frames of a pipeline, rotated 90 degrees, to NumPy and PyTorch, g2g
against what an application does today, at 720p, 1080p and 4K (NV12), on the same frames in one
run (methods alternating round by round).

1. Per frame, on frames pulled beforehand from `videotestsrc pattern=ball ! tee`, one branch plain,
   one through `g2gview video-direction=90r` under meta:G2gTensorView caps (the same frames):
     g2g NumPy view     g2g.frame(sample), numpy.asarray of every plane: the rotated view itself,
                        negative strides, no copy (O(1): NumPy reads it where it lies)
     g2g torch          torch.from_dlpack of every plane: the rotated frame written densely once by
                        g2g (PyTorch holds no negative strides), contiguous
     g2g into           Frame.materialize_into the application's own NumPy arrays (one pass)
     map+copy+rot90     Gst.Buffer.map, numpy.frombuffer(...).copy(), unmap, numpy.rot90 of each
                        plane: a view of the copy (what the g2g NumPy view gives, one copy later)
     ... contiguous     the same, numpy.ascontiguousarray of each rotated plane, torch.from_numpy:
                        what a model takes (what g2g torch gives)
   The view rows compare views, the other rows dense rotated frames.
2. Whole paths: frames/s of `videotestsrc ! [g2gview 90r !] appsink` with the consumer of 1 (NumPy
   view / torch), against `videotestsrc ! appsink` with map+copy+rot90 (view / contiguous) and
   `videotestsrc ! videoflip 90r ! appsink` with map+copy, next to the source alone (pulled and
   dropped): the cost each adds beyond producing the frames, as bench-decode-torch.py reports it
   for decoded frames on the GPU.
Before timing, the program checks that every method's planes equal numpy.rot90 of the source's.

    meson devenv -C build -w . python3 tests/bench/bench-cpu-path.py [--rounds 7] [--frames 12]
        [--run-frames 90] [--whole-rounds 5] [--sizes 720p,1080p,4K] [--no-whole] [--csv DIR]
"""

import argparse
import os
import sys
import time

import gi

gi.require_version("Gst", "1.0")
from gi.repository import Gst  # noqa: E402

import numpy  # noqa: E402

import g2g  # noqa: E402

try:
    import torch
except ImportError:
    torch = None

SIZES = {"720p": (1280, 720), "1080p": (1920, 1080), "4K": (3840, 2160)}
VIEW_CAPS = "video/x-raw(memory:SystemMemory, meta:G2gTensorView)"
SINK = "sync=false max-buffers=2 enable-last-sample=false"


def source(width, height, count=None):
    frames = f" num-buffers={count}" if count else ""
    return f"videotestsrc{frames} pattern=ball ! video/x-raw,format=NV12,width={width},height={height}"


def pulled_pairs(width, height, count):
    """`count` frames of the source: (plain sample, sample of the 90r view of the same frame)."""
    pipeline = Gst.parse_launch(
        f"{source(width, height, count)} ! tee name=t "
        f"t. ! queue ! appsink name=dense sync=false max-buffers=0 "
        f"t. ! queue ! g2gview video-direction=90r ! appsink name=view caps=\"{VIEW_CAPS}\" sync=false "
        "max-buffers=0")
    pipeline.set_state(Gst.State.PLAYING)
    dense, view = pipeline.get_by_name("dense"), pipeline.get_by_name("view")
    pairs = [(dense.emit("pull-sample"), view.emit("pull-sample")) for _ in range(count)]
    pipeline.set_state(Gst.State.NULL)
    return pairs


# The consumers. Each returns the planes it made (so that nothing is dropped unmade).

def g2g_view(sample):
    return [numpy.asarray(plane) for plane in g2g.frame(sample).planes]


def g2g_torch(sample):
    return [torch.from_dlpack(plane) for plane in g2g.frame(sample).planes]


class Into:
    """materialize_into the application's own arrays, allocated once."""

    def __init__(self):
        self.targets = None

    def __call__(self, sample):
        frame = g2g.frame(sample)
        if self.targets is None:
            self.targets = [numpy.empty(plane.shape, numpy.uint8) for plane in frame.planes]
        frame.materialize_into(self.targets)
        return self.targets


def nv12_planes(array, width, height):
    """NV12's planes over a dense frame's bytes (GstVideoInfo's default layout, no padding at these
    sizes): luma (height, width), chroma (height / 2, width / 2, 2)."""
    luma = array[:width * height].reshape(height, width)
    chroma = array[width * height:width * height * 3 // 2].reshape(height // 2, width // 2, 2)
    return luma, chroma


def map_copy(sample):
    buffer = sample.get_buffer()
    ok, mapped = buffer.map(Gst.MapFlags.READ)
    if not ok:
        raise RuntimeError("Gst.Buffer.map failed")
    array = numpy.frombuffer(mapped.data, numpy.uint8).copy()
    buffer.unmap(mapped)
    structure = sample.get_caps().get_structure(0)
    return nv12_planes(array, structure.get_value("width"), structure.get_value("height"))


def map_copy_rot90(sample):
    return [numpy.rot90(plane, k=-1, axes=(0, 1)) for plane in map_copy(sample)]


def map_copy_rot90_contiguous(sample):
    planes = [numpy.ascontiguousarray(plane) for plane in map_copy_rot90(sample)]
    return [torch.from_numpy(plane) for plane in planes] if torch else planes


def map_copy_only(sample):
    return map_copy(sample)


def drop(sample):
    return None


def host(planes):
    return [p.numpy() if torch is not None and isinstance(p, torch.Tensor) else numpy.asarray(p) for p in planes]


def per_frame_us(methods, rounds):
    """Best of `rounds` of each method's mean time per frame (µs); the methods take turns within
    each round, each round starting with an untimed frame."""
    best = [float("inf")] * len(methods)
    for _ in range(rounds):
        for index, (function, frames) in enumerate(methods):
            function(frames[0])
            start = time.perf_counter()
            for sample in frames:
                made = function(sample)
                del made
            best[index] = min(best[index], (time.perf_counter() - start) / len(frames))
    return [seconds * 1e6 for seconds in best]


def whole_run_ms(description, consume, frames, warmup=5):
    """ms per frame of a whole run: from the end of the `warmup`th frame's consumer to the last's."""
    pipeline = Gst.parse_launch(description)
    sink = pipeline.get_by_name("sink")
    pipeline.set_state(Gst.State.PLAYING)
    count, started = 0, None
    while True:
        sample = sink.emit("try-pull-sample", 30 * Gst.SECOND)
        if sample is None:
            break
        made = consume(sample)
        del made, sample
        count += 1
        if count == warmup:
            started = time.perf_counter()
    ended = time.perf_counter()
    message = pipeline.get_bus().pop_filtered(Gst.MessageType.ERROR)
    pipeline.set_state(Gst.State.NULL)
    if message:
        raise RuntimeError(f"{description}: {message.parse_error()[0].message}")
    if count != frames or started is None:
        raise RuntimeError(f"{description}: {count} frames of {frames}")
    return 1000 * (ended - started) / (count - warmup)


def check(pairs):
    """Every method's planes against numpy.rot90 of the source's, for the first two frames."""
    for dense, view in pairs[:2]:
        expected = [numpy.rot90(plane, k=-1, axes=(0, 1)) for plane in map_copy(dense)]
        results = {"g2g NumPy view": g2g_view(view), "g2g into": Into()(view),
                   "map+copy+rot90": map_copy_rot90(dense),
                   "map+copy+rot90 contiguous": map_copy_rot90_contiguous(dense)}
        if torch:
            results["g2g torch"] = g2g_torch(view)
        for name, planes in results.items():
            for index, (got, want) in enumerate(zip(host(planes), expected)):
                if got.shape != want.shape or not numpy.array_equal(got, want):
                    raise SystemExit(f"check failed: {name}, plane {index}, differs from numpy.rot90 of the source")
    return True


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--frames", type=int, default=12, help="frames per method and round in section 1 (12)")
    parser.add_argument("--run-frames", type=int, default=90, help="frames per whole run in section 2 (90)")
    parser.add_argument("--whole-rounds", type=int, default=5)
    parser.add_argument("--sizes", default="720p,1080p,4K")
    parser.add_argument("--no-whole", action="store_true", help="section 1 only")
    parser.add_argument("--csv", default=None, metavar="DIR", help="write cpu-path.csv and cpu-path-whole.csv")
    args = parser.parse_args()
    Gst.init(None)
    sizes = args.sizes.split(",")
    print(f"{Gst.version_string()}, NumPy {numpy.__version__}, "
          + (f"torch {torch.__version__}" if torch else "no torch (its rows are left out)")
          + f", {os.cpu_count()} CPUs")

    print("\n1. Per frame, from frames pulled beforehand (µs, best of "
          f"{args.rounds} alternating rounds of {args.frames} frames)\n")
    print("| NV12 | g2g NumPy view | map+copy+rot90 (view) | ratio | g2g torch (dense) | g2g into own arrays | "
          "map+copy+rot90 contiguous | ratio vs g2g torch |")
    print("|---|---|---|---|---|---|---|---|")
    rows = []
    for name in sizes:
        width, height = SIZES[name]
        pairs = pulled_pairs(width, height, args.frames)
        check(pairs)
        dense = [d for d, _ in pairs]
        views = [v for _, v in pairs]
        methods = {"view": (g2g_view, views), "peer view": (map_copy_rot90, dense), "into": (Into(), views),
                   "peer dense": (map_copy_rot90_contiguous, dense)}
        if torch:
            methods["torch"] = (g2g_torch, views)
        cost = dict(zip(methods, per_frame_us(list(methods.values()), args.rounds)))
        dense_g2g = cost["torch"] if torch else cost["into"]
        torch_text = f"{cost['torch']:.1f}" if torch else "-"
        print(f"| {name} | {cost['view']:.1f} | {cost['peer view']:.1f} | {cost['peer view'] / cost['view']:.0f}x | "
              f"{torch_text} | {cost['into']:.1f} | {cost['peer dense']:.1f} | "
              f"{cost['peer dense'] / dense_g2g:.1f}x |", flush=True)
        rows.append((name, cost))
        del pairs, dense, views, methods
    print("(every method's planes equal numpy.rot90 of the source's: checked on two frames per size)")

    whole_rows = []
    if not args.no_whole:
        print(f"\n2. Whole paths, {args.run_frames} frames a run from the 5th on, ms/frame (best of "
              f"{args.whole_rounds} alternating rounds); added = over the source alone\n")
        print("| NV12 | source alone | g2g view, NumPy view | g2g view, torch | appsink, map+copy+rot90 | "
              "appsink, map+copy+rot90 contiguous | videoflip 90r, map+copy | added: g2g torch | "
              "added: map+copy+rot90 contiguous | added: videoflip | videoflip's / g2g torch's |")
        print("|---|---|---|---|---|---|---|---|---|---|---|")
        for name in sizes:
            width, height = SIZES[name]
            src = source(width, height, args.run_frames)
            view_sink = f"g2gview video-direction=90r ! appsink name=sink caps=\"{VIEW_CAPS}\" {SINK}"
            runs = {
                "source": (f"{src} ! appsink name=sink {SINK}", drop),
                "g2g view": (f"{src} ! {view_sink}", g2g_view),
                "g2g torch": (f"{src} ! {view_sink}", g2g_torch if torch else Into()),
                "peer view": (f"{src} ! appsink name=sink {SINK}", map_copy_rot90),
                "peer dense": (f"{src} ! appsink name=sink {SINK}", map_copy_rot90_contiguous),
                "videoflip": (f"{src} ! videoflip video-direction=90r ! appsink name=sink {SINK}", map_copy_only),
            }
            best = {key: float("inf") for key in runs}
            for _ in range(args.whole_rounds):
                for key, (description, consume) in runs.items():
                    best[key] = min(best[key], whole_run_ms(description, consume, args.run_frames))
            added = {key: best[key] - best["source"] for key in runs}
            ratio = f"{added['videoflip'] / added['g2g torch']:.1f}x" if added["g2g torch"] > 0 else "-"
            print(f"| {name} | {best['source']:.2f} | {best['g2g view']:.2f} | {best['g2g torch']:.2f} | "
                  f"{best['peer view']:.2f} | {best['peer dense']:.2f} | {best['videoflip']:.2f} | "
                  f"{added['g2g torch']:.2f} | {added['peer dense']:.2f} | {added['videoflip']:.2f} | {ratio} |",
                  flush=True)
            whole_rows.append((name, best, added))
    if args.csv:
        os.makedirs(args.csv, exist_ok=True)
        with open(os.path.join(args.csv, "cpu-path.csv"), "w") as out:
            keys = ["view", "peer view", "torch", "into", "peer dense"]
            out.write("size," + ",".join(k.replace(" ", "_") + "_us" for k in keys) + "\n")
            for name, cost in rows:
                out.write(name + "," + ",".join(f"{cost[k]:.2f}" if k in cost else "" for k in keys) + "\n")
        if whole_rows:
            with open(os.path.join(args.csv, "cpu-path-whole.csv"), "w") as out:
                keys = ["source", "g2g view", "g2g torch", "peer view", "peer dense", "videoflip"]
                out.write("size," + ",".join(k.replace(" ", "_") + "_ms" for k in keys) + "\n")
                for name, best, _ in whole_rows:
                    out.write(name + "," + ",".join(f"{best[k]:.3f}" for k in keys) + "\n")
        print(f"\nCSV files in {args.csv}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
