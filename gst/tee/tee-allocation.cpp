// SPDX-License-Identifier: LGPL-2.1-or-later
#include "tee-allocation.h"

#include "tee-private.h"

#include <algorithm>
#include <memory>
#include <vector>

#define GST_CAT_DEFAULT g2g_tee_debug

namespace g2g::tee {
namespace {

struct StructureFree {
    void operator()(GstStructure *structure) const { gst_structure_free(structure); }
};

// A meta a peer takes, with its parameters (may be none).
struct Meta {
    GType api;
    std::unique_ptr<GstStructure, StructureFree> params;

    bool same_as(const Meta &other) const
    {
        return api == other.api &&
               (params && other.params ? gst_structure_is_equal(params.get(), other.params.get())
                                       : params == other.params);
    }
};

std::vector<Meta> metas_of(GstQuery *query)
{
    std::vector<Meta> metas;
    for (guint i = 0; i < gst_query_get_n_allocation_metas(query); ++i) {
        const GstStructure *params = nullptr;
        const GType api = gst_query_parse_nth_allocation_meta(query, i, &params);
        metas.push_back({api, std::unique_ptr<GstStructure, StructureFree>(params ? gst_structure_copy(params)
                                                                                  : nullptr)});
    }
    return metas;
}

} // namespace

gboolean aggregate_allocation(GstObject *owner, std::span<const PadRef> pads, bool allow_not_linked,
                              GstQuery *query, std::span<const CapsRef> caps_of)
{
    GstCaps *caps = nullptr;
    gboolean need_pool = FALSE;
    gst_query_parse_allocation(query, &caps, &need_pool);
    std::vector<Meta> metas;
    bool first = true;
    bool have_params = false, have_pool = false;
    GstAllocationParams params;
    gst_allocation_params_init(&params);
    guint size = 0, min_buffers = 0, answered = 0;
    for (std::size_t index = 0; index < pads.size(); ++index) {
        const PadRef &pad = pads[index];
        if (!gst_pad_is_linked(pad.get())) {
            if (!allow_not_linked)
                return FALSE;
            continue;
        }
        GstCaps *asked = index < caps_of.size() && caps_of[index] ? caps_of[index].get() : caps;
        const Ref<GstQuery> branch = Ref<GstQuery>::adopt(gst_query_new_allocation(asked, need_pool));
        if (!gst_pad_peer_query(pad.get(), branch.get()))
            return FALSE;
        ++answered;
        std::vector<Meta> branch_metas = metas_of(branch.get());
        if (first) {
            metas = std::move(branch_metas);
        } else {
            std::erase_if(metas, [&](const Meta &meta) {
                return std::none_of(branch_metas.begin(), branch_metas.end(),
                                    [&](const Meta &other) { return meta.same_as(other); });
            });
        }
        first = false;
        for (guint i = 0; i < gst_query_get_n_allocation_params(branch.get()); ++i) {
            GstAllocationParams p;
            gst_query_parse_nth_allocation_param(branch.get(), i, nullptr, &p);
            params.align = std::max(params.align, p.align);
            params.prefix = std::max(params.prefix, p.prefix);
            params.padding = std::max(params.padding, p.padding);
            have_params = true;
        }
        for (guint i = 0; i < gst_query_get_n_allocation_pools(branch.get()); ++i) {
            guint pool_size = 0, min = 0, max = 0;
            gst_query_parse_nth_allocation_pool(branch.get(), i, nullptr, &pool_size, &min, &max);
            size = std::max(size, pool_size);
            min_buffers = std::max(min_buffers, min);
            have_pool = true;
        }
    }
    if (have_params)
        gst_query_add_allocation_param(query, nullptr, &params);
    if (have_pool)
        gst_query_add_allocation_pool(query, nullptr, size, min_buffers + (answered > 1 ? 1 : 0), 0);
    for (const Meta &meta : metas)
        gst_query_add_allocation_meta(query, meta.api, meta.params.get());
    GST_DEBUG_OBJECT(owner, "aggregated allocation over %u branches: %zu metas", answered, metas.size());
    return TRUE;
}

} // namespace g2g::tee
