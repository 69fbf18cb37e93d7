// SPDX-License-Identifier: LGPL-2.1-or-later
// The one-line wrong-domain errors and the converters they name.
#include <g2g/converters.h>

#include <string>

#include "platform/platform.h"

#include <gtest/gtest.h>

using g2g::DomainSet;
using K = g2g::MemoryDomainKind;

TEST(WrongDomainError, SystemReaderGivenCudaNamesCudadownload)
{
    g2g::Error error = g2g::wrong_domain_error("g2gprobe0", {K::System}, K::Cuda);
    EXPECT_EQ(error.code(), g2g::ErrorCode::UnsupportedDomain);
    EXPECT_EQ(error.message(), "g2gprobe0 reads system memory but received a Cuda frame: insert cudadownload "
                               "before it, or let caps negotiation settle on system memory");
}

TEST(WrongDomainError, SystemReaderGivenEachDeviceDomain)
{
    EXPECT_EQ(g2g::wrong_domain_error("sink", {K::System, K::SystemView}, K::VulkanTexture).message(),
              "sink reads system memory but received a VulkanTexture frame: insert g2gmaterialize before it, "
              "or let caps negotiation settle on system memory");
    EXPECT_EQ(g2g::wrong_domain_error("sink", {K::System}, K::SystemView).message(),
              "sink reads system memory but received a SystemView frame: insert g2gmaterialize before it, "
              "or let caps negotiation settle on system memory");
    EXPECT_EQ(g2g::wrong_domain_error("sink", {K::System}, K::D3D11Texture).message(),
              "sink reads system memory but received a D3D11Texture frame: insert d3d11download before it, "
              "or let caps negotiation settle on system memory");
    EXPECT_EQ(g2g::wrong_domain_error("sink", {K::System}, K::WgpuTexture).message(),
              "sink reads system memory but received a WgpuTexture frame: no GStreamer element converts "
              "WgpuTexture frames to it; have the producer output system memory instead");
}

TEST(WrongDomainError, DeviceRequirementNamesTheUpload)
{
    EXPECT_EQ(g2g::wrong_domain_error("enc", {K::Cuda}, K::System).message(),
              "enc requires Cuda but received a System frame: insert cudaupload before it, or let caps "
              "negotiation settle on memory:CUDAMemory");
    EXPECT_EQ(
        g2g::wrong_domain_error("enc", {K::Cuda, K::VulkanTexture}, K::VulkanTexture).message().substr(0, 40),
        "enc requires Cuda or VulkanTexture but r");
    // CUDA to Vulkan stays on the GPU where this build has g2gconvert, else goes through system memory.
    EXPECT_EQ(g2g::wrong_domain_error("enc", {K::VulkanTexture}, K::Cuda).message(),
              std::string("enc requires VulkanTexture but received a Cuda frame: insert ") +
                  (g2g::platform::cuda_vulkan::built() ? "g2gconvert" : "cudadownload ! vulkanupload") +
                  " before it, or let caps negotiation settle on memory:VulkanImage");
    // Other device pairs go through system memory.
    EXPECT_EQ(
        g2g::wrong_domain_error("enc", {K::VulkanTexture}, K::D3D11Texture).message(),
        "enc requires VulkanTexture but received a D3D11Texture frame: insert d3d11download ! vulkanupload "
        "before it, or let caps negotiation settle on memory:VulkanImage");
    EXPECT_EQ(g2g::wrong_domain_error("x", {}, K::System).message(),
              "x accepts no memory domain but received a System frame");
}

TEST(Converters, BetweenDomains)
{
    EXPECT_EQ(g2g::converter_between(K::Cuda, K::System), "cudadownload");
    EXPECT_EQ(g2g::converter_between(K::System, K::Cuda), "cudaupload");
    EXPECT_EQ(g2g::converter_between(K::VulkanTexture, K::System), "g2gmaterialize");
    EXPECT_EQ(g2g::converter_between(K::System, K::VulkanTexture), "vulkanupload");
    EXPECT_EQ(g2g::converter_between(K::SystemView, K::System), "g2gmaterialize");
    EXPECT_EQ(g2g::converter_between(K::SystemView, K::Cuda), "g2gmaterialize ! cudaupload");
    EXPECT_EQ(g2g::converter_between(K::Cuda, K::Cuda), "");
    EXPECT_EQ(g2g::converter_between(K::WebGPUBuffer, K::System), "");
    const bool bridge = g2g::platform::cuda_vulkan::built();
    EXPECT_EQ(g2g::converter_between(K::Cuda, K::VulkanTexture),
              bridge ? "g2gconvert" : "cudadownload ! vulkanupload");
    EXPECT_EQ(g2g::converter_between(K::VulkanTexture, K::Cuda),
              bridge ? "g2gconvert" : "g2gmaterialize ! cudaupload");
    EXPECT_EQ(g2g::converts_through_host(K::Cuda, K::VulkanTexture), !bridge);
    EXPECT_TRUE(g2g::converts_through_host(K::D3D11Texture, K::VulkanTexture));
    EXPECT_FALSE(g2g::converts_through_host(K::Cuda, K::System));
    EXPECT_FALSE(g2g::converts_through_host(K::Cuda, K::Cuda));
    EXPECT_FALSE(g2g::converts_through_host(K::WebGPUBuffer, K::Cuda)); // no converter at all
    // CUDA frames are DMA-BUFs of their own memory where the build exports them; no element of
    // GStreamer 1.22 makes one of the other (DmaBuf has no from-system element).
    const bool exports = g2g::platform::cuda_dmabuf::built();
    EXPECT_EQ(g2g::converter_between(K::Cuda, K::DmaBuf), exports ? "g2gconvert" : "");
    EXPECT_FALSE(g2g::converts_through_host(K::Cuda, K::DmaBuf));
    EXPECT_EQ(g2g::converter_between(K::DmaBuf, K::Cuda), "glupload ! gldownload ! cudaupload");
}
