// SPDX-License-Identifier: LGPL-2.1-or-later
#include <g2g/opaque-memory.h>

#include <array>
#include <string>

#include "core/domain-table.h"

namespace g2g {
namespace {

struct OpaqueMemory {
    GstMemory parent;
    OpaqueHandle handle;
    std::shared_ptr<KeepAlive> keep_alive;
    MemoryDomainKind kind;
};

struct OpaqueAllocator {
    GstAllocator parent;
    MemoryDomainKind kind;
};
struct OpaqueAllocatorClass {
    GstAllocatorClass parent_class;
};

GType opaque_allocator_get_type();

OpaqueMemory *new_opaque_memory(GstAllocator *allocator, GstMemory *parent, gsize maxsize, gsize offset,
                                gsize size, MemoryDomainKind kind, const OpaqueHandle &handle,
                                std::shared_ptr<KeepAlive> keep_alive)
{
    auto *memory = new OpaqueMemory{{}, handle, std::move(keep_alive), kind};
    // Not mappable: the bytes live on a device the host cannot address.
    gst_memory_init(&memory->parent, static_cast<GstMemoryFlags>(GST_MEMORY_FLAG_NOT_MAPPABLE), allocator,
                    parent, maxsize, 0, offset, size);
    return memory;
}

gpointer opaque_map(GstMemory *, gsize, GstMapFlags)
{
    return nullptr;
}

void opaque_unmap(GstMemory *)
{
}

GstMemory *opaque_share(GstMemory *memory, gssize offset, gssize size)
{
    auto *source = reinterpret_cast<OpaqueMemory *>(memory);
    GstMemory *parent = memory->parent ? memory->parent : memory;
    if (size == -1)
        size = static_cast<gssize>(memory->size) - offset;
    OpaqueMemory *shared =
        new_opaque_memory(memory->allocator, parent, memory->maxsize, memory->offset + offset,
                          static_cast<gsize>(size), source->kind, source->handle, source->keep_alive);
    return &shared->parent;
}

GstMemory *opaque_copy(GstMemory *, gssize, gssize)
{
    // A device handle of a platform g2g does not link cannot be duplicated here.
    return nullptr;
}

gboolean opaque_is_span(GstMemory *, GstMemory *, gsize *)
{
    return FALSE;
}

GstMemory *opaque_alloc(GstAllocator *, gsize, GstAllocationParams *)
{
    // Memory of these kinds is made by wrapping a producer's handle, never from nothing.
    return nullptr;
}

void opaque_free(GstAllocator *, GstMemory *memory)
{
    delete reinterpret_cast<OpaqueMemory *>(memory);
}

G_DEFINE_TYPE(OpaqueAllocator, opaque_allocator, GST_TYPE_ALLOCATOR)

void opaque_allocator_class_init(OpaqueAllocatorClass *klass)
{
    GstAllocatorClass *allocator_class = GST_ALLOCATOR_CLASS(klass);
    allocator_class->alloc = opaque_alloc;
    allocator_class->free = opaque_free;
}

void opaque_allocator_init(OpaqueAllocator *self)
{
    GstAllocator *allocator = GST_ALLOCATOR(self);
    allocator->mem_map = opaque_map;
    allocator->mem_unmap = opaque_unmap;
    allocator->mem_share = opaque_share;
    allocator->mem_copy = opaque_copy;
    allocator->mem_is_span = opaque_is_span;
    GST_OBJECT_FLAG_SET(allocator, GST_ALLOCATOR_FLAG_CUSTOM_ALLOC);
}

// One process-wide allocator per kind; its mem_type, the domain table's first memory type of
// the kind ("G2gD3D11Texture"), is what classification and gst_memory_is_type() see.
GstAllocator *allocator_for(MemoryDomainKind kind)
{
    static const std::array<GstAllocator *, kMemoryDomainKindCount> allocators = [] {
        std::array<GstAllocator *, kMemoryDomainKindCount> made{};
        for (const detail::DomainInfo &row : detail::domain_table()) {
            if (!row.handle_memory)
                continue;
            const MemoryDomainKind each = row.kind;
            auto *allocator =
                static_cast<OpaqueAllocator *>(g_object_new(opaque_allocator_get_type(), nullptr));
            gst_object_ref_sink(allocator);
            allocator->kind = each;
            // Lives for the process, like GStreamer's own default allocators.
            GST_OBJECT_FLAG_SET(allocator, GST_OBJECT_FLAG_MAY_BE_LEAKED);
            GST_ALLOCATOR(allocator)->mem_type = row.memory_types[0].data(); // a literal
            made[static_cast<std::size_t>(each)] = GST_ALLOCATOR(allocator);
        }
        return made;
    }();
    return allocators[static_cast<std::size_t>(kind)];
}

OpaqueMemory *as_opaque(GstMemory *memory)
{
    if (!memory || !memory->allocator ||
        !G_TYPE_CHECK_INSTANCE_TYPE(memory->allocator, opaque_allocator_get_type()))
        return nullptr;
    return reinterpret_cast<OpaqueMemory *>(memory);
}

} // namespace

bool is_opaque_kind(MemoryDomainKind kind)
{
    return detail::domain_info(kind).handle_memory;
}

Result<MemoryRef> wrap_opaque_handle(MemoryDomainKind kind, const OpaqueHandle &handle,
                                     std::shared_ptr<KeepAlive> keep_alive, gsize size)
{
    if (!is_opaque_kind(kind))
        return Error(ErrorCode::InvalidArgument,
                     std::string(name(kind)) + " frames are not carried as opaque handles");
    if (!handle.handle || !keep_alive)
        return Error(ErrorCode::InvalidArgument,
                     "an opaque " + std::string(name(kind)) + " handle needs a handle and a keep-alive");
    OpaqueMemory *memory =
        new_opaque_memory(allocator_for(kind), nullptr, size, 0, size, kind, handle, std::move(keep_alive));
    return MemoryRef::adopt(&memory->parent);
}

const OpaqueHandle *opaque_handle(GstMemory *memory)
{
    OpaqueMemory *opaque = as_opaque(memory);
    return opaque ? &opaque->handle : nullptr;
}

std::shared_ptr<KeepAlive> opaque_keep_alive(GstMemory *memory)
{
    OpaqueMemory *opaque = as_opaque(memory);
    return opaque ? opaque->keep_alive : nullptr;
}

} // namespace g2g
