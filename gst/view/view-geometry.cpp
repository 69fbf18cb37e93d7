// SPDX-License-Identifier: LGPL-2.1-or-later
#include "view-geometry.h"

#include <g2g/frame-view.h>

#include <algorithm>

namespace g2g::element {

std::optional<std::pair<gint, gint>> Geometry::output_size(gint width, gint height) const
{
    const gint64 out_width = gint64{width} - left - right;
    const gint64 out_height = gint64{height} - top - bottom;
    if (out_width < 1 || out_height < 1)
        return std::nullopt;
    // Both at most the input's: they fit a gint.
    std::pair<gint, gint> size{static_cast<gint>(out_width), static_cast<gint>(out_height)};
    if (orientation_transposes(method))
        std::swap(size.first, size.second);
    return size;
}

GeometryRequest ViewSettings::requested() const
{
    GeometryRequest r;
    r.method = direction == GST_VIDEO_ORIENTATION_AUTO ? tag_method : direction;
    // An auto tag (none yet) or a custom one leaves the frame as it is.
    if (r.method == GST_VIDEO_ORIENTATION_AUTO || r.method == GST_VIDEO_ORIENTATION_CUSTOM)
        r.method = GST_VIDEO_ORIENTATION_IDENTITY;
    r.left = left;
    r.right = right;
    r.top = top;
    r.bottom = bottom;
    return r;
}

namespace {

guint fixed_side(gint side)
{
    return side == kAutomaticCrop ? 0u : static_cast<guint>(side);
}

// One axis's two sides for an input of `in` pixels leaving `out`: automatic sides take what the
// fixed ones leave (two share it, the odd pixel to the second). False when there is no such crop.
bool resolve_axis(gint first, gint second, gint in, gint out, guint &first_out, guint &second_out)
{
    const gint64 removed = gint64{in} - out;
    if (removed < 0)
        return false;
    if (first == kAutomaticCrop && second == kAutomaticCrop) {
        first_out = static_cast<guint>(removed / 2);
        second_out = static_cast<guint>(removed - removed / 2);
    } else if (first == kAutomaticCrop) {
        if (second > removed)
            return false;
        second_out = static_cast<guint>(second);
        first_out = static_cast<guint>(removed - second);
    } else if (second == kAutomaticCrop) {
        if (first > removed)
            return false;
        first_out = static_cast<guint>(first);
        second_out = static_cast<guint>(removed - first);
    } else {
        first_out = static_cast<guint>(first);
        second_out = static_cast<guint>(second);
    }
    return true;
}

} // namespace

Geometry GeometryRequest::fixed() const
{
    return Geometry{method, fixed_side(left), fixed_side(right), fixed_side(top), fixed_side(bottom)};
}

std::optional<Geometry> GeometryRequest::resolve(gint in_width, gint in_height, gint out_width,
                                                 gint out_height) const
{
    // The output's axes back in the input's.
    if (orientation_transposes(method))
        std::swap(out_width, out_height);
    Geometry g{method, 0, 0, 0, 0};
    if (!resolve_axis(left, right, in_width, out_width, g.left, g.right) ||
        !resolve_axis(top, bottom, in_height, out_height, g.top, g.bottom))
        return std::nullopt;
    // output_size answers in the output's axes: swapped back.
    const auto size = g.output_size(in_width, in_height);
    const std::pair<gint, gint> asked =
        orientation_transposes(method) ? std::pair{out_height, out_width} : std::pair{out_width, out_height};
    if (!size || *size != asked)
        return std::nullopt;
    return g;
}

std::string GeometryRequest::no_pixels_left(gint width, gint height) const
{
    g_autofree gchar *text =
        g_strdup_printf("crop left=%d right=%d top=%d bottom=%d leaves no pixels of a %dx%d frame", left,
                        right, top, bottom, width, height);
    return text;
}

namespace {

// Maps one width or height value across the element. forward: input -> output (minus the crop);
// else output -> input (plus the crop, saturating at G_MAXINT). `crop` is the sum of two sides,
// each up to G_MAXINT. An `automatic` axis crops more as the other side asks: forward, every size
// from 1 up to the mapped one; else every size from the mapped one up (as videocrop). Returns false
// when nothing of the frame would be left.
bool map_dimension(const GValue *in, GValue *out, gint64 crop, bool forward, bool automatic)
{
    auto map = [&](gint v) -> gint {
        const gint64 mapped = forward ? v - crop : v + crop;
        return static_cast<gint>(std::clamp<gint64>(mapped, G_MININT, G_MAXINT));
    };
    auto range = [&](gint lo, gint hi) {
        g_value_init(out, lo == hi ? G_TYPE_INT : GST_TYPE_INT_RANGE);
        if (lo == hi)
            g_value_set_int(out, lo);
        else
            gst_value_set_int_range(out, lo, hi);
    };
    if (G_VALUE_HOLDS_INT(in)) {
        const gint v = map(g_value_get_int(in));
        if (v < 1)
            return false;
        if (automatic)
            range(forward ? 1 : v, forward ? v : G_MAXINT);
        else
            range(v, v);
        return true;
    }
    if (GST_VALUE_HOLDS_INT_RANGE(in)) {
        gint lo = map(gst_value_get_int_range_min(in));
        gint hi = map(gst_value_get_int_range_max(in));
        if (hi < 1)
            return false;
        lo = std::max(lo, 1);
        if (automatic && forward)
            lo = 1;
        else if (automatic)
            hi = G_MAXINT;
        range(lo, hi);
        return true;
    }
    if (GST_VALUE_HOLDS_LIST(in)) {
        g_value_init(out, GST_TYPE_LIST);
        for (guint i = 0; i < gst_value_list_get_size(in); ++i) {
            g_auto(GValue) item = G_VALUE_INIT;
            if (map_dimension(gst_value_list_get_value(in, i), &item, crop, forward, automatic))
                gst_value_list_append_and_take_value(out, &item);
        }
        return gst_value_list_get_size(out) > 0;
    }
    return false;
}

// A transposing view's pixels are its source's turned a quarter: their aspect ratio inverts. A
// ratio with a zero term (caps from anywhere: "0/1") has no inverse (GStreamer refuses a fraction
// of denominator 0 with a critical and leaves the field unset) and goes on as it came.
void transpose_pixel_aspect_ratio(const GstStructure *in, GstStructure *out, bool transposes)
{
    gint par_n = 0, par_d = 0;
    if (transposes && gst_structure_get_fraction(in, "pixel-aspect-ratio", &par_n, &par_d) && par_n != 0 &&
        par_d != 0)
        gst_structure_set(out, "pixel-aspect-ratio", GST_TYPE_FRACTION, par_d, par_n, nullptr);
}

} // namespace

GstStructure *map_structure(const GstStructure *in, const GeometryRequest &request, bool forward)
{
    const Geometry g = request.fixed();
    const bool transposes = orientation_transposes(g.method);
    // Input axes crop by left+right (width) and top+bottom (height); a transposing orientation
    // swaps the axes on the output side.
    const char *in_w = (!forward && transposes) ? "height" : "width";
    const char *in_h = (!forward && transposes) ? "width" : "height";
    const char *out_w = (forward && transposes) ? "height" : "width";
    const char *out_h = (forward && transposes) ? "width" : "height";
    const GValue *w = gst_structure_get_value(in, in_w);
    const GValue *h = gst_structure_get_value(in, in_h);
    const bool sized = w && h;
    g_auto(GValue) nw = G_VALUE_INIT;
    g_auto(GValue) nh = G_VALUE_INIT;
    if (sized && (!map_dimension(w, &nw, gint64{g.left} + g.right, forward, request.automatic_width()) ||
                  !map_dimension(h, &nh, gint64{g.top} + g.bottom, forward, request.automatic_height())))
        return nullptr;
    GstStructure *out = gst_structure_copy(in);
    if (sized) {
        gst_structure_take_value(out, out_w, &nw);
        gst_structure_take_value(out, out_h, &nh);
    }
    transpose_pixel_aspect_ratio(in, out, transposes);
    return out;
}

void append_sizes_left_empty(GstCaps *caps, const GstStructure *in, GstCapsFeatures *features,
                             const GeometryRequest &request)
{
    const Geometry g = request.fixed();
    if (!gst_structure_has_field(in, "width") || !gst_structure_has_field(in, "height"))
        return;
    auto append = [&](const char *cropped_axis, const char *other_axis, gint64 crop) {
        if (crop < 1)
            return;
        GstStructure *s = gst_structure_copy(in);
        const gint most = static_cast<gint>(std::min<gint64>(crop, G_MAXINT));
        if (most == 1)
            gst_structure_set(s, cropped_axis, G_TYPE_INT, 1, nullptr);
        else
            gst_structure_set(s, cropped_axis, GST_TYPE_INT_RANGE, 1, most, nullptr);
        gst_structure_set(s, other_axis, GST_TYPE_INT_RANGE, 1, G_MAXINT, nullptr);
        gst_caps_append_structure_full(caps, s, gst_caps_features_copy(features));
    };
    append("width", "height", gint64{g.left} + g.right);
    append("height", "width", gint64{g.top} + g.bottom);
}

GstStructure *output_of_sizes_left_empty(const GstStructure *in, const GeometryRequest &g)
{
    GstStructure *out = gst_structure_copy(in);
    gst_structure_set(out, "width", GST_TYPE_INT_RANGE, 1, G_MAXINT, "height", GST_TYPE_INT_RANGE, 1,
                      G_MAXINT, nullptr);
    transpose_pixel_aspect_ratio(in, out, orientation_transposes(g.method));
    return out;
}

} // namespace g2g::element
