// SPDX-License-Identifier: LGPL-2.1-or-later
#include "vulkan-submissions.h"

#include <utility>

namespace g2g::vulkan {

namespace {

// Spare lists kept for reuse: about the submissions in flight in a steady stream.
constexpr std::size_t kSpareLists = 16;

} // namespace

Submissions::Submissions(GstVulkanDevice *device) : fences_(FencePool::create(device))
{
}

Submissions::~Submissions()
{
    for (Submission &submission : in_flight_) {
        submission.fence.wait();
        for (GstMiniObject *object : submission.kept)
            gst_mini_object_unref(object);
    }
}

void Submissions::add(Fence fence, std::vector<GstMiniObject *> kept)
{
    in_flight_.push_back(Submission{std::move(fence), std::move(kept)});
}

void Submissions::collect()
{
    // A queue's fences signal in submission order (the spec's signal operation order), so the
    // first one not signalled ends what has run; the rest are asked again next time.
    while (!in_flight_.empty() && in_flight_.front().fence.signaled()) {
        Submission &done = in_flight_.front();
        for (GstMiniObject *object : done.kept)
            gst_mini_object_unref(object);
        done.kept.clear();
        if (spare_lists_.size() < kSpareLists)
            spare_lists_.push_back(std::move(done.kept));
        in_flight_.pop_front(); // the fence goes back to its pool unless a frame still holds it
    }
}

std::vector<Fence> Submissions::pending() const
{
    std::vector<Fence> fences;
    fences.reserve(in_flight_.size());
    for (const Submission &submission : in_flight_)
        fences.push_back(submission.fence);
    return fences;
}

std::vector<GstMiniObject *> Submissions::take_list()
{
    if (spare_lists_.empty())
        return {};
    std::vector<GstMiniObject *> list = std::move(spare_lists_.back());
    spare_lists_.pop_back();
    return list;
}

} // namespace g2g::vulkan
