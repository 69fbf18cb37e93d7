// SPDX-License-Identifier: LGPL-2.1-or-later
// Element errors and warnings from g2g's errors: one line that names who refused what and the
// fix, posted from the caller's place in the source (as GST_ELEMENT_ERROR would).
//
// gst/common/ holds what several elements share:
//   element-error   errors and warnings posted from messages or g2g::Error (this header)
//   object-lock     a scoped GST_OBJECT_LOCK
//   settings-slot   an element's properties under the object lock, copied in and out
//   plan-slot       an element's negotiated plan, made whole by make_plan and swapped in whole
//   allocation      ALLOCATION query helpers (the domain its caps select, the first pool)
//   cuda-context    the pipeline's CUDA context and pool (no-cuda-context.cpp without CUDA)
//   vulkan-context  the pipeline's Vulkan instance, device and queue, g2g's engine on them, its
//                   storage pool, the per-frame device check (no-vulkan-context.cpp without Vulkan)
//   context-glue    both installed on a view element's class, chaining to its own functions
#pragma once

#include <gst/gst.h>

#include <string_view>

#include <g2g/error.h>

namespace g2g::element {

// The caller's place in the source, as std::source_location gives it. Made of the
// __builtin_FILE / LINE / FUNCTION that GCC and clang both have: clang 14 (the fuzz build's
// compiler) lacks the builtin that libstdc++'s <source_location> needs.
class SourcePlace {
public:
    static constexpr SourcePlace current(const char *file = __builtin_FILE(),
                                         const char *function = __builtin_FUNCTION(),
                                         unsigned line = __builtin_LINE())
    {
        return SourcePlace(file, function, line);
    }
    constexpr const char *file_name() const { return file_; }
    constexpr const char *function_name() const { return function_; }
    constexpr unsigned line() const { return line_; }

private:
    constexpr SourcePlace(const char *file, const char *function, unsigned line)
        : file_(file), function_(function), line_(line)
    {
    }
    const char *file_;
    const char *function_;
    unsigned line_;
};

// Posts `message` as an error of `element` in GStreamer's error `domain` (GST_STREAM_ERROR, ...)
// with `code`, and returns GST_FLOW_ERROR for the streaming thread to hand upstream.
GstFlowReturn post_error(GstElement *element, GQuark domain, gint code, std::string_view message,
                         std::string_view debug = {}, SourcePlace where = SourcePlace::current());

inline GstFlowReturn post_error(GstElement *element, GQuark domain, gint code, const Error &error,
                                SourcePlace where = SourcePlace::current())
{
    return post_error(element, domain, code, error.message(), {}, where);
}

// Posts `message` as a warning of `element` (GST_ELEMENT_WARNING): the stream goes on.
void post_warning(GstElement *element, GQuark domain, gint code, std::string_view message,
                  SourcePlace where = SourcePlace::current());

} // namespace g2g::element
