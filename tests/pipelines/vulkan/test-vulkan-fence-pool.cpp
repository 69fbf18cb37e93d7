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
// submission. What a reader's wait_for_copy (for a copy of `bytes`) did: how long after the fence
// signalled it returned (a third thread watches the fence: lavapipe signals it up to milliseconds
// after the event), and the CPU time it spent.
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
                       g2g::vulkan::CopyDue &due, std::size_t bytes, int ms)
{
    Waited waited;
    Gate gate(device, queue);
    g2g::Result<Fence> fence = pool.acquire();
    if (!fence || !gate.submit(*fence))
        return waited;
    const std::uint64_t submitted = g2g::vulkan::monotonic_ns();
    std::atomic<std::uint64_t> signalled{0};
    std::thread opener([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(ms));
        gate.open();
        while (!fence->signaled())
            std::this_thread::yield();
        signalled = g2g::vulkan::monotonic_ns();
    });
    const double cpu = thread_cpu_ms();
    waited.ok = static_cast<bool>(g2g::vulkan::wait_for_copy(*fence, due, bytes, submitted));
    const std::uint64_t returned = g2g::vulkan::monotonic_ns();
    waited.cpu_ms = thread_cpu_ms() - cpu;
    opener.join();
    // Returned before the watcher saw the fence signalled is fine only by the watcher's own delay.
    waited.ok = waited.ok && fence->signaled();
    waited.late_ms = (double(returned) - double(signalled.load())) * 1e-6;
    return waited;
}

// A reader waits for a download's copy (vulkan-copy-due.h) asleep until shortly before it is due,
// in slices, then polling: whatever the due says, it returns once the copy ran, never before, soon
// after, having slept through most of it. With no history it sleeps in the driver's wait; a copy
// that ends long before its due is seen within a slice of the sleep, and the due follows it down;
// a copy held up past its due is waited for asleep in the driver's wait after a short poll. (The
// poll that sees a copy end near its due is timed by the GPU's copies: bench-vulkan 3c counts it.)
TEST_F(VulkanFencePool, AReaderSleepsUntilACopyIsDueSoonThenPolls)
{
    std::shared_ptr<FencePool> pool = FencePool::create(device());
    g2g::vulkan::CopyDue due;
    auto expect_waited = [](const Waited &waited, const char *what, int i) {
        EXPECT_TRUE(waited.ok) << what << " " << i << ": the wait failed or returned before the copy ran";
        EXPECT_LT(waited.late_ms, 3.0)
            << what << " " << i << ": returned that long after the fence signalled";
        EXPECT_LT(waited.cpu_ms, 10.0) << what << " " << i << ": the reader slept through most of it";
    };

    expect_waited(wait_for_a_copy(device(), queue(), *pool, due, 4096, 10), "the first copy", 0);
    EXPECT_EQ(due.waits().slept, 1u) << "no history: the driver's wait";

    // Copies of 4096 bytes known to take 40 ms; these take 30: each ends while the reader sleeps.
    for (int i = 0; i < 9; ++i)
        due.observe(4096, 40'000'000);
    for (int i = 0; i < 6; ++i)
        expect_waited(wait_for_a_copy(device(), queue(), *pool, due, 4096, 30), "a copy shorter than due", i);
    EXPECT_GE(due.waits().woken, 5u) << "seen at the end of a slice of the sleep";
    ASSERT_TRUE(due.due_ns(4096));
    EXPECT_LT(*due.due_ns(4096), 36'000'000u) << "the due followed the shorter copies down";

    // Copies of 8192 bytes known to take 5 ms; these take 30 (held up): after a short poll past
    // the due, the reader sleeps in the driver's wait.
    for (int i = 0; i < 9; ++i)
        due.observe(8192, 5'000'000);
    const std::uint64_t slept = due.waits().slept;
    for (int i = 0; i < 3; ++i)
        expect_waited(wait_for_a_copy(device(), queue(), *pool, due, 8192, 30), "a copy held up", i);
    EXPECT_EQ(due.waits().slept - slept, 3u);
}

} // namespace
