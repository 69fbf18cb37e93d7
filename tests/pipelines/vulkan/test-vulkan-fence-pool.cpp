// SPDX-License-Identifier: LGPL-2.1-or-later
// g2g's fence pool (lib/src/platform/vulkan/vulkan-fence-pool.h) on a device of its own (lavapipe in
// CI): fences are reset and reused, so a stream of submissions makes only a few; a fence given back
// after its pool's owner is gone is safe and takes the pool with it; a fence handed out while another
// is pending is another one; a pending fence given back is waited for before it is reused.
// Submissions here are empty (vkQueueSubmit with no batch signals its fence once the queue has run
// what came before) or held behind a host event, the gate of tests/bench/bench-vulkan.cpp.
#include <gtest/gtest.h>

#include <time.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <set>
#include <thread>
#include <vector>

#include <g2g/gst-ref.h>

#include "pipeline.h"
#include "platform/vulkan/vulkan-copy-due.h"
#include "platform/vulkan/vulkan-engine.h"
#include "platform/vulkan/vulkan-fence-pool.h"

using g2g::vulkan::Fence;
using g2g::vulkan::FencePool;

namespace {

// A device of the test's own and a queue of it.
class VulkanFencePool : public ::testing::Test {
protected:
    void SetUp() override
    {
        SKIP_WITHOUT_VULKAN();
        instance_ = g2g::Ref<GstObject>::adopt(GST_OBJECT(gst_vulkan_instance_new()));
        ASSERT_TRUE(gst_vulkan_instance_open(GST_VULKAN_INSTANCE(instance_.get()), nullptr));
        device_ = g2g::Ref<GstObject>::adopt(
            GST_OBJECT(gst_vulkan_instance_create_device(GST_VULKAN_INSTANCE(instance_.get()), nullptr)));
        ASSERT_TRUE(device_);
        queue_ = g2g::Ref<GstObject>::adopt(GST_OBJECT(g2g::vulkan::new_compute_queue(device())));
        ASSERT_TRUE(queue_);
    }

    void TearDown() override
    {
        if (device_)
            vkDeviceWaitIdle(device()->device);
    }

    GstVulkanDevice *device() const { return GST_VULKAN_DEVICE(device_.get()); }
    GstVulkanQueue *queue() const { return GST_VULKAN_QUEUE(queue_.get()); }

    // Submits nothing with `fence`: it signals once the queue has run what was submitted before.
    void submit_empty(Fence &fence)
    {
        gst_vulkan_queue_submit_lock(queue());
        const VkResult r = vkQueueSubmit(queue()->queue, 0, nullptr, fence.handle());
        gst_vulkan_queue_submit_unlock(queue());
        ASSERT_EQ(r, VK_SUCCESS);
        fence.mark_submitted();
    }

    g2g::Ref<GstObject> instance_, device_, queue_;
};

// A batch that waits on the host: the queue runs nothing submitted after it until open().
class Gate {
public:
    Gate(GstVulkanDevice *device, GstVulkanQueue *queue) : device_(device), queue_(queue)
    {
        VkEventCreateInfo info{};
        info.sType = VK_STRUCTURE_TYPE_EVENT_CREATE_INFO;
        if (vkCreateEvent(device_->device, &info, nullptr, &event_) != VK_SUCCESS)
            return;
        pool_ = gst_vulkan_queue_create_command_pool(queue_, nullptr);
        if (pool_)
            buffer_ = gst_vulkan_command_pool_create(pool_, nullptr);
    }
    ~Gate()
    {
        open();
        if (buffer_) {
            vkQueueWaitIdle(queue_->queue);
            gst_vulkan_command_buffer_unref(buffer_);
        }
        if (pool_)
            gst_object_unref(pool_);
        if (event_ != VK_NULL_HANDLE)
            vkDestroyEvent(device_->device, event_, nullptr);
    }

    // Submits the waiting batch with `fence`; false if it could not.
    bool submit(Fence &fence)
    {
        if (!buffer_)
            return false;
        VkCommandBufferBeginInfo begin{};
        begin.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
        gst_vulkan_command_buffer_lock(buffer_);
        vkBeginCommandBuffer(buffer_->cmd, &begin);
        vkCmdWaitEvents(buffer_->cmd, 1, &event_, VK_PIPELINE_STAGE_HOST_BIT,
                        VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0, nullptr, 0, nullptr, 0, nullptr);
        const bool ended = vkEndCommandBuffer(buffer_->cmd) == VK_SUCCESS;
        gst_vulkan_command_buffer_unlock(buffer_);
        if (!ended)
            return false;
        VkSubmitInfo submit{};
        submit.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO;
        submit.commandBufferCount = 1;
        submit.pCommandBuffers = &buffer_->cmd;
        gst_vulkan_queue_submit_lock(queue_);
        const VkResult r = vkQueueSubmit(queue_->queue, 1, &submit, fence.handle());
        gst_vulkan_queue_submit_unlock(queue_);
        if (r != VK_SUCCESS)
            return false;
        fence.mark_submitted();
        return true;
    }

    void open()
    {
        if (event_ != VK_NULL_HANDLE)
            vkSetEvent(device_->device, event_);
    }

private:
    GstVulkanDevice *device_;
    GstVulkanQueue *queue_;
    VkEvent event_ = VK_NULL_HANDLE;
    GstVulkanCommandPool *pool_ = nullptr;
    GstVulkanCommandBuffer *buffer_ = nullptr;
};

TEST_F(VulkanFencePool, ManySubmissionsReuseAFewFences)
{
    std::shared_ptr<FencePool> pool = FencePool::create(device());
    // One at a time, each waited for and dropped: one fence for all.
    for (int i = 0; i < 200; ++i) {
        g2g::Result<Fence> fence = pool->acquire();
        ASSERT_TRUE(fence) << fence.error().message();
        submit_empty(*fence);
        ASSERT_EQ(fence->wait(), VK_SUCCESS);
    }
    EXPECT_EQ(pool->created(), 1u);
    // Three in flight at once, the oldest dropped as each new one is submitted: three or four.
    std::vector<Fence> ring;
    for (int i = 0; i < 200; ++i) {
        g2g::Result<Fence> fence = pool->acquire();
        ASSERT_TRUE(fence) << fence.error().message();
        submit_empty(*fence);
        ring.push_back(std::move(*fence));
        if (ring.size() > 3)
            ring.erase(ring.begin()); // waited for (it signalled or soon will) as it goes back
    }
    ring.clear();
    EXPECT_LE(pool->created(), 4u);
    EXPECT_EQ(pool->available(), pool->created());
}

TEST_F(VulkanFencePool, AReusedFenceIsResetFirst)
{
    std::shared_ptr<FencePool> pool = FencePool::create(device());
    VkFence first = VK_NULL_HANDLE;
    {
        g2g::Result<Fence> fence = pool->acquire();
        ASSERT_TRUE(fence);
        EXPECT_FALSE(fence->signaled());
        submit_empty(*fence);
        ASSERT_EQ(fence->wait(), VK_SUCCESS);
        EXPECT_TRUE(fence->signaled());
        EXPECT_EQ(vkGetFenceStatus(device()->device, fence->handle()), VK_SUCCESS);
        first = fence->handle();
    }
    g2g::Result<Fence> again = pool->acquire();
    ASSERT_TRUE(again);
    EXPECT_EQ(again->handle(), first) << "the fence given back is the one handed out next";
    EXPECT_EQ(vkGetFenceStatus(device()->device, again->handle()), VK_NOT_READY) << "reset before reuse";
    EXPECT_FALSE(again->signaled());
    // Reused, it signals again for its new submission.
    submit_empty(*again);
    ASSERT_EQ(again->wait(), VK_SUCCESS);
    EXPECT_TRUE(again->signaled());
}

TEST_F(VulkanFencePool, AFenceHandedOutWhileAnotherIsPendingIsAnotherOne)
{
    std::shared_ptr<FencePool> pool = FencePool::create(device());
    Gate gate(device(), queue());
    g2g::Result<Fence> pending = pool->acquire();
    ASSERT_TRUE(pending);
    ASSERT_TRUE(gate.submit(*pending)) << "cannot hold the queue behind a host event here";
    EXPECT_FALSE(pending->signaled());
    std::set<VkFence> handed{pending->handle()};
    std::vector<Fence> more;
    for (int i = 0; i < 3; ++i) {
        g2g::Result<Fence> fence = pool->acquire();
        ASSERT_TRUE(fence);
        EXPECT_TRUE(handed.insert(fence->handle()).second) << "fence " << i << " was handed out already";
        more.push_back(std::move(*fence));
    }
    // Those three go back unsubmitted, the pending one is still out: the next is one of the three.
    more.clear();
    g2g::Result<Fence> next = pool->acquire();
    ASSERT_TRUE(next);
    EXPECT_NE(next->handle(), pending->handle());
    EXPECT_EQ(pool->created(), 4u);
    next->reset();

    // A pending fence given back is waited for before it is reused: the gate opens a little later,
    // from another thread, while this one gives the fence back.
    const VkFence held = pending->handle();
    std::atomic<bool> opened{false};
    std::thread opener([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        opened = true;
        gate.open();
    });
    pending->reset();
    EXPECT_TRUE(opened) << "the pending fence went back before its submission ran";
    opener.join();
    // Every fence is back and reset; the pool hands them out again, none signalled.
    std::vector<Fence> all;
    for (std::size_t i = 0; i < pool->created(); ++i) {
        g2g::Result<Fence> fence = pool->acquire();
        ASSERT_TRUE(fence);
        EXPECT_EQ(vkGetFenceStatus(device()->device, fence->handle()), VK_NOT_READY);
        all.push_back(std::move(*fence));
    }
    EXPECT_EQ(pool->created(), 4u);
    bool found = false;
    for (const Fence &fence : all)
        found = found || fence.handle() == held;
    EXPECT_TRUE(found);
}

TEST_F(VulkanFencePool, AFenceGivenBackAfterItsPoolsOwnerIsGoneTakesThePoolWithIt)
{
    std::shared_ptr<FencePool> pool = FencePool::create(device());
    const std::weak_ptr<FencePool> watched = pool;
    g2g::Result<Fence> fence = pool->acquire();
    ASSERT_TRUE(fence);
    submit_empty(*fence);
    Fence copy = *fence; // a second holder, as a frame and the engine's submissions are
    pool.reset();        // the owner (an engine) is gone
    EXPECT_FALSE(watched.expired()) << "the fences out hold their pool";
    ASSERT_EQ(copy.wait(), VK_SUCCESS);
    EXPECT_TRUE(copy.signaled());
    fence->reset();
    EXPECT_FALSE(watched.expired());
    copy.reset();
    EXPECT_TRUE(watched.expired()) << "the last fence back takes its pool (and its device reference)";
}

// Frames are dropped in whatever thread holds them last: fences go back from several threads at once.
TEST_F(VulkanFencePool, FencesGoBackFromManyThreads)
{
    std::shared_ptr<FencePool> pool = FencePool::create(device());
    std::vector<std::thread> threads;
    std::atomic<int> failures{0};
    for (int t = 0; t < 4; ++t) {
        threads.emplace_back([&] {
            for (int i = 0; i < 100; ++i) {
                g2g::Result<Fence> fence = pool->acquire();
                if (!fence) {
                    ++failures;
                    return;
                }
                gst_vulkan_queue_submit_lock(queue());
                const VkResult r = vkQueueSubmit(queue()->queue, 0, nullptr, fence->handle());
                gst_vulkan_queue_submit_unlock(queue());
                if (r != VK_SUCCESS) {
                    ++failures;
                    return;
                }
                fence->mark_submitted();
                Fence other = *fence;
                std::thread([held = std::move(other)]() mutable { held.reset(); }).join();
            }
        });
    }
    for (std::thread &thread : threads)
        thread.join();
    EXPECT_EQ(failures.load(), 0);
    EXPECT_LE(pool->created(), 8u);
    EXPECT_EQ(pool->available(), pool->created());
}

// A copy of a chosen length: a batch held behind a host event that a thread sets `ms` after the
// submission. What a reader's wait_for_copy did: how long past the event it returned, and the CPU
// time it spent.
struct Waited {
    bool ok = false;
    double late_ms = 0, cpu_ms = 0;
};

double thread_cpu_ms()
{
    timespec cpu{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu);
    return double(cpu.tv_sec) * 1e3 + double(cpu.tv_nsec) * 1e-6;
}

Waited wait_for_a_copy(GstVulkanDevice *device, GstVulkanQueue *queue, FencePool &pool,
                       g2g::vulkan::CopyDue &due, int ms)
{
    Waited waited;
    Gate gate(device, queue);
    g2g::Result<Fence> fence = pool.acquire();
    if (!fence || !gate.submit(*fence))
        return waited;
    const std::uint64_t submitted = g2g::vulkan::monotonic_ns();
    std::atomic<std::uint64_t> opened{0};
    std::thread opener([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(ms));
        opened = g2g::vulkan::monotonic_ns();
        gate.open();
    });
    const double cpu = thread_cpu_ms();
    waited.ok = static_cast<bool>(g2g::vulkan::wait_for_copy(*fence, due, 4096, submitted));
    const std::uint64_t returned = g2g::vulkan::monotonic_ns();
    waited.cpu_ms = thread_cpu_ms() - cpu;
    opener.join();
    waited.ok = waited.ok && fence->signaled() && returned >= opened.load();
    waited.late_ms = double(returned - opened.load()) * 1e-6;
    return waited;
}

// A reader waits for a download's copy (vulkan-copy-due.h) asleep until shortly before it is due,
// from the last copies' lengths, then polling: it returns once the copy ran, never before, soon
// after, having spent little of the copy's time on its core. When copies become shorter than their
// due (they end while the reader sleeps), the reader sees each within a slice of its sleep, and the
// dues follow them down within a few copies, never up.
TEST_F(VulkanFencePool, AReaderSleepsUntilACopyIsDueSoonThenPolls)
{
    std::shared_ptr<FencePool> pool = FencePool::create(device());
    g2g::vulkan::CopyDue due;
    for (int i = 0; i < 8; ++i) {
        const Waited waited = wait_for_a_copy(device(), queue(), *pool, due, 20);
        ASSERT_TRUE(waited.ok) << "copy " << i << ": the wait failed or returned before the copy ran";
        EXPECT_LT(waited.late_ms, 10.0) << "copy " << i;
        if (i >= 3) {
            EXPECT_LT(waited.cpu_ms, 10.0) << "copy " << i << ": the reader slept through most of its 20 ms";
        }
    }
    // Once three copies were seen, the reader no longer sleeps in the driver's wait: it sees each
    // copy done while polling, or at the end of a slice of its sleep where the copy ended sooner.
    const g2g::vulkan::CopyDue::Waits after_long = due.waits();
    EXPECT_LE(after_long.slept, 4u) << after_long.polled << " polled, " << after_long.woken << " woken";
    EXPECT_GE(after_long.polled + after_long.woken, 4u);
    ASSERT_TRUE(due.due_ns(4096));
    EXPECT_GE(*due.due_ns(4096), 19'000'000u);
    EXPECT_LT(*due.due_ns(4096), 30'000'000u);

    // Copies of 4 ms: they end while the reader sleeps toward a 20 ms due; each wait still returns
    // right after its copy, and the dues come down.
    for (int i = 0; i < 8; ++i) {
        const Waited waited = wait_for_a_copy(device(), queue(), *pool, due, 4);
        ASSERT_TRUE(waited.ok) << "short copy " << i;
        EXPECT_LT(waited.late_ms, 5.0) << "short copy " << i << ": seen within a slice of the sleep";
    }
    EXPECT_GE(due.waits().woken, 1u) << "copies that ended during the sleep were seen at a slice's end";
    ASSERT_TRUE(due.due_ns(4096));
    EXPECT_LT(*due.due_ns(4096), 10'000'000u) << "the dues followed the shorter copies";
    for (int i = 0; i < 6; ++i)
        ASSERT_TRUE(wait_for_a_copy(device(), queue(), *pool, due, 4).ok);
    EXPECT_LT(*due.due_ns(4096), 8'000'000u);
}

} // namespace
