#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Per-frame cost of handing a frame to an application as arrays, g2g against what an app does
today, on the same frames in one run (ratios: the machine is shared and noisy):

  g2g         g2g.frame(sample) and numpy.asarray of every plane (no copy)
  g2g torch   the same, torch.from_dlpack of every plane (no copy; skipped without torch)
  g2g view    g2g.frame of a g2gview 90r frame, numpy.asarray of every plane (the view, no copy)
  map+copy    Gst.Buffer.map, numpy.frombuffer(...).copy(), unmap
  GBytes      G2g.buffer_require_system_bytes(...).get_data() (GLib.Bytes.get_data copies into a
              Python bytes), numpy.frombuffer

    meson devenv -C build -w . python3 tests/bench/bench-tensor.py [--rounds 7] [--frames 20]

The goal: g2g's cost does not grow with the frame (4K within 2x of 720p).
"""

import argparse
import time

import gi

gi.require_version("Gst", "1.0")
gi.require_version("G2g", "1.0")
from gi.repository import G2g, Gst  # noqa: E402

import numpy  # noqa: E402

import g2g  # noqa: E402

try:
    import torch
except ImportError:
    torch = None

SIZES = {"720p": (1280, 720), "1080p": (1920, 1080), "4K": (3840, 2160)}
VIEW_CAPS = "video/x-raw(memory:SystemMemory, meta:G2gTensorView)"


def samples(width, height, count, view):
    chain = f" ! g2gview video-direction=90r ! appsink name=sink caps=\"{VIEW_CAPS}\"" if view else " ! appsink name=sink"
    pipeline = Gst.parse_launch(f"videotestsrc num-buffers={count} ! video/x-raw,format=NV12,width={width},"
                                f"height={height}{chain} sync=false max-buffers=0")
    pipeline.set_state(Gst.State.PLAYING)
    sink = pipeline.get_by_name("sink")
    pulled = [sink.emit("pull-sample") for _ in range(count)]
    pipeline.set_state(Gst.State.NULL)
    return pulled


def g2g_numpy(sample):
    return [numpy.asarray(plane) for plane in g2g.frame(sample).planes]


def g2g_torch(sample):
    return [torch.from_dlpack(plane) for plane in g2g.frame(sample).planes]


def map_and_copy(sample):
    buffer = sample.get_buffer()
    ok, mapped = buffer.map(Gst.MapFlags.READ)
    array = numpy.frombuffer(mapped.data, numpy.uint8).copy()
    buffer.unmap(mapped)
    return array


def gbytes(sample):
    return numpy.frombuffer(G2g.buffer_require_system_bytes(sample.get_buffer(), "bench").get_data(), numpy.uint8)


def per_frame_us(methods, rounds):
    """For each (function, frames) of `methods`, the best of `rounds` of its mean time per frame,
    in microseconds; the methods take turns within each round, so all of them see the same spells
    of load."""
    best = [float("inf")] * len(methods)
    for _ in range(rounds):
        for index, (function, frames) in enumerate(methods):
            start = time.perf_counter()
            for sample in frames:
                function(sample)
            best[index] = min(best[index], (time.perf_counter() - start) / len(frames))
    return [seconds * 1e6 for seconds in best]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--frames", type=int, default=20)
    args = parser.parse_args()
    Gst.init(None)
    print("| NV12 | g2g µs | g2g torch µs | g2g view µs | map+copy µs | GBytes µs | map+copy / g2g | GBytes / g2g |")
    print("|---|---|---|---|---|---|---|---|")
    g2g_cost = {}
    for name, (width, height) in SIZES.items():
        dense = samples(width, height, args.frames, view=False)
        views = samples(width, height, args.frames, view=True)
        methods = {"g2g": (g2g_numpy, dense), "view": (g2g_numpy, views), "map+copy": (map_and_copy, dense),
                   "GBytes": (gbytes, dense)}
        if torch:
            methods["torch"] = (g2g_torch, dense)
        cost = dict(zip(methods, per_frame_us(list(methods.values()), args.rounds)))
        g2g_cost[name] = cost["g2g"]
        torch_cost = f"{cost['torch']:.1f}" if torch else "-"
        print(f"| {name} | {cost['g2g']:.1f} | {torch_cost} | {cost['view']:.1f} | {cost['map+copy']:.1f} | "
              f"{cost['GBytes']:.1f} | {cost['map+copy'] / cost['g2g']:.1f}x | {cost['GBytes'] / cost['g2g']:.1f}x |",
              flush=True)
    growth = g2g_cost["4K"] / g2g_cost["720p"]
    print(f"\ng2g 4K / 720p per-frame cost: {growth:.2f} (goal: within 2x): {'met' if growth <= 2 else 'NOT met'}")


if __name__ == "__main__":
    main()
