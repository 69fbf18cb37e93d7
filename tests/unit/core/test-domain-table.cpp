// SPDX-License-Identifier: LGPL-2.1-or-later
// Each row of the domain table (lib/src/core/domain-table.cpp) against the behaviour that reads
// it: classification by memory type and by caps features, names, host reads and the errors that
// refuse them, make_shareable, the converters, DomainSet's preference.
#include <g2g/classify.h>
#include <g2g/converters.h>
#include <g2g/domain-set.h>
#include <g2g/g2g.h>
#include <g2g/memory-domain.h>
#include <g2g/platform-handles.h>
#include <g2g/tensor-view-meta.h>

#include <gtest/gtest.h>

#include "buffers.h"
#include "handle-frames.h"

#include <algorithm>
#include <string>

#include "core/caps-domain.h"
#include "core/domain-table.h"

namespace {

using g2g::detail::DomainInfo;
using g2g::detail::HostRead;
using K = g2g::MemoryDomainKind;

// A one-memory frame of type `type` (what a row's memory_types say GStreamer's or g2g's allocators
// register: literals, so `type.data()` is terminated and lives on), mappable so host rows can be
// read, flagged as a pool would set it.
g2g::BufferRef named_frame(std::string_view type, GstMemoryFlags flags = static_cast<GstMemoryFlags>(0))
{
    guint8 bytes[64] = {42};
    g2g::BufferRef buffer = g2g::BufferRef::adopt(gst_buffer_new());
    gst_buffer_append_memory(buffer.get(),
                             g2g::test::mapped_memory(bytes, sizeof bytes, type.data(), flags).release());
    return buffer;
}

// A frame of `row`'s kind: memory of its first type, or (a view row) the kind it views with a
// tensor view on it.
g2g::BufferRef frame_of(const DomainInfo &row, GstMemoryFlags flags = static_cast<GstMemoryFlags>(0))
{
    if (!row.views)
        return named_frame(row.memory_types[0], flags);
    const DomainInfo &viewed = g2g::detail::domain_info(*row.views);
    g2g::BufferRef buffer = named_frame(viewed.memory_types[0], flags);
    GstVideoInfo info;
    gst_video_info_set_format(&info, GST_VIDEO_FORMAT_GRAY8, 8, 8);
    g2g::Result<g2g::FrameView> view = g2g::FrameView::of_frame(buffer.get(), info);
    EXPECT_TRUE(view.ok());
    g2g::attach_tensor_view(buffer.get(), *view);
    return buffer;
}

class EveryRow : public testing::TestWithParam<K> {
protected:
    const DomainInfo &row() const { return g2g::detail::domain_info(GetParam()); }
};

std::string kind_name(const testing::TestParamInfo<K> &info)
{
    return std::string(g2g::name(info.param));
}

} // namespace

INSTANTIATE_TEST_SUITE_P(DomainTable, EveryRow, testing::ValuesIn(g2g::kAllMemoryDomainKinds), kind_name);

TEST_P(EveryRow, SitsAtItsKindsIndexWithItsNames)
{
    EXPECT_EQ(row().kind, GetParam());
    EXPECT_EQ(g2g::name(GetParam()), row().name);
    EXPECT_EQ(g2g::kind_from_name(row().name), GetParam());
    EXPECT_EQ(g2g::kind_from_name(row().nick), GetParam());
    EXPECT_STREQ(g2g_memory_domain_kind_name(static_cast<G2gMemoryDomainKind>(GetParam())),
                 row().name.data());
    EXPECT_STREQ(g2g_memory_domain_kind_caps_feature(static_cast<G2gMemoryDomainKind>(GetParam())),
                 row().caps_feature.data());
}

TEST_P(EveryRow, ItsMemoryTypesClassifyAsItsKind)
{
    // A view row has no memory of its own: the bytes are its viewed kind's.
    EXPECT_EQ(row().memory_types.empty(), row().views.has_value());
    for (std::string_view type : row().memory_types) {
        g2g::BufferRef frame = named_frame(type);
        g2g::Result<K> kind = g2g::classify_memory(gst_buffer_peek_memory(frame.get(), 0));
        ASSERT_TRUE(kind.ok()) << type << ": " << kind.error().message();
        EXPECT_EQ(*kind, GetParam()) << type;
    }
    g2g::Result<K> framed = g2g::classify_buffer(frame_of(row()).get());
    ASSERT_TRUE(framed.ok()) << framed.error().message();
    EXPECT_EQ(*framed, GetParam());
}

TEST_P(EveryRow, ItsCapsFeaturesSelectItsKind)
{
    const std::string text(row().caps_feature);
    GstCapsFeatures *features = gst_caps_features_from_string(text.c_str());
    ASSERT_NE(features, nullptr) << text;
    EXPECT_EQ(g2g::detail::domain_of(features), GetParam()) << text;
    gst_caps_features_free(features);
    // The memory part alone selects the kind, or the kind it views.
    const std::string memory(row().memory_caps_feature);
    GstCapsFeatures *memory_only = gst_caps_features_from_string(memory.c_str());
    EXPECT_EQ(g2g::detail::domain_of(memory_only), row().views.value_or(GetParam())) << memory;
    gst_caps_features_free(memory_only);
}

TEST_P(EveryRow, HostReadsAsTheRowSays)
{
    const HostRead read = row().host_read;
    EXPECT_EQ(g2g::is_host_domain(GetParam()),
              read == HostRead::InPlace || read == HostRead::Materialized || read == HostRead::WhenMappable);
    g2g::Result<g2g::MemoryDomain> domain = g2g::MemoryDomain::adopt(frame_of(row()).release());
    ASSERT_TRUE(domain.ok());
    g2g::Result<g2g::SystemBytes> bytes = domain->require_system_bytes("reader");
    switch (read) {
    case HostRead::InPlace:
    case HostRead::WhenMappable: // this memory maps
        ASSERT_TRUE(bytes.ok()) << bytes.error().message();
        EXPECT_TRUE(bytes->borrowed());
        EXPECT_EQ(bytes->data()[0], 42);
        break;
    case HostRead::Materialized:
        ASSERT_TRUE(bytes.ok()) << bytes.error().message();
        EXPECT_FALSE(bytes->borrowed());
        EXPECT_EQ(bytes->data()[0], 42);
        break;
    case HostRead::Download:
    case HostRead::Never: {
        ASSERT_FALSE(bytes.ok());
        const std::string &message = bytes.error().message();
        EXPECT_NE(
            message.find("reader reads system memory but received a " + std::string(row().name) + " frame"),
            std::string::npos)
            << message;
        // The fix the row names, or the plain word that there is none.
        const std::string fix = row().to_system.empty() ? "no GStreamer element converts"
                                                        : "insert " + std::string(row().to_system);
        EXPECT_NE(message.find(fix), std::string::npos) << message;
        EXPECT_EQ(read == HostRead::Download, !row().to_system.empty());
        break;
    }
    }
}

TEST_P(EveryRow, MakeShareableRewrapsOnlyWhereTheRowKnowsHow)
{
    g2g::Result<g2g::MemoryDomain> domain =
        g2g::MemoryDomain::adopt(frame_of(row(), GST_MEMORY_FLAG_NO_SHARE).release());
    ASSERT_TRUE(domain.ok());
    ASSERT_FALSE(domain->is_shareable());
    domain->make_shareable();
    // DmaBuf's way needs real GstDmaBufMemory (test-share covers it): memory that is only named
    // "dmabuf" stays as it is, like device memory.
    const bool rewraps = row().make_shareable && row().kind != K::DmaBuf;
    EXPECT_EQ(domain->is_shareable(), rewraps);
    EXPECT_EQ(domain->kind(), GetParam());
}

TEST_P(EveryRow, ConvertersAreTheRowsElements)
{
    // System is where the converters start and end: nothing converts it to itself.
    if (GetParam() == K::System) {
        EXPECT_TRUE(row().to_system.empty() && row().from_system.empty());
        EXPECT_EQ(g2g::converter_between(K::System, K::System), "");
        return;
    }
    EXPECT_EQ(g2g::converter_between(GetParam(), K::System), row().to_system);
    EXPECT_EQ(g2g::converter_between(K::System, GetParam()), row().from_system);
}

TEST_P(EveryRow, PreferenceRanksItAmongTheOthers)
{
    const std::vector<K> order = g2g::DomainSet::all().by_preference();
    const auto position = std::find(order.begin(), order.end(), GetParam()) - order.begin();
    EXPECT_EQ(static_cast<unsigned>(position), row().preference);
    for (K other : g2g::kAllMemoryDomainKinds) {
        if (other == GetParam())
            continue;
        const K better = row().preference < g2g::detail::domain_info(other).preference ? GetParam() : other;
        EXPECT_EQ(g2g::DomainSet({GetParam(), other}).preferred(), better);
    }
}

TEST(DomainTable, HandleMemoryRowsAreThePlatformHandleKinds)
{
    for (const DomainInfo &row : g2g::detail::domain_table()) {
        EXPECT_EQ(g2g::handles::is_handle_kind(row.kind), row.handle_memory) << row.name;
        // g2gview hands their frames on as views alone (tests/pipelines/handles/test-handle-view.cpp).
        EXPECT_EQ(row.handle_views != g2g::detail::HandleViews::None, row.handle_memory) << row.name;
        g2g::test::StandIn object;
        g2g::MemoryRef memory =
            g2g::test::handle_memory(row.kind, object, g2g::test::counting_keep_alive(object), 16);
        EXPECT_EQ(static_cast<bool>(memory), row.handle_memory) << row.name;
        if (memory) {
            EXPECT_TRUE(gst_memory_is_type(memory.get(), row.memory_types[0].data())) << row.name;
            EXPECT_EQ(G_OBJECT_TYPE_NAME(memory->allocator), "G2g" + std::string(row.name) + "Allocator");
        }
    }
}
