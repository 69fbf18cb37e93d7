// SPDX-License-Identifier: LGPL-2.1-or-later
// The platform-handle memories (g2g/platform-handles.h), per kind: a memory type and allocator of
// its own, the payload recovered by its type only, the keep-alive released exactly once after the
// last share (never while one lives), what a frame of the kind cannot be, and what is refused.
#include <g2g/classify.h>
#include <g2g/platform-handles.h>

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "handle-frames.h"
#include "log-capture.h"

namespace {

using g2g::BufferRef;
using g2g::MemoryRef;
using g2g::test::StandIn;
using K = g2g::MemoryDomainKind;
namespace handles = g2g::handles;

class HandleKind : public testing::TestWithParam<K> {};

// How many of the six payload types `memory` answers to.
int payload_types_answered(GstMemory *memory)
{
    return (handles::payload_of<G2gD3D11Texture>(memory) != nullptr) +
           (handles::payload_of<G2gCvPixelBuffer>(memory) != nullptr) +
           (handles::payload_of<G2gWebGPUBuffer>(memory) != nullptr) +
           (handles::payload_of<G2gWebGPUExternalTexture>(memory) != nullptr) +
           (handles::payload_of<G2gWgpuTexture>(memory) != nullptr) +
           (handles::payload_of<G2gWgpuBuffer>(memory) != nullptr);
}

TEST_P(HandleKind, IsAMemoryTypeAndAllocatorOfItsOwn)
{
    StandIn object;
    BufferRef frame = g2g::test::handle_frame(GetParam(), object, 4096);
    ASSERT_TRUE(frame);
    GstMemory *memory = gst_buffer_peek_memory(frame.get(), 0);
    const std::string name(g2g::name(GetParam()));
    EXPECT_TRUE(gst_memory_is_type(memory, ("G2g" + name).c_str()));
    EXPECT_STREQ(G_OBJECT_TYPE_NAME(memory->allocator), ("G2g" + name + "Allocator").c_str());
    EXPECT_EQ(handles::handle_domain_of(memory), GetParam());
    EXPECT_EQ(*g2g::classify_buffer(frame.get()), GetParam());
    EXPECT_TRUE(GST_MEMORY_FLAG_IS_SET(memory, GST_MEMORY_FLAG_NOT_MAPPABLE));
    GstMapInfo map;
    EXPECT_FALSE(gst_memory_map(memory, &map, GST_MAP_READ)) << "the host cannot read " << name;
}

TEST_P(HandleKind, ThePayloadComesBackOnlyToItsOwnType)
{
    StandIn object;
    BufferRef frame = g2g::test::handle_frame(GetParam(), object, 4096, 320, 240);
    GstMemory *memory = gst_buffer_peek_memory(frame.get(), 0);
    EXPECT_EQ(payload_types_answered(memory), 1) << "one payload type answers, the kind's own";
    EXPECT_EQ(g2g::test::handle_of(memory), &object);
    switch (GetParam()) {
    case K::D3D11Texture: {
        const G2gD3D11Texture *p = handles::payload_of<G2gD3D11Texture>(memory);
        ASSERT_NE(p, nullptr);
        EXPECT_EQ(p->subresource, 2u);
        EXPECT_EQ(p->width, 320u);
        EXPECT_EQ(p->height, 240u);
        EXPECT_EQ(p->dxgi_format, 103u);
        EXPECT_EQ(p->device, &object);
        break;
    }
    case K::CvPixelBuffer: {
        const G2gCvPixelBuffer *p = handles::payload_of<G2gCvPixelBuffer>(memory);
        ASSERT_NE(p, nullptr);
        EXPECT_EQ(p->width, 320u);
        EXPECT_EQ(p->pixel_format, 0x34323076u);
        EXPECT_TRUE(p->iosurface_backed);
        break;
    }
    case K::WebGPUBuffer:
        ASSERT_NE(handles::payload_of<G2gWebGPUBuffer>(memory), nullptr);
        EXPECT_EQ(handles::payload_of<G2gWebGPUBuffer>(memory)->size, 4096u);
        break;
    case K::WebGPUExternalTexture:
        ASSERT_NE(handles::payload_of<G2gWebGPUExternalTexture>(memory), nullptr);
        EXPECT_EQ(handles::payload_of<G2gWebGPUExternalTexture>(memory)->height, 240u);
        break;
    case K::WgpuTexture:
        ASSERT_NE(handles::payload_of<G2gWgpuTexture>(memory), nullptr);
        EXPECT_EQ(handles::payload_of<G2gWgpuTexture>(memory)->format, 18u);
        break;
    case K::WgpuBuffer:
        ASSERT_NE(handles::payload_of<G2gWgpuBuffer>(memory), nullptr);
        EXPECT_EQ(handles::payload_of<G2gWgpuBuffer>(memory)->valid_length, 4096u);
        break;
    default:
        FAIL() << "not a handle kind";
    }
    // A share and a buffer copy answer the same; other memory answers nothing.
    MemoryRef share = MemoryRef::adopt(gst_memory_share(memory, 16, 64));
    EXPECT_EQ(g2g::test::handle_of(share.get()), &object);
    EXPECT_EQ(payload_types_answered(share.get()), 1);
    MemoryRef system = MemoryRef::adopt(gst_allocator_alloc(nullptr, 64, nullptr));
    EXPECT_EQ(payload_types_answered(system.get()), 0);
    EXPECT_EQ(payload_types_answered(nullptr), 0);
    EXPECT_EQ(handles::keep_alive_of(system.get()), nullptr);
    EXPECT_EQ(handles::handle_domain_of(system.get()), std::nullopt);
}

TEST_P(HandleKind, TheKeepAliveIsReleasedOnceAfterTheLastShare)
{
    StandIn object;
    {
        BufferRef frame = g2g::test::handle_frame(GetParam(), object, 4096);
        GstMemory *memory = gst_buffer_peek_memory(frame.get(), 0);
        // What a tee's branches, a queue and an application hold: shares and buffer copies.
        BufferRef copy = BufferRef::adopt(gst_buffer_copy(frame.get()));
        MemoryRef share = MemoryRef::adopt(gst_memory_share(memory, 0, -1));
        MemoryRef share_of_share = MemoryRef::adopt(gst_memory_share(share.get(), 8, 8));
        BufferRef region =
            BufferRef::adopt(gst_buffer_copy_region(frame.get(), GST_BUFFER_COPY_MEMORY, 0, 100));
        frame.reset();
        copy.reset();
        share.reset();
        EXPECT_EQ(object.releases, 0) << "released while a share lives";
        region.reset();
        EXPECT_EQ(object.releases, 0);
        EXPECT_EQ(g2g::test::handle_of(share_of_share.get()), &object);
    }
    EXPECT_EQ(object.releases, 1) << "0: leaked; 2 or more: released twice";
}

TEST_P(HandleKind, ADeepCopyFailsAndReleasesNothing)
{
    StandIn object;
    BufferRef frame = g2g::test::handle_frame(GetParam(), object, 4096);
    const g2g::test::LogCapture complaints;
    // A platform object cannot be duplicated by a library that does not link its platform.
    EXPECT_EQ(gst_memory_copy(gst_buffer_peek_memory(frame.get(), 0), 0, -1), nullptr);
    BufferRef deep = BufferRef::adopt(gst_buffer_copy_deep(frame.get()));
    EXPECT_FALSE(deep) << "a deep copy of a " << g2g::name(GetParam()) << " frame";
    EXPECT_EQ(object.releases, 0);
    frame.reset();
    EXPECT_EQ(object.releases, 1);
    EXPECT_EQ(complaints.said(), std::vector<std::string>{});
}

// A producer that links its platform keeps its object in its own keep-alive type; a consumer that
// links it too gets that type back, any other type is nothing (the seed's as_any).
TEST_P(HandleKind, AProducersOwnKeepAliveComesBackByItsType)
{
    struct PlatformObject : handles::KeepAlive {
        explicit PlatformObject(int &released) : released_(released) {}
        ~PlatformObject() override { ++released_; }
        int &released_;
    };
    struct OtherObject : handles::KeepAlive {};
    int released = 0;
    StandIn object;
    {
        MemoryRef memory =
            g2g::test::handle_memory(GetParam(), object, std::make_shared<PlatformObject>(released), 64);
        ASSERT_TRUE(memory);
        std::shared_ptr<handles::KeepAlive> keep = handles::keep_alive_of(memory.get());
        ASSERT_NE(keep, nullptr);
        EXPECT_NE(keep->as<PlatformObject>(), nullptr);
        EXPECT_EQ(keep->as<OtherObject>(), nullptr);
    }
    EXPECT_EQ(released, 1);
    EXPECT_EQ(object.releases, 0) << "the stand-in's counter is only the counting keep-alive's";
}

TEST_P(HandleKind, ANullKeepAliveIsRefused)
{
    StandIn object;
    EXPECT_FALSE(g2g::test::handle_memory(GetParam(), object, nullptr, 64));
    EXPECT_EQ(handles::keep_alive(&object, nullptr), nullptr) << "a keep-alive of no release function";
}

INSTANTIATE_TEST_SUITE_P(PlatformHandles, HandleKind, testing::ValuesIn(g2g::test::kHandleKinds),
                         [](const testing::TestParamInfo<K> &info) {
                             return std::string(g2g::name(info.param));
                         });

// What each kind refuses, word for word; nothing refused is ever released.
TEST(HandleRefusals, EachKindSaysWhatIsMissing)
{
    int object = 0;
    int released = 0;
    const auto keep = [&] {
        return handles::keep_alive(&released, [](void *r) { ++*static_cast<int *>(r); });
    };
    const auto refusal = [](const g2g::Result<MemoryRef> &made) {
        return made ? std::string("(made)") : made.error().message();
    };
    EXPECT_EQ(refusal(handles::wrap(G2gD3D11Texture{nullptr, 0, 64, 48, 103, &object}, keep(), 64)),
              "a D3D11Texture needs its ID3D11Texture2D: the texture is NULL");
    EXPECT_EQ(refusal(handles::wrap(G2gD3D11Texture{&object, 0, 64, 48, 103, nullptr}, keep(), 64)),
              "a D3D11Texture needs the ID3D11Device its texture lives on: the device is NULL");
    EXPECT_EQ(refusal(handles::wrap(G2gD3D11Texture{&object, 0, 0, 48, 103, &object}, keep(), 64)),
              "a D3D11Texture of 0x48 holds no frame");
    EXPECT_EQ(refusal(handles::wrap(G2gCvPixelBuffer{nullptr, 64, 48, 0, 0}, keep(), 64)),
              "a CvPixelBuffer needs its CVPixelBufferRef: the pixel buffer is NULL");
    EXPECT_EQ(refusal(handles::wrap(G2gWebGPUBuffer{0, 64}, keep(), 64)),
              "a WebGPUBuffer needs its GPUBuffer's id: the buffer id is 0");
    EXPECT_EQ(refusal(handles::wrap(G2gWebGPUBuffer{7, 0}, keep(), 64)),
              "a WebGPUBuffer of 0 bytes holds no frame");
    EXPECT_EQ(refusal(handles::wrap(G2gWebGPUExternalTexture{nullptr, 64, 48}, keep(), 64)),
              "a WebGPUExternalTexture needs its VideoFrame: the video frame is NULL");
    EXPECT_EQ(refusal(handles::wrap(G2gWgpuTexture{nullptr, 64, 48, 18}, keep(), 64)),
              "a WgpuTexture needs its wgpu texture: the texture is NULL");
    EXPECT_EQ(refusal(handles::wrap(G2gWgpuTexture{&object, 64, 0, 18}, keep(), 64)),
              "a WgpuTexture of 64x0 holds no frame");
    EXPECT_EQ(refusal(handles::wrap(G2gWgpuBuffer{nullptr, 16}, keep(), 64)),
              "a WgpuBuffer needs its wgpu buffer: the buffer is NULL");
    EXPECT_EQ(refusal(handles::wrap(G2gWgpuBuffer{&object, 65}, keep(), 64)),
              "a WgpuBuffer's valid length (65 bytes) exceeds its frame's 64 bytes");
    EXPECT_EQ(refusal(handles::wrap(G2gWgpuBuffer{&object, 16}, nullptr, 64)),
              "a WgpuBuffer frame needs a keep-alive that owns its platform object: the keep-alive is NULL");
    // The refused payloads' keep-alives were made and dropped by the caller: each released once
    // there, none by g2g on top (11 keep-alives, 11 releases).
    EXPECT_EQ(released, 11);
}

TEST(HandleDescriptions, SayWhatTheFrameIs)
{
    int texture = 0, device = 0;
    MemoryRef d3d11 = *handles::wrap(G2gD3D11Texture{&texture, 3, 1920, 1080, 103, &device},
                                     std::make_shared<handles::KeepAlive>(), 64);
    EXPECT_EQ(handles::describe(d3d11.get()).rfind("D3D11Texture 0x", 0), 0u)
        << handles::describe(d3d11.get());
    EXPECT_NE(handles::describe(d3d11.get()).find(" subresource 3, 1920x1080, DXGI format 103, device 0x"),
              std::string::npos)
        << handles::describe(d3d11.get());
    MemoryRef pixels = *handles::wrap(G2gCvPixelBuffer{&texture, 64, 48, 0x34323076, 1},
                                      std::make_shared<handles::KeepAlive>(), 64);
    EXPECT_NE(handles::describe(pixels.get()).find(", 64x48, pixel format '420v', IOSurface-backed"),
              std::string::npos)
        << handles::describe(pixels.get());
    MemoryRef buffer =
        *handles::wrap(G2gWebGPUBuffer{42, 4096}, std::make_shared<handles::KeepAlive>(), 4096);
    EXPECT_EQ(handles::describe(buffer.get()), "WebGPUBuffer id 42, 4096 bytes");
    MemoryRef system = MemoryRef::adopt(gst_allocator_alloc(nullptr, 64, nullptr));
    EXPECT_EQ(handles::describe(system.get()), "");
}

} // namespace
