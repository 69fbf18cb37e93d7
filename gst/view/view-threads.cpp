// SPDX-License-Identifier: LGPL-2.1-or-later
#include "view-threads.h"

#include <g2g-internal/plugin-interface.h>

GST_DEBUG_CATEGORY_STATIC(g2g_view_threads_debug);
#define GST_CAT_DEFAULT g2g_view_threads_debug

namespace g2g::element {

void install_n_threads_property(GObjectClass *klass, guint id)
{
    if (!g2g_view_threads_debug) // both view elements install it
        GST_DEBUG_CATEGORY_INIT(g2g_view_threads_debug, "g2gthreads", 0, "g2g view elements' threads");
    const auto flags =
        static_cast<GParamFlags>(G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING);
    g_object_class_install_property(
        klass, id,
        g_param_spec_uint("n-threads", "Threads",
                          "Threads a dense frame the CPU writes is split across, as videoconvert's (bands "
                          "of rows; rotated and transposed planes in blocks): 1 the streaming thread "
                          "alone, 0 one per processor; frames under 1 MiB always take one",
                          0, WorkerPool::kMaxThreads, kDefaultThreads, flags));
}

const WorkerPool *StreamThreads::pool(GstElement *element, std::size_t frame_bytes)
{
    if (wanted_ == 1) {
        pool_.reset();
        made_for_ = 1;
        return nullptr;
    }
    // A frame the library would not split anyway (under two bands' worth) takes no pool: a stream
    // of small frames starts no thread. A pool made for larger frames is kept for the next one.
    if (detail::band_count(frame_bytes, wanted_, detail::kMinBandBytes) == 1)
        return nullptr;
    if (!pool_ || made_for_ != wanted_) {
        pool_.reset(); // joined before the next one starts
        pool_ = std::make_unique<WorkerPool>(wanted_);
        made_for_ = wanted_;
        GST_INFO_OBJECT(element, "materializing with %u threads", pool_->n_threads());
    }
    return pool_.get();
}

} // namespace g2g::element
