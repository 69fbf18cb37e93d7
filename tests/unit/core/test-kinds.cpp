// SPDX-License-Identifier: LGPL-2.1-or-later
// MemoryDomainKind names and caps features, DomainSet, the GFlags type.
#include <g2g/domain-set.h>
#include <g2g/g2g.h>
#include <g2g/memory-domain-kind.h>

#include <gtest/gtest.h>

#include <vector>

using g2g::DomainSet;
using K = g2g::MemoryDomainKind;

TEST(MemoryDomainKind, HasExactlyTheSeedsElevenKindsInOrder)
{
    const std::vector<std::string_view> seed = {"System",        "SystemView",    "DmaBuf",
                                                "VulkanTexture", "WebGPUBuffer",  "Cuda",
                                                "D3D11Texture",  "CvPixelBuffer", "WebGPUExternalTexture",
                                                "WgpuTexture",   "WgpuBuffer"};
    ASSERT_EQ(g2g::kMemoryDomainKindCount, seed.size());
    for (std::size_t i = 0; i < seed.size(); ++i) {
        EXPECT_EQ(g2g::name(g2g::kAllMemoryDomainKinds[i]), seed[i]);
        EXPECT_EQ(static_cast<std::size_t>(g2g::kAllMemoryDomainKinds[i]), i);
    }
}

TEST(MemoryDomainKind, CapsFeaturesFollowTheDomainTable)
{
    EXPECT_EQ(g2g::caps_feature(K::System), "memory:SystemMemory");
    EXPECT_EQ(g2g::caps_feature(K::SystemView), "memory:SystemMemory, meta:G2gTensorView");
    EXPECT_EQ(g2g::caps_feature(K::DmaBuf), "memory:DMABuf");
    EXPECT_EQ(g2g::caps_feature(K::VulkanTexture), "memory:VulkanImage");
    EXPECT_EQ(g2g::caps_feature(K::Cuda), "memory:CUDAMemory");
    EXPECT_EQ(g2g::caps_feature(K::D3D11Texture), "memory:D3D11Memory");
    EXPECT_EQ(g2g::caps_feature(K::CvPixelBuffer), "memory:CVPixelBuffer");
    EXPECT_EQ(g2g::caps_feature(K::WebGPUBuffer), "memory:WebGPUBuffer");
    EXPECT_EQ(g2g::caps_feature(K::WebGPUExternalTexture), "memory:WebGPUExternalTexture");
    EXPECT_EQ(g2g::caps_feature(K::WgpuTexture), "memory:WgpuTexture");
    EXPECT_EQ(g2g::caps_feature(K::WgpuBuffer), "memory:WgpuBuffer");
    EXPECT_EQ(g2g::memory_caps_feature(K::SystemView), "memory:SystemMemory");
}

TEST(MemoryDomainKind, EveryCapsFeatureParsesAsGstCapsFeatures)
{
    for (K kind : g2g::kAllMemoryDomainKinds) {
        std::string text(g2g::caps_feature(kind));
        GstCapsFeatures *features = gst_caps_features_from_string(text.c_str());
        ASSERT_NE(features, nullptr) << text;
        EXPECT_TRUE(
            gst_caps_features_contains(features, std::string(g2g::memory_caps_feature(kind)).c_str()));
        gst_caps_features_free(features);
    }
}

TEST(MemoryDomainKind, NamesAndNicksRoundTrip)
{
    for (K kind : g2g::kAllMemoryDomainKinds) {
        EXPECT_EQ(g2g::kind_from_name(g2g::name(kind)), kind);
        EXPECT_EQ(g2g::kind_from_name(g2g::nick(kind)), kind);
    }
    EXPECT_EQ(g2g::nick(K::WebGPUExternalTexture), "web-gpu-external-texture");
    EXPECT_EQ(g2g::nick(K::D3D11Texture), "d3d11-texture");
    EXPECT_FALSE(g2g::kind_from_name("GLMemory").has_value());
}

TEST(DomainSet, AllHoldsAllElevenKinds)
{
    DomainSet all = DomainSet::all();
    EXPECT_EQ(all.size(), 11u);
    for (K kind : g2g::kAllMemoryDomainKinds)
        EXPECT_TRUE(all.contains(kind)) << g2g::name(kind);
    EXPECT_TRUE(DomainSet::none().empty());
    EXPECT_EQ(DomainSet::from_bits(0xffffffffu), all);
}

TEST(DomainSet, SetAlgebra)
{
    DomainSet gpu = {K::Cuda, K::VulkanTexture};
    DomainSet host = {K::System, K::SystemView};
    DomainSet mixed = {K::Cuda, K::System};
    EXPECT_EQ(gpu & mixed, DomainSet({K::Cuda}));
    EXPECT_EQ(gpu | host, DomainSet({K::Cuda, K::VulkanTexture, K::System, K::SystemView}));
    EXPECT_EQ(mixed.without(gpu), DomainSet({K::System}));
    EXPECT_TRUE((gpu & host).empty());
    DomainSet grown;
    grown.insert(K::DmaBuf).insert(K::WgpuBuffer).erase(K::DmaBuf);
    EXPECT_EQ(grown, DomainSet({K::WgpuBuffer}));
}

TEST(DomainSet, IteratesInKindOrder)
{
    DomainSet set = {K::WgpuBuffer, K::System, K::Cuda};
    std::vector<K> seen(set.begin(), set.end());
    EXPECT_EQ(seen, (std::vector<K>{K::System, K::Cuda, K::WgpuBuffer}));
    EXPECT_EQ(set.to_string(), "System+Cuda+WgpuBuffer");
    EXPECT_EQ(DomainSet().to_string(), "(none)");
}

TEST(DomainSet, PreferredIsGpuFirst)
{
    const std::vector<K> order = {
        K::Cuda,       K::D3D11Texture,          K::CvPixelBuffer, K::VulkanTexture, K::WgpuTexture,
        K::WgpuBuffer, K::WebGPUExternalTexture, K::WebGPUBuffer,  K::DmaBuf,        K::SystemView,
        K::System};
    EXPECT_EQ(DomainSet::all().by_preference(), order);
    // Removing the best each time leaves the next one as preferred.
    DomainSet remaining = DomainSet::all();
    for (K expected : order) {
        EXPECT_EQ(remaining.preferred(), expected);
        remaining.erase(expected);
    }
    EXPECT_FALSE(remaining.preferred().has_value());
    EXPECT_EQ((DomainSet{K::System, K::DmaBuf}).preferred(), K::DmaBuf);
}

TEST(KindsGType, FlagNicksAreKebabCaseKindNames)
{
    GFlagsClass *flags = G_FLAGS_CLASS(g_type_class_ref(G2G_TYPE_MEMORY_DOMAIN_KINDS));
    ASSERT_EQ(flags->n_values, 11u);
    for (K kind : g2g::kAllMemoryDomainKinds) {
        GFlagsValue *value = g_flags_get_value_by_nick(flags, std::string(g2g::nick(kind)).c_str());
        ASSERT_NE(value, nullptr) << g2g::nick(kind);
        EXPECT_EQ(value->value, 1u << static_cast<unsigned>(kind));
    }
    g_type_class_unref(flags);

    GValue value = G_VALUE_INIT;
    g_value_init(&value, G2G_TYPE_MEMORY_DOMAIN_KINDS);
    ASSERT_TRUE(gst_value_deserialize(&value, "system+system-view"));
    EXPECT_EQ(DomainSet::from_bits(g_value_get_flags(&value)), DomainSet({K::System, K::SystemView}));
    g_value_unset(&value);
}
