// SPDX-License-Identifier: LGPL-2.1-or-later
// g2gview and g2gmaterialize as elements: zero copy, dense for ANY-caps peers, renegotiation,
// bad properties, GstVideoCropMeta both ways, orientation from tags.
#include <g2g/classify.h>
#include <g2g/cuda-view.h>
#include <g2g/frame-view.h>
#include <g2g/tensor-view-meta.h>

#include <gst/base/gstbasetransform.h>
#include <gst/check/gstharness.h>
#include <gtest/gtest.h>

#include <glib/gstdio.h>

#include "buffers.h"
#include "frames.h"
#include "g2g-config.h"
#include "log-capture.h"
#include "pipeline.h"
#include "pool-recycling.h"

using g2g::BufferRef;
using g2g::test::compare_frames;
using g2g::test::current_sink_info;
using g2g::test::random_frame;
using g2g::test::run_chain;
using g2g::test::video_info;

namespace {

constexpr const char *kViewCaps = "video/x-raw(memory:SystemMemory, meta:G2gTensorView)";

} // namespace

TEST(G2gView, ViewOutSharesTheInputMemoryZeroBytesCopied)
{
    GstVideoInfo in = video_info(GST_VIDEO_FORMAT_NV12, 64, 48);
    BufferRef frame = random_frame(in, 1);
    GstMemory *memory = gst_buffer_peek_memory(frame.get(), 0);
    const gint refs_before = GST_MINI_OBJECT_REFCOUNT_VALUE(memory);

    auto out = run_chain("g2gview video-direction=90r left=2 top=4", in, frame.get(), kViewCaps);
    ASSERT_EQ(out.error, "");
    ASSERT_TRUE(out.buffer);
    EXPECT_NE(out.caps.find("meta:G2gTensorView"), std::string::npos) << out.caps;
    // The very same GstMemory, one more reference: no pixel memory was allocated.
    ASSERT_EQ(gst_buffer_n_memory(out.buffer.get()), 1u);
    EXPECT_EQ(gst_buffer_peek_memory(out.buffer.get(), 0), memory);
    EXPECT_EQ(GST_MINI_OBJECT_REFCOUNT_VALUE(memory), refs_before + 1);
    const g2g::FrameView *view = g2g::tensor_view_of(out.buffer.get());
    ASSERT_NE(view, nullptr);
    EXPECT_EQ(view->width(), 44u);
    EXPECT_EQ(view->height(), 62u);
    EXPECT_EQ(gst_buffer_get_video_meta(out.buffer.get()), nullptr); // the view describes the frame
    EXPECT_EQ(*g2g::classify_buffer(out.buffer.get()), g2g::MemoryDomainKind::SystemView);

    // What it reads equals the peers' copy.
    auto peer = run_chain("videocrop left=2 top=4 ! videoflip video-direction=90r", in, frame.get());
    auto dense = view->materialize(out.buffer.get());
    EXPECT_EQ(compare_frames(view->info(), dense->get(), peer.info, peer.buffer.get()), "");
}

TEST(G2gView, AnyCapsPeersReceiveDenseFrames)
{
    GstVideoInfo in = video_info(GST_VIDEO_FORMAT_RGBA, 32, 16);
    BufferRef frame = random_frame(in, 2);
    // The harness's own sink pad takes ANY caps.
    auto out = run_chain("g2gview video-direction=90l", in, frame.get());
    ASSERT_EQ(out.error, "");
    EXPECT_EQ(out.caps.find("G2gTensorView"), std::string::npos) << out.caps;
    EXPECT_EQ(g2g::tensor_view_of(out.buffer.get()), nullptr);
    EXPECT_EQ(*g2g::classify_buffer(out.buffer.get()), g2g::MemoryDomainKind::System);
    auto peer = run_chain("videoflip video-direction=90l", in, frame.get());
    EXPECT_EQ(compare_frames(out.info, out.buffer.get(), peer.info, peer.buffer.get()), "");
}

TEST(G2gView, FakesinkFilesinkAndCapslessAppsinkGetDenseFrames)
{
    const std::string src = "videotestsrc num-buffers=3 ! video/x-raw,format=I420,width=64,height=48 ! "
                            "g2gview video-direction=90r right=8 ! ";
    auto appsink = g2g::test::run_pipeline(src + "appsink name=sink");
    ASSERT_EQ(appsink.error, "");
    ASSERT_EQ(appsink.buffers.size(), 3u);
    for (auto &buffer : appsink.buffers) {
        EXPECT_EQ(g2g::tensor_view_of(buffer.get()), nullptr);
        EXPECT_EQ(gst_buffer_get_size(buffer.get()), 48u * 56 * 3 / 2);
    }
    EXPECT_EQ(g2g::test::run_pipeline(src + "fakesink").error, "");

    gchar *path = g_build_filename(g_get_tmp_dir(), "g2g-view-filesink.raw", nullptr);
    auto filesink = g2g::test::run_pipeline(src + "filesink location=" + path);
    EXPECT_EQ(filesink.error, "");
    GStatBuf st;
    ASSERT_EQ(g_stat(path, &st), 0);
    EXPECT_EQ(st.st_size, 3 * 48 * 56 * 3 / 2);
    g_unlink(path);
    g_free(path);
}

TEST(G2gView, PropertyChangesWhilePlayingRenegotiate)
{
    GstHarness *harness = gst_harness_new("g2gview");
    gst_harness_set_src_caps_str(harness, "video/x-raw,format=RGBA,width=64,height=48,framerate=30/1");
    GstVideoInfo in = video_info(GST_VIDEO_FORMAT_RGBA, 64, 48);
    BufferRef frame = random_frame(in, 3);

    gst_buffer_unref(gst_harness_push_and_pull(harness, gst_buffer_ref(frame.get())));
    GstVideoInfo first = current_sink_info(harness);
    EXPECT_EQ(GST_VIDEO_INFO_WIDTH(&first), 64);

    gst_util_set_object_arg(G_OBJECT(harness->element), "video-direction", "90r");
    GstBuffer *rotated = gst_harness_push_and_pull(harness, gst_buffer_ref(frame.get()));
    GstVideoInfo info = current_sink_info(harness);
    EXPECT_EQ(GST_VIDEO_INFO_WIDTH(&info), 48);
    EXPECT_EQ(GST_VIDEO_INFO_HEIGHT(&info), 64);
    auto peer = run_chain("videoflip video-direction=90r", in, frame.get());
    EXPECT_EQ(compare_frames(info, rotated, peer.info, peer.buffer.get()), "");
    gst_buffer_unref(rotated);

    g_object_set(harness->element, "left", 10, "bottom", 6, nullptr);
    gst_buffer_unref(gst_harness_push_and_pull(harness, gst_buffer_ref(frame.get())));
    info = current_sink_info(harness);
    EXPECT_EQ(GST_VIDEO_INFO_WIDTH(&info), 42);
    EXPECT_EQ(GST_VIDEO_INFO_HEIGHT(&info), 54);
    gst_harness_teardown(harness);
}

TEST(G2gView, ACropLeavingNoPixelsIsAClearElementError)
{
    GstVideoInfo in = video_info(GST_VIDEO_FORMAT_RGBA, 64, 48);
    BufferRef frame = random_frame(in, 4);
    auto out = run_chain("g2gview left=40 right=30", in, frame.get());
    EXPECT_EQ(out.error, "crop left=40 right=30 top=0 bottom=0 leaves no pixels of a 64x48 frame");
    auto tall = run_chain("g2gview top=48", in, frame.get());
    EXPECT_EQ(tall.error, "crop left=0 right=0 top=48 bottom=0 leaves no pixels of a 64x48 frame");
}

TEST(G2gView, IncomingCropMetaIsHonoured)
{
    GstVideoInfo full = video_info(GST_VIDEO_FORMAT_I420, 64, 48);
    BufferRef frame = random_frame(full, 5);
    BufferRef cropped = BufferRef::adopt(gst_buffer_copy(frame.get()));
    gst_buffer_add_video_meta_full(cropped.get(), GST_VIDEO_FRAME_FLAG_NONE, GST_VIDEO_FORMAT_I420, 64, 48, 3,
                                   full.offset, full.stride);
    GstVideoCropMeta *crop = gst_buffer_add_video_crop_meta(cropped.get());
    crop->x = 6;
    crop->y = 4;
    crop->width = 40;
    crop->height = 30;
    GstVideoInfo caps_info = video_info(GST_VIDEO_FORMAT_I420, 40, 30);

    auto ours = run_chain("g2gview video-direction=horiz ! g2gmaterialize", caps_info, cropped.get());
    auto peer = run_chain("videocrop left=6 top=4 right=18 bottom=14 ! videoflip video-direction=horiz", full,
                          frame.get());
    ASSERT_EQ(ours.error, "");
    EXPECT_EQ(compare_frames(ours.info, ours.buffer.get(), peer.info, peer.buffer.get()), "");
}

TEST(G2gView, APureCropTowardsACropMetaReaderIsAMetaNotACopy)
{
    GstHarness *harness = gst_harness_new_parse("g2gview left=8 top=2 right=4");
    gst_harness_add_propose_allocation_meta(harness, GST_VIDEO_META_API_TYPE, nullptr);
    gst_harness_add_propose_allocation_meta(harness, GST_VIDEO_CROP_META_API_TYPE, nullptr);
    gst_harness_set_src_caps_str(harness, "video/x-raw,format=NV12,width=64,height=48,framerate=30/1");
    GstVideoInfo in = video_info(GST_VIDEO_FORMAT_NV12, 64, 48);
    BufferRef frame = random_frame(in, 6);
    GstBuffer *out = gst_harness_push_and_pull(harness, gst_buffer_ref(frame.get()));
    ASSERT_NE(out, nullptr);
    EXPECT_EQ(gst_buffer_peek_memory(out, 0), gst_buffer_peek_memory(frame.get(), 0));
    GstVideoCropMeta *crop = gst_buffer_get_video_crop_meta(out);
    ASSERT_NE(crop, nullptr);
    EXPECT_EQ(crop->x, 8u);
    EXPECT_EQ(crop->y, 2u);
    EXPECT_EQ(crop->width, 52u);
    EXPECT_EQ(crop->height, 46u);
    GstVideoInfo info = current_sink_info(harness);
    EXPECT_EQ(GST_VIDEO_INFO_WIDTH(&info), 52);
    gst_buffer_unref(out);
    gst_harness_teardown(harness);
}

TEST(G2gView, AutoFollowsTheImageOrientationTag)
{
    GstHarness *harness = gst_harness_new_parse("g2gview video-direction=auto");
    gst_harness_set_src_caps_str(harness, "video/x-raw,format=GRAY8,width=20,height=10,framerate=30/1");
    gst_harness_push_event(
        harness, gst_event_new_tag(gst_tag_list_new(GST_TAG_IMAGE_ORIENTATION, "rotate-90", nullptr)));
    GstVideoInfo in = video_info(GST_VIDEO_FORMAT_GRAY8, 20, 10);
    BufferRef frame = random_frame(in, 7);
    GstBuffer *out = gst_harness_push_and_pull(harness, gst_buffer_ref(frame.get()));
    GstVideoInfo info = current_sink_info(harness);
    EXPECT_EQ(GST_VIDEO_INFO_WIDTH(&info), 10);
    auto peer = run_chain("videoflip video-direction=90r", in, frame.get());
    EXPECT_EQ(compare_frames(info, out, peer.info, peer.buffer.get()), "");
    gst_buffer_unref(out);
    gst_harness_teardown(harness);
}

namespace {

GstEvent *orientation_tag(const char *orientation, GstTagScope scope)
{
    GstTagList *tags = orientation ? gst_tag_list_new(GST_TAG_IMAGE_ORIENTATION, orientation, nullptr)
                                   : gst_tag_list_new(GST_TAG_TITLE, "no orientation", nullptr);
    gst_tag_list_set_scope(tags, scope);
    return gst_event_new_tag(tags);
}

// The frame g2gview's harness gives for `frame` now, against videoflip's for `direction`.
void expect_turned_as(GstHarness *harness, const GstVideoInfo &in, GstBuffer *frame, const char *direction)
{
    SCOPED_TRACE(direction);
    GstBuffer *out = gst_harness_push_and_pull(harness, gst_buffer_ref(frame));
    ASSERT_NE(out, nullptr);
    auto peer = run_chain(std::string("videoflip video-direction=") + direction, in, frame);
    EXPECT_EQ(compare_frames(current_sink_info(harness), out, peer.info, peer.buffer.get()), "");
    gst_buffer_unref(out);
}

} // namespace

// videoflip 1.28's rules for video-direction=auto, on every GStreamer: a stream-scoped orientation
// wins over a global one until a stream-scoped tag without one brings the global one back; a new
// stream starts from identity; downstream is told rotate-0, since the frames are turned already.
TEST(G2gView, AutoFollowsTagScopesAndNewStreamsAsVideoflipDoes)
{
    GstHarness *harness = gst_harness_new_parse("g2gview video-direction=auto");
    gst_harness_set_src_caps_str(harness, "video/x-raw,format=GRAY8,width=20,height=10,framerate=30/1");
    const GstVideoInfo in = video_info(GST_VIDEO_FORMAT_GRAY8, 20, 10);
    const BufferRef frame = random_frame(in, 8);

    gst_harness_push_event(harness, orientation_tag("rotate-90", GST_TAG_SCOPE_GLOBAL));
    expect_turned_as(harness, in, frame.get(), "90r");
    gst_harness_push_event(harness, orientation_tag("rotate-180", GST_TAG_SCOPE_STREAM));
    expect_turned_as(harness, in, frame.get(), "180");
    gst_harness_push_event(harness, orientation_tag("rotate-270", GST_TAG_SCOPE_GLOBAL));
    expect_turned_as(harness, in, frame.get(), "180"); // the stream's orientation holds
    gst_harness_push_event(harness, orientation_tag(nullptr, GST_TAG_SCOPE_STREAM));
    expect_turned_as(harness, in, frame.get(), "90l"); // back to the global one
    gst_harness_push_event(harness, gst_event_new_stream_start("another stream"));
    expect_turned_as(harness, in, frame.get(), "identity");

    // Every orientation tag that went downstream said rotate-0.
    guint tags = 0;
    while (GstEvent *event = gst_harness_try_pull_event(harness)) {
        if (GST_EVENT_TYPE(event) == GST_EVENT_TAG) {
            GstTagList *list = nullptr;
            gst_event_parse_tag(event, &list);
            gchar *orientation = nullptr;
            if (gst_tag_list_get_string(list, GST_TAG_IMAGE_ORIENTATION, &orientation)) {
                EXPECT_STREQ(orientation, "rotate-0");
                ++tags;
            }
            g_free(orientation);
        }
        gst_event_unref(event);
    }
    EXPECT_EQ(tags, 3u);
    gst_harness_teardown(harness);
}

// With a fixed direction the tag goes on as it came: g2gview did not follow it.
TEST(G2gView, AFixedDirectionForwardsTheOrientationTagUnchanged)
{
    GstHarness *harness = gst_harness_new_parse("g2gview video-direction=horiz");
    gst_harness_set_src_caps_str(harness, "video/x-raw,format=GRAY8,width=20,height=10,framerate=30/1");
    gst_harness_push_event(harness, orientation_tag("rotate-90", GST_TAG_SCOPE_STREAM));
    const GstVideoInfo in = video_info(GST_VIDEO_FORMAT_GRAY8, 20, 10);
    const BufferRef frame = random_frame(in, 9);
    expect_turned_as(harness, in, frame.get(), "horiz");
    bool seen = false;
    while (GstEvent *event = gst_harness_try_pull_event(harness)) {
        GstTagList *list = nullptr;
        gchar *orientation = nullptr;
        if (GST_EVENT_TYPE(event) == GST_EVENT_TAG) {
            gst_event_parse_tag(event, &list);
            if (gst_tag_list_get_string(list, GST_TAG_IMAGE_ORIENTATION, &orientation)) {
                EXPECT_STREQ(orientation, "rotate-90");
                seen = true;
            }
        }
        g_free(orientation);
        gst_event_unref(event);
    }
    EXPECT_TRUE(seen);
    gst_harness_teardown(harness);
}

TEST(G2gView, ImplementsGstVideoDirectionWithVideoflipsNicks)
{
    GstElement *view = gst_element_factory_make("g2gview", nullptr);
    ASSERT_TRUE(GST_IS_VIDEO_DIRECTION(view));
    GParamSpec *spec = g_object_class_find_property(G_OBJECT_GET_CLASS(view), "video-direction");
    GstElement *flip = gst_element_factory_make("videoflip", nullptr);
    GParamSpec *peer_spec = g_object_class_find_property(G_OBJECT_GET_CLASS(flip), "video-direction");
    EXPECT_EQ(spec->value_type, peer_spec->value_type);
    gst_util_set_object_arg(G_OBJECT(view), "video-direction", "ur-ll");
    gint method = 0;
    g_object_get(view, "video-direction", &method, nullptr);
    EXPECT_EQ(method, GST_VIDEO_ORIENTATION_UR_LL);
    gst_object_unref(flip);
    gst_object_unref(view);
}

TEST(G2gMaterialize, DenseFramesPassThroughUntouched)
{
    GstVideoInfo in = video_info(GST_VIDEO_FORMAT_RGBA, 16, 16);
    BufferRef frame = random_frame(in, 8);
    GstHarness *harness = gst_harness_new("g2gmaterialize");
    gst_harness_set_src_caps_str(harness, "video/x-raw,format=RGBA,width=16,height=16,framerate=30/1");
    GstBuffer *out = gst_harness_push_and_pull(harness, gst_buffer_ref(frame.get()));
    EXPECT_EQ(out, frame.get());
    gst_buffer_unref(out);
    gst_harness_teardown(harness);
}

TEST(G2gMaterialize, AChainOfViewsIsOneViewOverTheOriginalMemory)
{
    GstVideoInfo in = video_info(GST_VIDEO_FORMAT_I420, 40, 30);
    BufferRef frame = random_frame(in, 9);
    auto out = run_chain("g2gview video-direction=90r ! g2gview left=3 ! g2gview video-direction=vert", in,
                         frame.get(), kViewCaps);
    ASSERT_EQ(out.error, "");
    EXPECT_EQ(gst_buffer_peek_memory(out.buffer.get(), 0), gst_buffer_peek_memory(frame.get(), 0));
    ASSERT_NE(g2g::tensor_view_of(out.buffer.get()), nullptr);
}

// Towards a peer that reads GstVideoMeta and offers no pool, dense frames come from a pool whose
// rows all start on a 64-byte line (what lets a transpose stream whole lines); without the
// meta, the default layout. Both ways the pixels are videoflip's.
TEST(G2gMaterialize, DenseFramesForAVideoMetaReaderStartEveryRowOnALine)
{
    GstVideoInfo in = video_info(GST_VIDEO_FORMAT_NV12, 100, 70); // rotated: 70-byte rows
    BufferRef frame = random_frame(in, 12);
    const auto expected = run_chain("videoflip video-direction=90r", in, frame.get());
    ASSERT_EQ(expected.error, "");
    for (const char *chain :
         {"g2gview video-direction=90r ! g2gmaterialize", "g2gview video-direction=90r"}) {
        for (const bool meta_reader : {true, false}) {
            GstHarness *harness = gst_harness_new_parse(chain);
            if (meta_reader)
                gst_harness_add_propose_allocation_meta(harness, GST_VIDEO_META_API_TYPE, nullptr);
            gst_harness_set_src_caps_str(harness,
                                         "video/x-raw,format=NV12,width=100,height=70,framerate=30/1");
            const BufferRef out =
                BufferRef::adopt(gst_harness_push_and_pull(harness, gst_buffer_ref(frame.get())));
            ASSERT_TRUE(out) << chain;
            const GstVideoInfo out_info = current_sink_info(harness);
            EXPECT_EQ(compare_frames(expected.info, expected.buffer.get(), out_info, out.get()), "") << chain;
            const GstVideoMeta *meta = gst_buffer_get_video_meta(out.get());
            if (meta_reader) {
                ASSERT_NE(meta, nullptr) << chain;
                GstVideoFrame mapped;
                ASSERT_TRUE(gst_video_frame_map(&mapped, const_cast<GstVideoInfo *>(&out_info), out.get(),
                                                GST_MAP_READ));
                for (guint p = 0; p < meta->n_planes; ++p) {
                    EXPECT_EQ(meta->stride[p] % 64, 0) << chain << " plane " << p;
                    EXPECT_EQ(reinterpret_cast<guintptr>(GST_VIDEO_FRAME_PLANE_DATA(&mapped, p)) % 64, 0u)
                        << chain << " plane " << p;
                }
                gst_video_frame_unmap(&mapped);
            } else {
                EXPECT_EQ(meta, nullptr) << chain;
            }
            gst_harness_teardown(harness);
        }
    }
}

// Without an NVIDIA driver (CI) the CUDA paths say so: the plugin loads, CUDA caps negotiate,
// and the first frame is a clear element error instead of a crash or a misread frame.
TEST(G2gViewCuda, WithoutADriverCudaFramesAreAClearErrorAndTheLibrarySaysUnavailable)
{
    if (!G2G_HAVE_CUDA)
        GTEST_SKIP() << "built without the cuda feature";
    if (g2g::cuda::available())
        GTEST_SKIP() << "a CUDA driver is present here; the GPU tests cover this machine";
    g2g::test::PipelineRun run = g2g::test::run_pipeline(
        "fakesrc num-buffers=1 sizetype=fixed sizemax=6144 ! "
        "video/x-raw(memory:CUDAMemory),format=NV12,width=64,height=64,framerate=30/1 ! "
        "g2gview name=view video-direction=90r ! fakesink");
    EXPECT_EQ(run.error_source, "view");
    EXPECT_NE(run.error.find("CUDA"), std::string::npos) << run.error;

    // The library's own entry point refuses the same way.
    GstVideoInfo info;
    gst_video_info_set_format(&info, GST_VIDEO_FORMAT_NV12, 64, 64);
    BufferRef frame = random_frame(info, 1);
    g2g::Result<g2g::FrameView> view = g2g::FrameView::of_frame(frame.get(), info);
    ASSERT_TRUE(view.ok());
    g2g::Result<void> written = g2g::cuda::materialize_into(*view, frame.get(), frame.get());
    ASSERT_FALSE(written.ok());
    EXPECT_NE(written.error().message().find("CUDA driver"), std::string::npos) << written.error().message();
}

// A pixel aspect ratio with a zero term has no inverse: a transposing view leaves it as it came,
// never a fraction of denominator 0 (GStreamer's critical, and a field left unset: fuzz-caps
// found it).
TEST(G2gView, ATransposedViewOfAZeroPixelAspectRatioKeepsIt)
{
    const g2g::test::LogCapture complaints;
    GstElement *view = gst_element_factory_make("g2gview", nullptr);
    ASSERT_NE(view, nullptr);
    g_object_set(view, "video-direction", GST_VIDEO_ORIENTATION_90R, nullptr);
    GstCaps *in = gst_caps_from_string("video/x-raw,format=RGBA,width=64,height=48,pixel-aspect-ratio=0/1");
    GstCaps *out = GST_BASE_TRANSFORM_GET_CLASS(view)->transform_caps(GST_BASE_TRANSFORM(view), GST_PAD_SINK,
                                                                      in, nullptr);
    ASSERT_NE(out, nullptr);
    ASSERT_FALSE(gst_caps_is_empty(out));
    gint n = -1, d = -1;
    EXPECT_TRUE(gst_structure_get_fraction(gst_caps_get_structure(out, 0), "pixel-aspect-ratio", &n, &d));
    EXPECT_EQ(n, 0);
    EXPECT_EQ(d, 1);
    EXPECT_EQ(complaints.said(), std::vector<std::string>{});
    gst_caps_unref(out);
    gst_caps_unref(in);
    gst_object_unref(view);
}

// A view shares its frame's memories and holds the frame as parent. Once the view is gone the
// frame goes back to upstream's pool, which recycles it as it does behind videoflip: on GStreamer
// 1.22, which frees a buffer's metas before its memories, the pool found the memories still
// shared, discarded every frame and allocated a new one (30 of 30 here).
TEST(G2gView, UpstreamsPoolRecyclesTheFramesAViewLivedOn)
{
    const std::string source = "videotestsrc num-buffers=30 ! video/x-raw,format=NV12,width=64,height=48 ! "
                               "identity name=tap ! ";
    for (const std::string &chain : {"g2gview video-direction=90r ! " + std::string(kViewCaps),
                                     std::string("g2gview video-direction=90r left=2 ! g2gmaterialize"),
                                     std::string("videoflip video-direction=90r")}) {
        SCOPED_TRACE(chain);
        g2g::test::PoolRecycling pool;
        const auto run = g2g::test::run_pipeline(source + chain + " ! fakesink", pool.tap());
        ASSERT_EQ(run.error, "");
        EXPECT_EQ(pool.fresh + pool.recycled, 30);
        EXPECT_LE(pool.fresh, 3) << pool.recycled << " recycled";
    }
}

// GStreamer 1.22's cudadownload hands its input on as it is, GstCudaMemory under system-memory
// caps, when downstream reads GstVideoMeta (as g2gview does; 1.26's too, unless the frame came
// from NVDEC's own pool). Any element of system caps reads such a frame through its mapping,
// which downloads it; g2gview did too little (a view of device memory) and refused it. Here a
// memory of CUDA's type that maps to host bytes stands in for it: the view reads those bytes, as
// videoflip does, on a machine without a GPU too.
TEST(G2gView, DeviceMemoryUnderSystemCapsIsReadThroughItsMapping)
{
    GstVideoInfo in = video_info(GST_VIDEO_FORMAT_NV12, 62, 48);
    GstVideoAlignment padded;
    gst_video_alignment_reset(&padded);
    padded.padding_right = 10; // a pitch of CUDA's, wider than the row
    ASSERT_TRUE(gst_video_info_align(&in, &padded));
    BufferRef host = random_frame(in, 7);
    gst_buffer_add_video_meta_full(host.get(), GST_VIDEO_FRAME_FLAG_NONE, GST_VIDEO_INFO_FORMAT(&in),
                                   GST_VIDEO_INFO_WIDTH(&in), GST_VIDEO_INFO_HEIGHT(&in),
                                   GST_VIDEO_INFO_N_PLANES(&in), in.offset, in.stride);
    GstMapInfo bytes;
    ASSERT_TRUE(gst_buffer_map(host.get(), &bytes, GST_MAP_READ));
    BufferRef device = BufferRef::adopt(gst_buffer_new());
    gst_buffer_append_memory(device.get(),
                             g2g::test::mapped_memory(bytes.data, bytes.size, "gst.cuda.memory").release());
    gst_buffer_unmap(host.get(), &bytes);
    gst_buffer_add_video_meta_full(device.get(), GST_VIDEO_FRAME_FLAG_NONE, GST_VIDEO_INFO_FORMAT(&in),
                                   GST_VIDEO_INFO_WIDTH(&in), GST_VIDEO_INFO_HEIGHT(&in),
                                   GST_VIDEO_INFO_N_PLANES(&in), in.offset, in.stride);
    GST_BUFFER_PTS(device.get()) = 5 * GST_SECOND;
    ASSERT_EQ(*g2g::classify_buffer(device.get()), g2g::MemoryDomainKind::Cuda);

    const auto peer = run_chain("videoflip video-direction=90r", in, host.get());
    ASSERT_EQ(peer.error, "");
    const auto dense = run_chain("g2gview video-direction=90r ! g2gmaterialize", in, device.get());
    ASSERT_EQ(dense.error, "");
    EXPECT_EQ(compare_frames(dense.info, dense.buffer.get(), peer.info, peer.buffer.get()), "");
    EXPECT_EQ(GST_BUFFER_PTS(dense.buffer.get()), 5 * GST_SECOND);

    // A view is made over the host copy: system memory, read as the peer's frame.
    const auto view = run_chain("g2gview video-direction=90r", in, device.get(), kViewCaps);
    ASSERT_EQ(view.error, "");
    EXPECT_EQ(*g2g::classify_buffer(view.buffer.get()), g2g::MemoryDomainKind::SystemView);
    EXPECT_EQ(GST_BUFFER_PTS(view.buffer.get()), 5 * GST_SECOND);
    const g2g::FrameView *frame_view = g2g::tensor_view_of(view.buffer.get());
    ASSERT_NE(frame_view, nullptr);
    auto materialized = frame_view->materialize(view.buffer.get());
    ASSERT_TRUE(materialized.ok());
    EXPECT_EQ(compare_frames(frame_view->info(), materialized->get(), peer.info, peer.buffer.get()), "");

    // Under the identity the frame is handed on as it came: nothing reads it here.
    const auto identity = run_chain("g2gview", in, device.get());
    ASSERT_EQ(identity.error, "");
    EXPECT_EQ(identity.buffer.get(), device.get());

    // Memory of the kind that does not map (a device lost): a clear element error.
    BufferRef lost = BufferRef::adopt(gst_buffer_new());
    gst_buffer_append_memory(
        lost.get(), g2g::test::mapped_memory(nullptr, GST_VIDEO_INFO_SIZE(&in), "gst.cuda.memory").release());
    const auto refused = run_chain("g2gview name=view video-direction=90r ! g2gmaterialize", in, lost.get());
    EXPECT_EQ(refused.error_source, "view");
    EXPECT_EQ(refused.error, "memory 0 of a Cuda frame under system-memory caps does not map to the host");
}
