// SPDX-License-Identifier: LGPL-2.1-or-later
// The Vulkan side of g2gview and g2gmaterialize: they join the pipeline's Vulkan instance, device
// and queue through GstContext ("gst.vulkan.instance", "gst.vulkan.device", "gst.vulkan.queue") as
// GStreamer 1.22's Vulkan elements do, so their shaders run on the device (and the queue) the
// frames' producer uses, and they write their VulkanImage output into images of g2g's storage pool.
// vulkan-context.cpp with the vulkan feature, no-vulkan-context.cpp without it (meson picks).
//
// Nothing Vulkan is created until VulkanImage caps are negotiated (ensure): a system-memory
// pipeline through the view elements never opens a Vulkan instance. The queue is shared through
// its context too, not only the device: GStreamer 1.22's gst_vulkan_device_get_queue returns a new
// GstVulkanQueue (with its own submit lock) on every call, and two of them submitting to one
// VkQueue from two threads is a data race.
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>

// (GstVulkanInstance, without GStreamer's Vulkan headers in the elements.)
struct _GstVulkanInstance;
typedef struct _GstVulkanInstance GstVulkanInstance;

#include <array>
#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>

#include <g2g/error.h>
#include <g2g/gst-ref.h>

namespace g2g::vulkan {
class Engine;
}

namespace g2g::element {

// A GPU's identity as Vulkan (VkPhysicalDeviceIDProperties::deviceUUID) and CUDA
// (cuDeviceGetUuid) both give it.
using GpuUuid = std::array<guint8, 16>;

class VulkanContextUse {
public:
    VulkanContextUse() = default;
    ~VulkanContextUse() { release(); }
    VulkanContextUse(const VulkanContextUse &) = delete;
    VulkanContextUse &operator=(const VulkanContextUse &) = delete;

    // Makes this a provider, for an element whose Vulkan device must be opened by g2g (one that
    // shares memory with CUDA needs VK_KHR_external_memory_fd, which no GStreamer 1.22 element
    // enables, and GStreamer opens a device once): a Vulkan CONTEXT query that no peer or
    // application answers is answered by creating the instance, device and queue (what ensure
    // creates) instead of being refused, and join creates them too where `at_join` (when given)
    // says yes for the element then. The Vulkan elements around then take g2g's device, since they
    // ask their peers before creating their own. `gpu_wanted`, when it names a GPU, picks the
    // physical device of that UUID.
    void provide(std::function<std::optional<GpuUuid>(GstElement *)> gpu_wanted,
                 std::function<bool(GstElement *)> at_join = {});

    // GstElementClass::set_context: an instance, device or queue the application, the pipeline or
    // a peer (through join's and ensure's queries) hands us. Taken until ensure made the engine;
    // from then on the engine's device and queue stay until release.
    void set_context(GstElement *element, GstContext *context);
    // A CONTEXT query reaching one of the element's pads: answered with what we hold (a provider
    // creates it first when no one else has it).
    bool answer_query(GstElement *element, GstQuery *query);
    // READY->PAUSED: asks the peers, then the application (NEED_CONTEXT), for the instance, the
    // device and the queue, creating nothing (but a provider at join).
    void join(GstElement *element);
    // VulkanImage caps negotiated: the engine on the pipeline's queue. What join did not find is
    // asked for again, else created (an instance, a device, a compute queue of it), and the
    // contexts of what was created are posted for the rest of the pipeline. False, with an
    // element error, when there is no Vulkan device or its queue cannot run compute shaders.
    bool ensure(GstElement *element);
    // Per frame: true when every Vulkan image of `buffer` is of our device; otherwise an element
    // error (GST_STREAM_ERROR_FAILED: the frame, not its caps, is wrong) naming both devices.
    bool check_frame(GstElement *element, GstBuffer *buffer);
    // A configured (inactive) pool of dense VulkanImage frames laid out as `caps` (fixed video caps,
    // any memory feature: the pool's frames are VulkanImage) that our engine's shader can write,
    // keeping at least `min` buffers. Empty, with an element error, when the device cannot write
    // the format (Engine::check_writable's reason) or the pool refuses the configuration.
    Ref<GstBufferPool> storage_pool(GstElement *element, GstCaps *caps, guint min);
    // decide_allocation for VulkanImage output caps: first in `query`, downstream's pool of
    // exportable images (g2gipcsink's: propose_export_pool) where it is on our device and its images
    // can be written by our shader, so that the frames we write cross to other processes as they
    // are; else our storage pool. Downstream's other Vulkan image pools are never kept: GStreamer
    // 1.22's sets no storage usage on its images.
    bool decide_pool(GstElement *element, GstQuery *query);
    // Adds to the allocation query `query` (VulkanImage caps, a view's too) a configured pool of
    // exportable images on the engine's device: what g2gipcsink offers upstream, so that an element
    // that writes into its downstream's pool (vulkanupload 1.24 on, vulkancolorconvert, g2g's own
    // writers: decide_pool) writes frames another process imports as they are. Nothing before
    // ensure, nor where the device cannot export such images: frames are then copied into
    // exportable ones.
    void propose_export_pool(GstQuery *query);
    // For an element that hands downstream its input's memory (g2gview's views): where
    // downstream's allocation answer `downstream` offers a pool of exportable images, `query` (the
    // element's own, in its input caps) gets one of those caps on the same device.
    static void pass_export_pool(GstQuery *downstream, GstQuery *query);
    // The dense VulkanImage frame `dense` (laid out as `info`) as system memory, by the engine
    // ensure made (Engine::download: the copy recorded with a fence; mapping the frame waits).
    // With `wait`, the copy has run when it returns (see upload_races).
    Result<BufferRef> download(GstBuffer *dense, const GstVideoInfo &info, bool wait);
    // True when vulkanupload feeds `element` in its streaming thread and this GStreamer's
    // vulkanupload hands its staging buffer back before its copy has run (1.22 to 1.28 do:
    // compat::vulkanupload_races_staging), so the frame after is written into it unless something
    // in that thread waits for the GPU first (vulkandownload does, every frame). A download there
    // must wait; anywhere else it need not (docs/design-notes.md).
    static bool upload_races(GstElement *element);
    // The engine ensure made (nullptr before).
    std::shared_ptr<g2g::vulkan::Engine> engine() const;
    // Drops the engine, the queue, the device and the instance (PAUSED->READY). The engine lives
    // on in the frames it wrote until downstream drops them.
    void release();

private:
    bool holds(const Ref<GstObject> &slot) const;
    Ref<GstObject> held(const Ref<GstObject> &slot) const; // a reference, taken under the lock
    // What ensure creates when no one has it, its context posted; false with an element error.
    bool create_device(GstElement *element);
    bool create_queue(GstElement *element);
    // The queue (and its device and instance): asked for, else created. False with an element error.
    bool ensure_queue(GstElement *element);
    // The physical device create_device opens: gpu_wanted_'s GPU, else the first.
    guint device_index(GstElement *element, GstVulkanInstance *instance);

    // Provider settings (provide), set before the element starts.
    std::function<std::optional<GpuUuid>(GstElement *)> gpu_wanted_;
    bool provider_ = false;
    std::function<bool(GstElement *)> provide_at_join_;
    // A provider's creation asks the peers, whose own queries may come back here: they are not
    // answered by creating again meanwhile.
    std::atomic<bool> providing_ = false;

    // Guards the handles and the engine: set_context comes from the application's thread and
    // CONTEXT queries from the peers' threads, while the streaming thread ensures. A leaf lock:
    // never held across a call that may query a peer, post a message or set a context.
    mutable std::mutex lock_;
    Ref<GstObject> instance_;                     // GstVulkanInstance
    Ref<GstObject> device_;                       // GstVulkanDevice, of instance_
    Ref<GstObject> queue_;                        // GstVulkanQueue, of device_
    std::shared_ptr<g2g::vulkan::Engine> engine_; // on queue_
};

} // namespace g2g::element
