// SPDX-License-Identifier: LGPL-2.1-or-later
// g2gview and g2gmaterialize on VulkanImage frames (vulkanupload's, on lavapipe or any Vulkan
// device) against GStreamer's own videoflip and videocrop on the same frames, byte for byte: every
// video-direction method, crops at odd offsets, crop then rotation, even and odd sizes, each format
// g2gview takes on VulkanImage; views materialized by g2gmaterialize into VulkanImage (read back
// by vulkandownload), by g2gview itself (into vulkandownload, which takes no views), by
// g2gmaterialize into system memory (its own download); chains of views. A view keeps the
// upstream images (the same VkImage handles). Without a Vulkan device every test skips.
#include "g2g-config.h"

#include <g2g/tensor-view-meta.h>

#if G2G_HAVE_VULKAN
#include "platform/vulkan/gst-vulkan.h"
#endif
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <string>
#include <tuple>
#include <vector>

#include "frames.h"
#include "pipeline.h"
#include "pool-recycling.h"
#include "vulkan-cases.h"
#include "vulkan-frames.h"
#include "vulkan-upload-wait.h"

using g2g::test::expect_vulkan_cases;
using g2g::test::VulkanCase;

namespace {

// What issue 14 requires on VulkanImage, and what g2gview may take besides.
const char *const kRequiredFormats[] = {"RGBA", "BGRA", "NV12", "I420"};
const char *const kOtherFormats[] = {"RGBx", "BGRx", "AYUV", "GRAY8", "NV21", "YV12", "Y444"};
const char *const kAllFormats[] = {"RGBA", "BGRA",  "NV12", "I420", "RGBx", "BGRx",
                                   "AYUV", "GRAY8", "NV21", "YV12", "Y444"};
const char *const kMethods[] = {"identity", "90r", "180", "90l", "horiz", "vert", "ul-lr", "ur-ll"};

struct Size {
    int width, height;
};

// Odd sizes: 37 is no multiple of 4, so vulkanupload shears 8-bit planes (vulkan-frames.h) and the
// peers run on the frame its images hold.
const Size kRequiredSizes[] = {{64, 48}, {37, 23}, {2, 2}, {1, 1}};
const Size kOtherSizes[] = {{37, 23}, {2, 2}};

struct Crop {
    int left, right, top, bottom;
    const char *method; // after the crop, in the same g2gview; nullptr for none
};
const Crop kCrops[] = {{3, 2, 1, 4, nullptr}, {1, 0, 0, 1, nullptr}, {0, 5, 3, 0, nullptr},
                       {0, 1, 1, 0, nullptr}, {3, 2, 1, 4, "90r"},   {1, 0, 0, 1, "ur-ll"}};

void PrintTo(const Size &size, std::ostream *out)
{
    *out << size.width << "x" << size.height;
}

std::string caps_of(const std::string &format, Size size)
{
    return g2g::test::raw_caps(format, size.width, size.height);
}

std::string crop_props(const Crop &c)
{
    return "left=" + std::to_string(c.left) + " right=" + std::to_string(c.right) +
           " top=" + std::to_string(c.top) + " bottom=" + std::to_string(c.bottom);
}

bool fits(const Crop &c, Size size)
{
    return c.left + c.right < size.width && c.top + c.bottom < size.height;
}

// "" when g2gview and g2gmaterialize both offer `format` on VulkanImage, else why not.
std::string not_offered(const std::string &format)
{
    for (const char *factory : {"g2gview", "g2gmaterialize"})
        if (!g2g::test::vulkan_image_formats(factory).count(format))
            return std::string(factory) + " does not offer " + format + " on memory:VulkanImage";
    return "";
}

bool is_required(const std::string &format)
{
    for (const char *required : kRequiredFormats)
        if (format == required)
            return true;
    return false;
}

// Skips without a Vulkan device; fails for a required format g2g does not offer, skips another;
// skips a format whose frames this GStreamer's vulkanupload (the tests' producer) cannot make.
#define SKIP_UNLESS_VULKAN_TAKES(format)                                                                     \
    do {                                                                                                     \
        SKIP_WITHOUT_VULKAN();                                                                               \
        if (const std::string why = not_offered(format); !why.empty()) {                                     \
            if (is_required(format))                                                                         \
                FAIL() << why << " (issue 14 requires it)";                                                  \
            GTEST_SKIP() << why;                                                                             \
        }                                                                                                    \
        SKIP_WHERE_VULKANUPLOAD_CANNOT_MAKE(format);                                                         \
    } while (false)

std::string case_name(std::string name)
{
    for (char &c : name)
        if (!std::isalnum(static_cast<unsigned char>(c)))
            c = '_';
    return name;
}

// Every method and every crop that fits, each materialized by g2gmaterialize into VulkanImage.
std::vector<VulkanCase> methods_and_crops(const std::string &format, Size size)
{
    const std::string caps = caps_of(format, size);
    std::vector<VulkanCase> cases;
    for (const char *method : kMethods) {
        const std::string direction = std::string("video-direction=") + method;
        cases.push_back({direction, caps, "g2gview " + direction + " ! g2gmaterialize ! vulkandownload",
                         "videoflip " + direction});
    }
    for (const Crop &crop : kCrops) {
        if (!fits(crop, size))
            continue;
        const std::string props = crop_props(crop);
        if (crop.method)
            cases.push_back({props + " video-direction=" + crop.method, caps,
                             "g2gview " + props + " video-direction=" + crop.method +
                                 " ! g2gmaterialize ! vulkandownload",
                             "videocrop " + props + " ! videoflip video-direction=" + crop.method});
        else
            cases.push_back({props, caps, "g2gview " + props + " ! g2gmaterialize ! vulkandownload",
                             "videocrop " + props});
    }
    return cases;
}

using FormatSize = std::tuple<const char *, Size>;
class VulkanViewsVsPeers : public testing::TestWithParam<FormatSize> {};

TEST_P(VulkanViewsVsPeers, EveryMethodAndCropEqualsVideoflipAndVideocrop)
{
    const auto [format, size] = GetParam();
    SKIP_UNLESS_VULKAN_TAKES(format);
    expect_vulkan_cases(methods_and_crops(format, size));
}

std::string format_size_name(const testing::TestParamInfo<FormatSize> &info)
{
    const Size size = std::get<1>(info.param);
    return case_name(std::string(std::get<0>(info.param)) + "_" + std::to_string(size.width) + "x" +
                     std::to_string(size.height));
}

INSTANTIATE_TEST_SUITE_P(Required, VulkanViewsVsPeers,
                         testing::Combine(testing::ValuesIn(kRequiredFormats),
                                          testing::ValuesIn(kRequiredSizes)),
                         format_size_name);
INSTANTIATE_TEST_SUITE_P(Others, VulkanViewsVsPeers,
                         testing::Combine(testing::ValuesIn(kOtherFormats), testing::ValuesIn(kOtherSizes)),
                         format_size_name);

// The other ways a view becomes dense: g2gview itself into vulkandownload (which takes no views),
// chains of views, and g2gmaterialize into system memory (its own download).
class VulkanViewOutputs : public testing::TestWithParam<const char *> {};

TEST_P(VulkanViewOutputs, EqualThePeers)
{
    const std::string format = GetParam();
    SKIP_UNLESS_VULKAN_TAKES(format);
    const std::string caps = caps_of(format, {37, 23});
    const std::string crop = "left=3 right=2 top=1 bottom=4";
    expect_vulkan_cases({
        {"g2gview alone, 90r", caps, "g2gview video-direction=90r ! vulkandownload",
         "videoflip video-direction=90r"},
        {"g2gview alone, ul-lr", caps, "g2gview video-direction=ul-lr ! vulkandownload",
         "videoflip video-direction=ul-lr"},
        {"g2gview alone, crop then horiz", caps,
         "g2gview " + crop + " video-direction=horiz ! vulkandownload",
         "videocrop " + crop + " ! videoflip video-direction=horiz"},
        {"two views, g2gmaterialize", caps,
         "g2gview video-direction=90r ! g2gview video-direction=horiz top=3 ! g2gmaterialize ! "
         "vulkandownload",
         "videoflip video-direction=90r ! videocrop top=3 ! videoflip video-direction=horiz"},
        {"two views, the second materializes", caps,
         "g2gview left=1 video-direction=ul-lr ! g2gview video-direction=180 ! vulkandownload",
         "videocrop left=1 ! videoflip video-direction=ul-lr ! videoflip video-direction=180"},
        {"three views", caps,
         "g2gview video-direction=90l ! g2gview bottom=2 right=1 ! g2gview video-direction=vert ! "
         "g2gmaterialize "
         "! vulkandownload",
         "videoflip video-direction=90l ! videocrop bottom=2 right=1 ! videoflip video-direction=vert"},
        {"to system memory, 90r", caps, "g2gview video-direction=90r ! g2gmaterialize ! video/x-raw",
         "videoflip video-direction=90r"},
        {"to system memory, vert", caps, "g2gview video-direction=vert ! g2gmaterialize ! video/x-raw",
         "videoflip video-direction=vert"},
        {"to system memory, crop then ur-ll", caps,
         "g2gview " + crop + " video-direction=ur-ll ! g2gmaterialize ! video/x-raw",
         "videocrop " + crop + " ! videoflip video-direction=ur-ll"},
        {"to system memory, a dense frame", caps, "g2gmaterialize ! video/x-raw", ""},
        {"two views to system memory", caps,
         "g2gview video-direction=180 ! g2gview left=1 top=2 ! g2gmaterialize ! video/x-raw",
         "videoflip video-direction=180 ! videocrop left=1 top=2"},
    });
}

INSTANTIATE_TEST_SUITE_P(EveryFormat, VulkanViewOutputs, testing::ValuesIn(kAllFormats),
                         [](const testing::TestParamInfo<const char *> &info) {
                             return case_name(info.param);
                         });

TEST(VulkanViews, G2gviewAndG2gmaterializeOfferTheRequiredFormatsOnVulkanImage)
{
    SKIP_WITHOUT_VULKAN_DOMAIN();
    for (const char *format : kRequiredFormats)
        EXPECT_EQ(not_offered(format), "");
}

// VGA frames of each required format: RGBA into VulkanImage and into system memory, NV12 and I420
// cropped and turned.
class VulkanVga : public testing::TestWithParam<const char *> {};

TEST_P(VulkanVga, FramesEqualThePeers)
{
    const std::string format = GetParam();
    SKIP_UNLESS_VULKAN_TAKES(format);
    const std::string caps = caps_of(format, {640, 480});
    const std::string crop = "left=17 right=31 top=9 bottom=5";
    if (format == "RGBA") {
        expect_vulkan_cases({
            {"RGBA 90r", caps, "g2gview video-direction=90r ! g2gmaterialize ! vulkandownload",
             "videoflip video-direction=90r"},
            {"RGBA ur-ll to system memory", caps,
             "g2gview video-direction=ur-ll ! g2gmaterialize ! video/x-raw",
             "videoflip video-direction=ur-ll"},
        });
    } else if (format == "NV12") {
        expect_vulkan_cases({{"NV12 crop then 90l", caps,
                              "g2gview " + crop + " video-direction=90l ! g2gmaterialize ! vulkandownload",
                              "videocrop " + crop + " ! videoflip video-direction=90l"}});
    } else {
        expect_vulkan_cases({{"I420 crop then ul-lr to system memory", caps,
                              "g2gview " + crop + " video-direction=ul-lr ! g2gmaterialize ! video/x-raw",
                              "videocrop " + crop + " ! videoflip video-direction=ul-lr"}});
    }
}

INSTANTIATE_TEST_SUITE_P(Required, VulkanVga, testing::Values("RGBA", "NV12", "I420"),
                         [](const testing::TestParamInfo<const char *> &info) {
                             return case_name(info.param);
                         });

// GStreamer's own elements, the oracle: vulkanupload ! vulkandownload gives back the frame
// vulkan-frames.h says the images hold, for every format and size above (and snow is the same
// frames in every chain), also with a queue between them once vulkanupload waits for its copies.
class VulkanOracle : public testing::TestWithParam<const char *> {};

TEST_P(VulkanOracle, VulkanuploadThenVulkandownloadGiveTheStoredFrame)
{
    SKIP_WITHOUT_VULKAN();
    SKIP_WHERE_VULKANUPLOAD_CANNOT_MAKE(GetParam());
    std::vector<VulkanCase> cases;
    for (Size size : {Size{64, 48}, Size{37, 23}, Size{2, 2}, Size{1, 1}, Size{640, 480}})
        cases.push_back({std::to_string(size.width) + "x" + std::to_string(size.height),
                         caps_of(GetParam(), size), "vulkandownload", ""});
    // Behind a queue, vulkanupload runs ahead of the copies it submitted (vulkan-upload-wait.h).
    cases.push_back({"37x23 behind a queue", caps_of(GetParam(), {37, 23}), "queue ! vulkandownload", ""});
    expect_vulkan_cases(cases);
}

INSTANTIATE_TEST_SUITE_P(EveryFormat, VulkanOracle, testing::ValuesIn(kAllFormats),
                         [](const testing::TestParamInfo<const char *> &info) {
                             return case_name(info.param);
                         });

g2g::BufferRef all_known(const GstVideoInfo &info)
{
    g2g::BufferRef frame =
        g2g::BufferRef::adopt(gst_buffer_new_allocate(nullptr, GST_VIDEO_INFO_SIZE(&info), nullptr));
    gst_buffer_memset(frame.get(), 0, 0xFF, GST_VIDEO_INFO_SIZE(&info));
    return frame;
}

// The model of what vulkanupload's images hold: the sent frame where rows fill the stride, and on the
// versions that shear padded planes (compat::vulkanupload_shears_padded_planes) not elsewhere.
TEST(VulkanUploadModel, TheStoredFrameIsTheSentOneWhereRowsFillTheStride)
{
    const bool shears = g2g::test::vulkan_copies_shear_padded_planes();
    for (const auto &[format, width, padded] :
         {std::tuple{GST_VIDEO_FORMAT_RGBA, 37, false}, std::tuple{GST_VIDEO_FORMAT_NV12, 64, false},
          std::tuple{GST_VIDEO_FORMAT_I420, 40, false}, std::tuple{GST_VIDEO_FORMAT_NV12, 37, true},
          std::tuple{GST_VIDEO_FORMAT_I420, 36, true}}) {
        const bool sheared = padded && shears;
        const GstVideoInfo info = g2g::test::video_info(format, width, 5);
        const g2g::BufferRef frame = g2g::test::random_frame(info, 9);
        const g2g::test::StoredFrame stored = g2g::test::as_vulkanupload_stores(info, frame.get());
        EXPECT_EQ(g2g::test::compare_frames(info, frame.get(), info, stored.frame.get()).empty(), !sheared)
            << gst_video_format_to_string(format) << " " << width;
        // Padding only where the rows are sheared.
        EXPECT_EQ(g2g::test::compare_frames(info, stored.known.get(), info, all_known(info).get()).empty(),
                  !sheared)
            << gst_video_format_to_string(format) << " " << width;
    }
}

#if G2G_HAVE_VULKAN
// The VkImage of each memory of `buffer` (0 for a memory that is no Vulkan image).
std::vector<guint64> images_of(GstBuffer *buffer)
{
    std::vector<guint64> images;
    for (guint i = 0; i < gst_buffer_n_memory(buffer); ++i) {
        GstMemory *memory = gst_buffer_peek_memory(buffer, i);
        images.push_back(
            gst_is_vulkan_image_memory(memory)
                ? reinterpret_cast<guint64>(reinterpret_cast<GstVulkanImageMemory *>(memory)->image)
                : 0);
    }
    return images;
}

struct ViewCase {
    const char *format;
    const char *chain;
    int width, height; // of the view
};

void PrintTo(const ViewCase &c, std::ostream *out)
{
    *out << c.format << " " << c.chain;
}

class VulkanViewImages : public testing::TestWithParam<ViewCase> {};

TEST_P(VulkanViewImages, AViewKeepsTheUpstreamImagesAndCarriesItsGeometry)
{
    SKIP_WITHOUT_VULKAN();
    const ViewCase &c = GetParam();
    SKIP_WHERE_VULKANUPLOAD_CANNOT_MAKE(c.format);
    std::vector<std::vector<guint64>> upstream;
    const g2g::test::PipelineRun run = g2g::test::run_pipeline(
        g2g::test::vulkan_case_source(caps_of(c.format, {64, 48})) +
            " ! vulkanupload ! identity name=tap ! " + c.chain +
            " ! appsink name=sink sync=false "
            "caps=\"video/x-raw(memory:VulkanImage, meta:G2gTensorView)\"",
        [&](GstBuffer *buffer) { upstream.push_back(images_of(buffer)); }, 20 * GST_SECOND, {},
        g2g::test::wait_for_each_upload);
    ASSERT_EQ(run.error, "") << run.error_source;
    ASSERT_EQ(run.buffers.size(), static_cast<std::size_t>(g2g::test::kVulkanCaseFrames));
    ASSERT_EQ(upstream.size(), run.buffers.size());
    for (std::size_t i = 0; i < run.buffers.size(); ++i) {
        GstBuffer *buffer = run.buffers[i].get();
        EXPECT_EQ(images_of(buffer), upstream[i])
            << "frame " << i << ": the view reads vulkanupload's images";
        EXPECT_EQ(std::count(upstream[i].begin(), upstream[i].end(), 0u), 0) << "frame " << i;
        const g2g::FrameView *view = g2g::tensor_view_of(buffer);
        ASSERT_NE(view, nullptr) << "frame " << i << ": no G2gTensorViewMeta";
        EXPECT_EQ(view->width(), static_cast<std::uint32_t>(c.width)) << "frame " << i;
        EXPECT_EQ(view->height(), static_cast<std::uint32_t>(c.height)) << "frame " << i;
    }
    EXPECT_NE(run.sink_caps.at("sink").find("memory:VulkanImage, meta:G2gTensorView"), std::string::npos)
        << run.sink_caps.at("sink");
}

INSTANTIATE_TEST_SUITE_P(
    Views, VulkanViewImages,
    testing::Values(ViewCase{"NV12", "g2gview video-direction=vert", 64, 48},
                    ViewCase{"RGBA", "g2gview video-direction=vert", 64, 48},
                    ViewCase{"NV12", "g2gview video-direction=90r", 48, 64},
                    ViewCase{"I420", "g2gview left=3 top=1 video-direction=ur-ll", 47, 61},
                    ViewCase{"RGBA", "g2gview video-direction=90r ! g2gview video-direction=horiz left=2", 46,
                             64}),
    [](const testing::TestParamInfo<ViewCase> &info) {
        return case_name(std::string(info.param.format) + "_" + info.param.chain);
    });

// Once a view of vulkanupload's images is gone, vulkanupload's pool recycles the frame, as behind
// vulkandownload: on GStreamer 1.22 (metas freed before memories) it discarded every frame, freed
// its images under the next copies and made new ones for each frame (lavapipe crashed in its queue
// thread in about one run in five on a loaded machine).
TEST(VulkanViews, VulkanuploadsPoolRecyclesTheImagesAViewLivedOn)
{
    SKIP_WITHOUT_VULKAN();
    const std::string source = "videotestsrc num-buffers=30 ! video/x-raw,format=RGBA,width=64,height=48 ! "
                               "vulkanupload ! identity name=tap ! ";
    for (const char *chain :
         {"g2gview video-direction=90r ! g2gmaterialize ! video/x-raw",
          "g2gview video-direction=90r ! g2gmaterialize ! video/x-raw(memory:VulkanImage)",
          "vulkandownload"}) {
        SCOPED_TRACE(chain);
        g2g::test::PoolRecycling pool;
        const g2g::test::PipelineRun run = g2g::test::run_pipeline(
            source + chain + " ! fakesink", pool.tap(), 20 * GST_SECOND, {}, g2g::test::wait_for_each_upload);
        ASSERT_EQ(run.error, "") << run.error_source;
        EXPECT_EQ(pool.fresh + pool.recycled, 30);
        EXPECT_LE(pool.fresh, 4) << pool.recycled << " recycled";
    }
}
#endif

} // namespace
