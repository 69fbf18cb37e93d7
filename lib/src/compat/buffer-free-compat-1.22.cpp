// SPDX-License-Identifier: LGPL-2.1-or-later
// GStreamer 1.22 frees a buffer's metas before its memories (gstbuffer.c, _gst_buffer_free; 1.24
// swapped them, commit 22613b9b "gstbuffer: Unref memories before metas"). A buffer that shares
// its parent's memories then hands the parent back to its pool while those memories are still
// shared, and the pool (default_release_buffer) discards the parent as not writable: upstream
// allocates a new frame for every frame a view lived on (GstVulkanImageMemory, GstCudaMemory: a
// device allocation per frame) and frees the old one at once, images under a copy still in flight
// into them too (vulkanupload's on 1.22 is not waited for). The buffer's own dispose gives the
// memories back first.
#include "compat/buffer-free-compat.h"

namespace g2g::compat {

namespace {

gboolean release_memories_then_free(GstMiniObject *object)
{
    // Made writable again for the moment, as a pool's dispose does, emptied, then freed by the
    // plain path (a buffer without a pool has no dispose of its own to call).
    gst_mini_object_ref(object);
    gst_buffer_remove_all_memory(GST_BUFFER_CAST(object));
    object->dispose = nullptr;
    gst_mini_object_unref(object);
    return FALSE;
}

} // namespace

void free_memories_before_parent(GstBuffer *buffer)
{
    GST_MINI_OBJECT_CAST(buffer)->dispose = release_memories_then_free;
}

} // namespace g2g::compat
