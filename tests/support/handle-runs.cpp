// SPDX-License-Identifier: LGPL-2.1-or-later
// Pipelines of the test handle elements (see handle-runs.h).
#include "handle-runs.h"

#include <g2g/gst-ref.h>

namespace g2g::test {
namespace {

// Every g2gtesthandlesink of `bin`, also inside nested bins.
std::vector<ElementRef> handle_sinks(GstBin *bin)
{
    std::vector<ElementRef> sinks;
    GstIterator *it = gst_bin_iterate_recurse(bin);
    GValue item = G_VALUE_INIT;
    while (gst_iterator_next(it, &item) == GST_ITERATOR_OK) {
        auto *element = GST_ELEMENT(g_value_get_object(&item));
        if (G_TYPE_CHECK_INSTANCE_TYPE(element, g2g_test_handle_sink_get_type()))
            sinks.push_back(ElementRef::borrow(element));
        g_value_reset(&item);
    }
    g_value_unset(&item);
    gst_iterator_free(it);
    return sinks;
}

} // namespace

HandleRun run_handles(const std::string &description, const PipelineInspector &at_end,
                      const PipelineInspector &at_start)
{
    register_handle_elements();
    HandleRun result;
    const PipelineInspector prepare = [&](GstBin *bin) {
        const ElementRef src = ElementRef::adopt(gst_bin_get_by_name(bin, "src"));
        if (src && G_TYPE_CHECK_INSTANCE_TYPE(src.get(), g2g_test_handle_src_get_type()))
            result.ledger = handle_ledger(src.get());
        if (at_start)
            at_start(bin);
    };
    const PipelineInspector inspect = [&](GstBin *bin) {
        for (const ElementRef &sink : handle_sinks(bin)) {
            result.seen[GST_OBJECT_NAME(sink.get())] = frames_seen(sink.get());
            result.refusals[GST_OBJECT_NAME(sink.get())] = system_refusals(sink.get());
        }
        if (at_end)
            at_end(bin);
    };
    result.run = run_pipeline(description, {}, 20 * GST_SECOND, inspect, prepare);
    return result;
}

std::string handle_source(MemoryDomainKind kind, int frames, const std::string &more)
{
    return "g2gtesthandlesrc name=src kind=" + std::string(nick(kind)) +
           " num-buffers=" + std::to_string(frames) + (more.empty() ? "" : " " + more);
}

std::string handle_sink(MemoryDomainKind kind, const std::string &name, const std::string &more)
{
    return "g2gtesthandlesink kind=" + std::string(nick(kind)) + " name=" + name +
           (more.empty() ? "" : " " + more);
}

std::string kind_case_name(const testing::TestParamInfo<MemoryDomainKind> &info)
{
    return std::string(name(info.param));
}

} // namespace g2g::test
