// SPDX-License-Identifier: LGPL-2.1-or-later
// Owning handles for GStreamer references: one ref held, released on destruction.
#pragma once

#include <gst/gst.h>

#include <utility>

namespace g2g {

template <typename T> struct RefTraits;

#define G2G_DEFINE_REF_TRAITS(Type, ref_fn, unref_fn)                                                        \
    template <> struct RefTraits<Type> {                                                                     \
        static Type *ref(Type *p) { return static_cast<Type *>(ref_fn(p)); }                                 \
        static void unref(Type *p) { unref_fn(p); }                                                          \
    }

G2G_DEFINE_REF_TRAITS(GstBuffer, gst_buffer_ref, gst_buffer_unref);
G2G_DEFINE_REF_TRAITS(GstMemory, gst_memory_ref, gst_memory_unref);
G2G_DEFINE_REF_TRAITS(GstCaps, gst_caps_ref, gst_caps_unref);
G2G_DEFINE_REF_TRAITS(GstSample, gst_sample_ref, gst_sample_unref);
G2G_DEFINE_REF_TRAITS(GstMessage, gst_message_ref, gst_message_unref);
G2G_DEFINE_REF_TRAITS(GstEvent, gst_event_ref, gst_event_unref);
G2G_DEFINE_REF_TRAITS(GstQuery, gst_query_ref, gst_query_unref);
G2G_DEFINE_REF_TRAITS(GstElement, gst_object_ref, gst_object_unref);
G2G_DEFINE_REF_TRAITS(GstPad, gst_object_ref, gst_object_unref);
G2G_DEFINE_REF_TRAITS(GstBus, gst_object_ref, gst_object_unref);
G2G_DEFINE_REF_TRAITS(GstAllocator, gst_object_ref, gst_object_unref);
G2G_DEFINE_REF_TRAITS(GstBufferPool, gst_object_ref, gst_object_unref);
G2G_DEFINE_REF_TRAITS(GstObject, gst_object_ref, gst_object_unref);
G2G_DEFINE_REF_TRAITS(GstClock, gst_object_ref, gst_object_unref);

#undef G2G_DEFINE_REF_TRAITS

template <typename T> class Ref {
public:
    Ref() = default;
    // Takes over a reference the caller owns (a (transfer full) return value).
    static Ref adopt(T *p) { return Ref(p); }
    // Takes a new reference to a borrowed pointer.
    static Ref borrow(T *p) { return Ref(p ? RefTraits<T>::ref(p) : nullptr); }

    Ref(const Ref &other) : p_(other.p_ ? RefTraits<T>::ref(other.p_) : nullptr) {}
    Ref(Ref &&other) noexcept : p_(std::exchange(other.p_, nullptr)) {}
    Ref &operator=(Ref other) noexcept
    {
        std::swap(p_, other.p_);
        return *this;
    }
    ~Ref()
    {
        if (p_)
            RefTraits<T>::unref(p_);
    }

    T *get() const { return p_; }
    T *operator->() const { return p_; }
    explicit operator bool() const { return p_ != nullptr; }
    // Gives the reference away (transfer full to a GStreamer call).
    [[nodiscard]] T *release() { return std::exchange(p_, nullptr); }
    // Replaces the held pointer with one the caller owns, e.g. after gst_buffer_make_writable().
    T **out()
    {
        reset();
        return &p_;
    }
    void reset(T *adopted = nullptr)
    {
        T *old = std::exchange(p_, adopted);
        if (old)
            RefTraits<T>::unref(old);
    }

private:
    explicit Ref(T *p) : p_(p) {}
    T *p_ = nullptr;
};

using BufferRef = Ref<GstBuffer>;
using MemoryRef = Ref<GstMemory>;
using CapsRef = Ref<GstCaps>;
using ElementRef = Ref<GstElement>;

} // namespace g2g
