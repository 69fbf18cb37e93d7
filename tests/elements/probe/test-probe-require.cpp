// SPDX-License-Identifier: LGPL-2.1-or-later
// g2gprobe's require as people write it: the names last-domain prints (DmaBuf, VulkanTexture), the
// flags' nicks (dma-buf), any case, hyphens and underscores optional, `vulkan`, joined by '+' or
// '|'; set through gst_util_set_object_arg, gst_value_deserialize and gst_parse_launch (what
// gst-launch-1.0 does), and a name that is none of them refused with the names it takes.
#include <g2g/domain-set.h>
#include <g2g/g2g.h>
#include <g2g/gst-ref.h>

#include <gtest/gtest.h>

#include <mutex>
#include <string>
#include <vector>

#include "pipeline.h"

using g2g::DomainSet;
using g2g::ElementRef;
using K = g2g::MemoryDomainKind;

namespace {

DomainSet required(GstElement *probe)
{
    guint flags = 0;
    g_object_get(probe, "require", &flags, nullptr);
    return DomainSet::from_bits(flags);
}

// require after gst_util_set_object_arg(probe, "require", text), on a new probe.
DomainSet set_from(const char *text)
{
    const ElementRef probe =
        ElementRef::adopt(GST_ELEMENT(gst_object_ref_sink(gst_element_factory_make("g2gprobe", nullptr))));
    gst_util_set_object_arg(G_OBJECT(probe.get()), "require", text);
    return required(probe.get());
}

// The g2gprobe debug category's warnings while it lives.
class ProbeWarnings {
public:
    ProbeWarnings()
    {
        gst_debug_set_threshold_for_name("g2gprobe", GST_LEVEL_WARNING);
        gst_debug_add_log_function(keep, this, nullptr);
    }
    ~ProbeWarnings()
    {
        gst_debug_remove_log_function_by_data(this);
        gst_debug_set_threshold_for_name("g2gprobe", GST_LEVEL_NONE);
    }
    ProbeWarnings(const ProbeWarnings &) = delete;
    ProbeWarnings &operator=(const ProbeWarnings &) = delete;

    std::vector<std::string> said() const
    {
        const std::lock_guard lock(lock_);
        return said_;
    }

private:
    static void keep(GstDebugCategory *category, GstDebugLevel level, const gchar *, const gchar *, gint,
                     GObject *, GstDebugMessage *message, gpointer data)
    {
        if (level != GST_LEVEL_WARNING || g_strcmp0(gst_debug_category_get_name(category), "g2gprobe") != 0)
            return;
        auto *self = static_cast<ProbeWarnings *>(data);
        const std::lock_guard lock(self->lock_);
        self->said_.emplace_back(gst_debug_message_get(message));
    }

    mutable std::mutex lock_;
    std::vector<std::string> said_;
};

struct Spelling {
    const char *text;
    DomainSet expected;
};

class RequireSpelling : public testing::TestWithParam<Spelling> {};

INSTANTIATE_TEST_SUITE_P(
    G2gProbeRequire, RequireSpelling,
    testing::Values(
        Spelling{"DmaBuf", {K::DmaBuf}}, Spelling{"dmabuf", {K::DmaBuf}}, Spelling{"dma-buf", {K::DmaBuf}},
        Spelling{"DMA_BUF", {K::DmaBuf}}, Spelling{"VulkanTexture", {K::VulkanTexture}},
        Spelling{"vulkan-texture", {K::VulkanTexture}}, Spelling{"vulkan_texture", {K::VulkanTexture}},
        Spelling{"VULKANTEXTURE", {K::VulkanTexture}}, Spelling{"vulkan", {K::VulkanTexture}},
        Spelling{"Vulkan", {K::VulkanTexture}}, Spelling{"System", {K::System}},
        Spelling{"SystemView", {K::SystemView}}, Spelling{"system-view", {K::SystemView}},
        Spelling{"Cuda", {K::Cuda}}, Spelling{"CUDA", {K::Cuda}}, Spelling{"D3D11Texture", {K::D3D11Texture}},
        Spelling{"d3d11-texture", {K::D3D11Texture}}, Spelling{"CvPixelBuffer", {K::CvPixelBuffer}},
        Spelling{"WebGPUExternalTexture", {K::WebGPUExternalTexture}},
        Spelling{"web-gpu-external-texture", {K::WebGPUExternalTexture}},
        Spelling{"WgpuBuffer", {K::WgpuBuffer}}, Spelling{"WebGPUBuffer", {K::WebGPUBuffer}},
        Spelling{"G2G_MEMORY_DOMAIN_KINDS_DMA_BUF", {K::DmaBuf}},
        Spelling{"dmabuf+VulkanTexture", {K::DmaBuf, K::VulkanTexture}},
        Spelling{"DmaBuf|vulkan", {K::DmaBuf, K::VulkanTexture}},
        Spelling{"system+system-view", {K::System, K::SystemView}},
        Spelling{"System + Cuda", {K::System, K::Cuda}}, Spelling{"system+", {K::System}},
        Spelling{"0x5", {K::System, K::DmaBuf}}, Spelling{"0", {}}, Spelling{"", {}}));

} // namespace

TEST_P(RequireSpelling, SetFromAStringAsGstLaunchDoes)
{
    EXPECT_EQ(set_from(GetParam().text).to_string(), GetParam().expected.to_string()) << GetParam().text;

    GValue value = G_VALUE_INIT;
    g_value_init(&value, G2G_TYPE_MEMORY_DOMAIN_KINDS);
    ASSERT_TRUE(gst_value_deserialize(&value, GetParam().text));
    EXPECT_EQ(DomainSet::from_bits(g_value_get_flags(&value)).bits(), GetParam().expected.bits());
    g_value_unset(&value);
}

TEST(G2gProbeRequire, ParseLaunchSetsItAsGstLaunchDoes)
{
    GError *error = nullptr;
    const ElementRef pipeline = ElementRef::adopt(gst_parse_launch(
        "videotestsrc num-buffers=1 ! g2gprobe name=p require=dmabuf+VulkanTexture ! fakesink", &error));
    ASSERT_EQ(error, nullptr) << error->message;
    const ElementRef probe = ElementRef::adopt(gst_bin_get_by_name(GST_BIN(pipeline.get()), "p"));
    EXPECT_EQ(required(probe.get()), (DomainSet{K::DmaBuf, K::VulkanTexture}));
}

TEST(G2gProbeRequire, SerializesToTheCanonicalNicks)
{
    GValue value = G_VALUE_INIT;
    g_value_init(&value, G2G_TYPE_MEMORY_DOMAIN_KINDS);
    g_value_set_flags(&value, DomainSet{K::VulkanTexture, K::DmaBuf}.bits());
    g_autofree gchar *text = gst_value_serialize(&value);
    EXPECT_STREQ(text, "dma-buf+vulkan-texture");
    g_value_set_flags(&value, 0);
    g_autofree gchar *none = gst_value_serialize(&value);
    EXPECT_STREQ(none, "0");
    g_value_unset(&value);
}

TEST(G2gProbeRequire, TheNamesItPrintsRequireFramesInThatDomain)
{
    // last-domain says System: require=System passes, require=DmaBuf refuses with the fix.
    const g2g::test::PipelineRun passes =
        g2g::test::run_pipeline("videotestsrc num-buffers=2 ! g2gprobe require=System ! appsink name=sink");
    EXPECT_EQ(passes.error, "");
    EXPECT_EQ(passes.buffers.size(), 2u);
    const g2g::test::PipelineRun refused = g2g::test::run_pipeline(
        "videotestsrc num-buffers=2 ! g2gprobe name=p require=DmaBuf ! appsink name=sink");
    EXPECT_EQ(refused.error_source, "p");
    EXPECT_EQ(refused.error,
              "p requires DmaBuf but received a System frame: insert g2gdmabufupload before it, or "
              "let caps negotiation settle on memory:DMABuf");
}

TEST(G2gProbeRequire, AnUnknownNameIsRefusedNamingTheNamesItTakes)
{
    const ProbeWarnings warnings;
    GError *error = nullptr;
    const ElementRef pipeline = ElementRef::adopt(
        gst_parse_launch("videotestsrc ! g2gprobe name=p require=dmabuf+opengl ! fakesink", &error));
    ASSERT_NE(error, nullptr);
    // GStreamer's words (1.22 names the element by its factory: the name is set after require).
    const std::string said_by_parse = error->message;
    EXPECT_EQ(said_by_parse.rfind("could not set property \"require\" in element \"", 0), 0u)
        << said_by_parse;
    EXPECT_NE(said_by_parse.find("\" to \"dmabuf+opengl\""), std::string::npos) << said_by_parse;
    g_error_free(error);

    const std::vector<std::string> said = warnings.said();
    ASSERT_FALSE(said.empty());
    EXPECT_EQ(said.back(),
              "\"dmabuf+opengl\" names no set of memory domains: use System (system), SystemView "
              "(system-view), DmaBuf (dma-buf), VulkanTexture (vulkan-texture), WebGPUBuffer "
              "(web-gpu-buffer), Cuda (cuda), D3D11Texture (d3d11-texture), CvPixelBuffer "
              "(cv-pixel-buffer), WebGPUExternalTexture (web-gpu-external-texture), WgpuTexture "
              "(wgpu-texture), WgpuBuffer (wgpu-buffer), or vulkan for VulkanTexture, in any case, "
              "joined by '+'");

    // gst_util_set_object_arg leaves the property as it was.
    const ElementRef probe =
        ElementRef::adopt(GST_ELEMENT(gst_object_ref_sink(gst_element_factory_make("g2gprobe", nullptr))));
    gst_util_set_object_arg(G_OBJECT(probe.get()), "require", "cuda");
    for (const char *bad : {"opengl", "dma buf", "system/cuda", "0x800000", "vulkan-image"})
        gst_util_set_object_arg(G_OBJECT(probe.get()), "require", bad);
    EXPECT_EQ(required(probe.get()), DomainSet{K::Cuda});
}
