// SPDX-License-Identifier: LGPL-2.1-or-later
// g2g's CUDA path against the CUDA peers, on an NVIDIA GPU, in one run, as ratios:
//  1. materialize kernel bandwidth (FrameView of a GstCudaMemory frame, every video-direction
//     method, a crop + rotation) against cuMemcpy2D device-to-device of the same frame, 4K NV12
//     and RGBA;
//  2. nvh264dec ! g2gview video-direction=90r ! g2gmaterialize against nvh264dec alone (frames/s);
//  3. g2gtee with 1 Cuda branch + 3 system branches against tee + cudadownload per system branch:
//     device-to-host bytes and frames/s.
// With --csv DIR also writes cuda-bandwidth.csv, cuda-decode.csv and cuda-tee.csv there, which
// tests/bench/plot-cuda.gp turns into docs/performance-cuda.png.
// Usage: bench-cuda [--csv DIR] [media dir]
#include <g2g/cuda-view.h>
#include <g2g/frame-view.h>

#include <gst/cuda/cuda-gst.h>
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/video/video.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "bench-util.h"
#include "compat/cuda-compat.h"

using g2g::bench::open_csv;
using g2g::bench::run_to_eos;

namespace {

double now()
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// A GstCudaMemory frame of `info` in `context`.
GstBuffer *device_frame(GstCudaContext *context, const GstVideoInfo &info)
{
    GstMemory *memory = g2g::compat::cuda_alloc(context, info);
    if (!memory) {
        std::fprintf(stderr, "cannot allocate a CUDA frame\n");
        std::exit(1);
    }
    GstBuffer *buffer = gst_buffer_new();
    gst_buffer_append_memory(buffer, memory);
    return buffer;
}

const GstVideoInfo &layout(GstBuffer *frame)
{
    return GST_CUDA_MEMORY_CAST(gst_buffer_peek_memory(frame, 0))->info;
}

// Seconds per frame of `body` run `calls` times back to back, then one synchronize; best of 5.
template <typename Body> double per_frame(GstCudaContext *context, Body body, int calls)
{
    gst_cuda_context_push(context);
    double best = 1e30;
    for (int round = 0; round < 5; ++round) {
        CuStreamSynchronize(nullptr);
        const double start = now();
        for (int i = 0; i < calls; ++i)
            body();
        CuStreamSynchronize(nullptr);
        best = std::min(best, (now() - start) / calls);
    }
    CUcontext popped = nullptr;
    gst_cuda_context_pop(&popped);
    return best;
}

// cuMemcpy2D device to device of every plane of `info` (the peer's copy of the same frame).
void copy_frame(GstBuffer *src, GstBuffer *dst, CUdeviceptr src_ptr, CUdeviceptr dst_ptr)
{
    const GstVideoInfo &from = layout(src);
    const GstVideoInfo &to = layout(dst);
    for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES(&from); ++p) {
        const guint c = p == 0 ? 0 : GST_VIDEO_INFO_N_PLANES(&from) == 2 ? 1 : p;
        CUDA_MEMCPY2D copy{};
        copy.srcMemoryType = CU_MEMORYTYPE_DEVICE;
        copy.srcDevice = src_ptr + GST_VIDEO_INFO_PLANE_OFFSET(&from, p);
        copy.srcPitch = GST_VIDEO_INFO_PLANE_STRIDE(&from, p);
        copy.dstMemoryType = CU_MEMORYTYPE_DEVICE;
        copy.dstDevice = dst_ptr + GST_VIDEO_INFO_PLANE_OFFSET(&to, p);
        copy.dstPitch = GST_VIDEO_INFO_PLANE_STRIDE(&to, p);
        copy.WidthInBytes = GST_VIDEO_INFO_COMP_WIDTH(&from, c) * GST_VIDEO_INFO_COMP_PSTRIDE(&from, c);
        copy.Height = GST_VIDEO_INFO_COMP_HEIGHT(&from, c);
        CuMemcpy2DAsync(&copy, nullptr);
    }
}

void bandwidth(GstCudaContext *context)
{
    std::printf("1. Materialize kernel against cuMemcpy2D device-to-device of the same 4K frame "
                "(200 frames back to back, best of 5)\n");
    std::printf("%-6s %-16s %12s %12s %10s\n", "format", "view", "g2g GB/s", "memcpy GB/s", "g2g/memcpy");
    FILE *csv = open_csv("cuda-bandwidth.csv");
    struct Case {
        const char *name;
        GstVideoOrientationMethod method;
        bool crop;
    };
    const Case cases[] = {
        {"identity", GST_VIDEO_ORIENTATION_IDENTITY, false}, {"90r", GST_VIDEO_ORIENTATION_90R, false},
        {"180", GST_VIDEO_ORIENTATION_180, false},           {"90l", GST_VIDEO_ORIENTATION_90L, false},
        {"horiz", GST_VIDEO_ORIENTATION_HORIZ, false},       {"vert", GST_VIDEO_ORIENTATION_VERT, false},
        {"ul-lr", GST_VIDEO_ORIENTATION_UL_LR, false},       {"ur-ll", GST_VIDEO_ORIENTATION_UR_LL, false},
        {"crop+90r", GST_VIDEO_ORIENTATION_90R, true},
    };
    for (GstVideoFormat format : {GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_RGBA}) {
        GstVideoInfo info;
        gst_video_info_set_format(&info, format, 3840, 2160);
        GstBuffer *src = device_frame(context, info);
        for (const Case &c : cases) {
            g2g::Result<g2g::FrameView> view = g2g::FrameView::of_frame(src, layout(src));
            if (c.crop)
                (void)view->crop(64, 32, 3840 - 64 - 128, 2160 - 32 - 16);
            view->orient(c.method);
            GstBuffer *dst = device_frame(context, view->info());
            const double ours = per_frame(
                context, [&] { (void)g2g::cuda::materialize_into(*view, src, dst, false); }, 200);
            GstMapInfo s, d;
            gst_buffer_map(src, &s, static_cast<GstMapFlags>(GST_MAP_READ | GST_MAP_CUDA));
            gst_buffer_map(dst, &d, static_cast<GstMapFlags>(GST_MAP_WRITE | GST_MAP_CUDA));
            GstBuffer *same_size = device_frame(context, info);
            GstMapInfo ss;
            gst_buffer_map(same_size, &ss, static_cast<GstMapFlags>(GST_MAP_WRITE | GST_MAP_CUDA));
            const double peer = per_frame(
                context,
                [&] {
                    copy_frame(src, same_size, reinterpret_cast<CUdeviceptr>(s.data),
                               reinterpret_cast<CUdeviceptr>(ss.data));
                },
                200);
            gst_buffer_unmap(same_size, &ss);
            gst_buffer_unmap(dst, &d);
            gst_buffer_unmap(src, &s);
            // Bytes read plus bytes written, of the visible frame each writes.
            const double our_bytes = 2.0 * GST_VIDEO_INFO_SIZE(&view->info());
            const double peer_bytes = 2.0 * GST_VIDEO_INFO_SIZE(&info);
            const double ours_gbps = our_bytes / ours / 1e9, peer_gbps = peer_bytes / peer / 1e9;
            std::printf("%-6s %-16s %12.0f %12.0f %9.0f%%\n", gst_video_format_to_string(format), c.name,
                        ours_gbps, peer_gbps, 100 * ours_gbps / peer_gbps);
            if (csv)
                std::fprintf(csv, "%s-%s %g %g\n", gst_video_format_to_string(format), c.name, ours_gbps,
                             peer_gbps);
            gst_buffer_unref(same_size);
            gst_buffer_unref(dst);
        }
        gst_buffer_unref(src);
    }
    if (csv)
        std::fclose(csv);
}

double best_of_3(const std::string &description)
{
    double best = 1e30;
    for (int i = 0; i < 3; ++i)
        best = std::min(best, run_to_eos(description));
    return best;
}

struct Stream {
    const char *file;
    int frames;
    double frame_bytes; // NV12
};

void decode(const std::string &media)
{
    std::printf("\n2. nvh264dec ! g2gview video-direction=90r ! g2gmaterialize against nvh264dec alone "
                "(whole stream, best of 3)\n");
    std::printf("%-28s %14s %14s %10s\n", "stream", "decode fr/s", "+view fr/s", "ratio");
    FILE *csv = open_csv("cuda-decode.csv");
    for (const Stream &s : {Stream{"ball-1920x1080-300f.h264", 300, 1920 * 1080 * 1.5},
                            Stream{"smpte-3840x2160-120f.h264", 120, 3840 * 2160 * 1.5}}) {
        const std::string source = "filesrc location=" + media + "/" + s.file +
                                   " ! h264parse ! nvh264dec ! video/x-raw(memory:CUDAMemory)";
        const double alone = s.frames / best_of_3(source + " ! fakesink sync=false");
        const double viewed =
            s.frames /
            best_of_3(source + " ! g2gview video-direction=90r ! g2gmaterialize ! fakesink sync=false");
        std::printf("%-28s %14.1f %14.1f %9.2fx\n", s.file, alone, viewed, viewed / alone);
        if (csv)
            std::fprintf(csv, "%s %g %g\n", s.file, alone, viewed);
    }
    if (csv)
        std::fclose(csv);
}

void fan_out(const std::string &media)
{
    std::printf("\n3. 1 Cuda branch + 3 system-memory branches: g2gtee against tee + cudadownload per "
                "system branch (ball-1920x1080-300f.h264, best of 3)\n");
    const Stream s{"ball-1920x1080-300f.h264", 300, 1920 * 1080 * 1.5};
    const std::string source = "filesrc location=" + media + "/" + s.file +
                               " ! h264parse ! nvh264dec ! video/x-raw(memory:CUDAMemory) ! ";
    std::string ours = source + "g2gtee name=t t. ! queue ! fakesink sync=false";
    std::string theirs = source + "tee name=t t. ! queue ! fakesink sync=false";
    for (int i = 0; i < 3; ++i) {
        ours += " t. ! queue ! video/x-raw ! fakesink sync=false";
        theirs += " t. ! queue ! cudadownload ! video/x-raw ! fakesink sync=false";
    }
    guint64 converted = 0, frames = 0;
    double ours_time = 1e30;
    for (int i = 0; i < 3; ++i)
        ours_time = std::min(ours_time, run_to_eos(ours, [&](GstBin *pipeline) {
                                 GstElement *tee = gst_bin_get_by_name(pipeline, "t");
                                 GstStructure *stats = nullptr;
                                 g_object_get(tee, "stats", &stats, nullptr);
                                 gst_structure_get_uint64(stats, "bytes-converted", &converted);
                                 gst_structure_get_uint64(stats, "frames", &frames);
                                 gst_structure_free(stats);
                                 gst_object_unref(tee);
                             }));
    const double theirs_time = best_of_3(theirs);
    const double our_bytes = frames ? double(converted) / frames : 0;
    const double their_bytes = 3 * s.frame_bytes;
    std::printf("%-44s %18s %10s\n", "", "device-to-host/fr", "frames/s");
    std::printf("%-44s %16.2f MB %10.1f\n", "g2gtee (one shared cudadownload)", our_bytes / 1e6,
                s.frames / ours_time);
    std::printf("%-44s %16.2f MB %10.1f\n", "tee + cudadownload per system branch", their_bytes / 1e6,
                s.frames / theirs_time);
    std::printf("g2gtee / tee: %.2fx the device-to-host bytes, %.2fx the frame rate\n",
                our_bytes / their_bytes, theirs_time / ours_time);
    if (FILE *csv = open_csv("cuda-tee.csv")) {
        std::fprintf(csv, "\"g2gtee\" %g %g\n", our_bytes, s.frames / ours_time);
        std::fprintf(csv, "\"tee+3xcudadownload\" %g %g\n", their_bytes, s.frames / theirs_time);
        std::fclose(csv);
    }
}

} // namespace

int main(int argc, char **argv)
{
    gst_init(&argc, &argv);
    int arg = g2g::bench::take_csv_option(argc, argv);
    const std::string media = arg < argc ? argv[arg] : ".media";
    if (!g2g::cuda::available()) {
        std::printf("no CUDA driver on this machine: nothing to measure\n");
        return 0;
    }
    gst_cuda_memory_init_once();
    GstCudaContext *context = gst_cuda_context_new(0);
    if (!context) {
        std::printf("no CUDA device 0 on this machine: nothing to measure\n");
        return 0;
    }
    bandwidth(context);
    gst_object_unref(context);
    decode(media);
    fan_out(media);
    gst_deinit();
    return 0;
}
