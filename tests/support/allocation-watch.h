// SPDX-License-Identifier: LGPL-2.1-or-later
// Test helpers for GstHarness tests of negotiation: caps compared as caps, and the caps of the
// ALLOCATION query a pad is asked.
#pragma once

#include <g2g/gst-ref.h>

#include <gst/check/gstharness.h>
#include <gtest/gtest.h>

#include <string>

namespace g2g::test {

inline ::testing::AssertionResult caps_are(GstCaps *got, const std::string &want)
{
    const CapsRef expected = CapsRef::adopt(gst_caps_from_string(want.c_str()));
    if (got && gst_caps_is_equal(got, expected.get()))
        return ::testing::AssertionSuccess();
    g_autofree gchar *text = got ? gst_caps_to_string(got) : nullptr;
    return ::testing::AssertionFailure() << "caps " << (text ? text : "(none)") << "\n  want " << want;
}

inline ::testing::AssertionResult current_caps_are(GstPad *pad, const std::string &want)
{
    const CapsRef caps = CapsRef::adopt(gst_pad_get_current_caps(pad));
    return caps_are(caps.get(), want);
}

// The caps of the last ALLOCATION query `pad` received.
struct AllocationWatch {
    CapsRef asked;

    void watch(GstPad *pad)
    {
        gst_pad_add_probe(
            pad, GST_PAD_PROBE_TYPE_QUERY_DOWNSTREAM,
            +[](GstPad *, GstPadProbeInfo *info, gpointer data) -> GstPadProbeReturn {
                GstQuery *query = GST_PAD_PROBE_INFO_QUERY(info);
                if (GST_QUERY_TYPE(query) == GST_QUERY_ALLOCATION) {
                    GstCaps *caps = nullptr;
                    gst_query_parse_allocation(query, &caps, nullptr);
                    static_cast<AllocationWatch *>(data)->asked = CapsRef::borrow(caps);
                }
                return GST_PAD_PROBE_OK;
            },
            this, nullptr);
    }
};

// Upstream's ALLOCATION query in `caps` into the harness's element; TRUE when answered.
inline bool ask_allocation(GstHarness *harness, const std::string &caps)
{
    const CapsRef asked = CapsRef::adopt(gst_caps_from_string(caps.c_str()));
    const Ref<GstQuery> query = Ref<GstQuery>::adopt(gst_query_new_allocation(asked.get(), TRUE));
    return gst_pad_peer_query(harness->srcpad, query.get());
}

} // namespace g2g::test
