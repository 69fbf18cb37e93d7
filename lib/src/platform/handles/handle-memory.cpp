// SPDX-License-Identifier: LGPL-2.1-or-later
// The GstMemory and GstAllocator of each platform-handle kind (g2g/platform-handles.h). The six
// share one implementation; each has its own allocator GType ("G2gD3D11TextureAllocator") and
// memory type (the domain table's, "G2gD3D11Texture"), so gst_memory_is_type, classification and
// a consumer's type check see six kinds, not one opaque one.
#include <g2g/platform-handles.h>

#include <array>
#include <string>

#include "core/domain-table.h"
#include "handle-rules.h"
#include "release-function.h"

namespace g2g::handles {
namespace {

using detail::Payload;

struct HandleMemory {
    GstMemory parent;
    Payload payload;
    // Every share holds it too (and its parent): the platform object goes with the last one.
    std::shared_ptr<KeepAlive> keep_alive;
};

struct HandleAllocator {
    GstAllocator parent;
};
struct HandleAllocatorClass {
    GstAllocatorClass parent_class;
    MemoryDomainKind kind;
};

HandleMemory *new_memory(GstAllocator *allocator, GstMemory *parent, gsize maxsize, gsize offset, gsize size,
                         const Payload &payload, std::shared_ptr<KeepAlive> keep_alive)
{
    auto *memory = new HandleMemory{{}, payload, std::move(keep_alive)};
    // Not mappable: the bytes live where the host cannot address them.
    gst_memory_init(&memory->parent, static_cast<GstMemoryFlags>(GST_MEMORY_FLAG_NOT_MAPPABLE), allocator,
                    parent, maxsize, 0, offset, size);
    return memory;
}

gpointer handle_map(GstMemory *, gsize, GstMapFlags)
{
    return nullptr;
}

void handle_unmap(GstMemory *)
{
}

GstMemory *handle_share(GstMemory *memory, gssize offset, gssize size)
{
    auto *source = reinterpret_cast<HandleMemory *>(memory);
    GstMemory *parent = memory->parent ? memory->parent : memory;
    if (size == -1)
        size = static_cast<gssize>(memory->size) - offset;
    HandleMemory *shared = new_memory(memory->allocator, parent, memory->maxsize, memory->offset + offset,
                                      static_cast<gsize>(size), source->payload, source->keep_alive);
    return &shared->parent;
}

GstMemory *handle_copy(GstMemory *, gssize, gssize)
{
    // A platform object g2g does not link cannot be duplicated here: a deep copy fails (GStreamer
    // says so in its log), a share is what sharing takes.
    return nullptr;
}

gboolean handle_is_span(GstMemory *, GstMemory *, gsize *)
{
    return FALSE;
}

GstMemory *handle_alloc(GstAllocator *, gsize, GstAllocationParams *)
{
    // Memory of these kinds wraps a producer's handle: there is none to make from nothing.
    return nullptr;
}

void handle_free(GstAllocator *, GstMemory *memory)
{
    delete reinterpret_cast<HandleMemory *>(memory);
}

void handle_allocator_class_init(gpointer klass, gpointer kind)
{
    GstAllocatorClass *allocator_class = GST_ALLOCATOR_CLASS(klass);
    allocator_class->alloc = handle_alloc;
    allocator_class->free = handle_free;
    static_cast<HandleAllocatorClass *>(klass)->kind = static_cast<MemoryDomainKind>(GPOINTER_TO_UINT(kind));
}

void handle_allocator_init(GTypeInstance *instance, gpointer klass)
{
    GstAllocator *allocator = GST_ALLOCATOR(instance);
    const MemoryDomainKind kind = static_cast<HandleAllocatorClass *>(klass)->kind;
    allocator->mem_type = g2g::detail::domain_info(kind).memory_types[0].data(); // a literal
    allocator->mem_map = handle_map;
    allocator->mem_unmap = handle_unmap;
    allocator->mem_share = handle_share;
    allocator->mem_copy = handle_copy;
    allocator->mem_is_span = handle_is_span;
    GST_OBJECT_FLAG_SET(allocator, GST_ALLOCATOR_FLAG_CUSTOM_ALLOC);
}

// The allocator GType of each handle kind, registered once: "G2g<Name>Allocator".
GType allocator_type(MemoryDomainKind kind)
{
    static const std::array<GType, kMemoryDomainKindCount> types = [] {
        std::array<GType, kMemoryDomainKindCount> registered{};
        for (const g2g::detail::DomainInfo &row : g2g::detail::domain_table()) {
            if (!row.handle_memory)
                continue;
            const GTypeInfo info{
                sizeof(HandleAllocatorClass),
                nullptr,
                nullptr,
                handle_allocator_class_init,
                nullptr,
                GUINT_TO_POINTER(static_cast<guint>(row.kind)),
                sizeof(HandleAllocator),
                0,
                handle_allocator_init,
                nullptr,
            };
            const std::string name = "G2g" + std::string(row.name) + "Allocator";
            registered[static_cast<std::size_t>(row.kind)] =
                g_type_register_static(GST_TYPE_ALLOCATOR, name.c_str(), &info, GTypeFlags{});
        }
        return registered;
    }();
    return types[static_cast<std::size_t>(kind)];
}

// One process-wide allocator per kind, registered with GStreamer under its memory type name.
GstAllocator *allocator_for(MemoryDomainKind kind)
{
    static const std::array<GstAllocator *, kMemoryDomainKindCount> allocators = [] {
        std::array<GstAllocator *, kMemoryDomainKindCount> made{};
        for (const g2g::detail::DomainInfo &row : g2g::detail::domain_table()) {
            if (!row.handle_memory)
                continue;
            auto *allocator = static_cast<GstAllocator *>(g_object_new(allocator_type(row.kind), nullptr));
            gst_object_ref_sink(allocator);
            // Lives for the process, like GStreamer's own default allocators.
            GST_OBJECT_FLAG_SET(allocator, GST_OBJECT_FLAG_MAY_BE_LEAKED);
            made[static_cast<std::size_t>(row.kind)] = allocator;
        }
        return made;
    }();
    return allocators[static_cast<std::size_t>(kind)];
}

HandleMemory *as_handle_memory(GstMemory *memory)
{
    if (!memory || !memory->allocator)
        return nullptr;
    for (const g2g::detail::DomainInfo &row : g2g::detail::domain_table()) {
        if (row.handle_memory && G_TYPE_CHECK_INSTANCE_TYPE(memory->allocator, allocator_type(row.kind)))
            return reinterpret_cast<HandleMemory *>(memory);
    }
    return nullptr;
}

Result<MemoryRef> wrap_payload(const Payload &payload, std::shared_ptr<KeepAlive> keep_alive, gsize size)
{
    const MemoryDomainKind kind = detail::domain_of(payload);
    if (std::optional<std::string> refused = detail::refusal(payload, size))
        return Error(ErrorCode::InvalidArgument, *refused);
    if (!keep_alive)
        return Error(ErrorCode::InvalidArgument,
                     "a " + std::string(name(kind)) +
                         " frame needs a keep-alive that owns its platform object: "
                         "the keep-alive is NULL");
    HandleMemory *memory =
        new_memory(allocator_for(kind), nullptr, size, 0, size, payload, std::move(keep_alive));
    return MemoryRef::adopt(&memory->parent);
}

} // namespace

std::shared_ptr<KeepAlive> keep_alive(void *user_data, G2gHandleRelease release)
{
    if (!release)
        return nullptr;
    return std::make_shared<detail::ReleaseFunction>(user_data, release);
}

bool is_handle_kind(MemoryDomainKind kind)
{
    return g2g::detail::domain_info(kind).handle_memory;
}

Result<MemoryRef> wrap(const G2gD3D11Texture &payload, std::shared_ptr<KeepAlive> keep_alive, gsize size)
{
    return wrap_payload(payload, std::move(keep_alive), size);
}

Result<MemoryRef> wrap(const G2gCvPixelBuffer &payload, std::shared_ptr<KeepAlive> keep_alive, gsize size)
{
    return wrap_payload(payload, std::move(keep_alive), size);
}

Result<MemoryRef> wrap(const G2gWebGPUBuffer &payload, std::shared_ptr<KeepAlive> keep_alive, gsize size)
{
    return wrap_payload(payload, std::move(keep_alive), size);
}

Result<MemoryRef> wrap(const G2gWebGPUExternalTexture &payload, std::shared_ptr<KeepAlive> keep_alive,
                       gsize size)
{
    return wrap_payload(payload, std::move(keep_alive), size);
}

Result<MemoryRef> wrap(const G2gWgpuTexture &payload, std::shared_ptr<KeepAlive> keep_alive, gsize size)
{
    return wrap_payload(payload, std::move(keep_alive), size);
}

Result<MemoryRef> wrap(const G2gWgpuBuffer &payload, std::shared_ptr<KeepAlive> keep_alive, gsize size)
{
    return wrap_payload(payload, std::move(keep_alive), size);
}

std::optional<MemoryDomainKind> handle_domain_of(GstMemory *memory)
{
    const HandleMemory *handle = as_handle_memory(memory);
    return handle ? std::optional(detail::domain_of(handle->payload)) : std::nullopt;
}

const void *detail::payload_of(GstMemory *memory, MemoryDomainKind kind)
{
    const HandleMemory *handle = as_handle_memory(memory);
    if (!handle || detail::domain_of(handle->payload) != kind)
        return nullptr;
    return std::visit([](const auto &payload) -> const void * { return &payload; }, handle->payload);
}

std::shared_ptr<KeepAlive> keep_alive_of(GstMemory *memory)
{
    const HandleMemory *handle = as_handle_memory(memory);
    return handle ? handle->keep_alive : nullptr;
}

std::string describe(GstMemory *memory)
{
    const HandleMemory *handle = as_handle_memory(memory);
    return handle ? detail::describe(handle->payload) : std::string();
}

} // namespace g2g::handles
