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

std::string Geometry::no_pixels_left(gint width, gint height) const
{
    g_autofree gchar *text =
        g_strdup_printf("crop left=%u right=%u top=%u bottom=%u leaves no pixels of a %dx%d frame", left,
                        right, top, bottom, width, height);
    return text;
}

Geometry ViewSettings::requested() const
{
    Geometry g;
    g.method = direction == GST_VIDEO_ORIENTATION_AUTO ? tag_method : direction;
    // An auto tag (none yet) or a custom one leaves the frame as it is.
    if (g.method == GST_VIDEO_ORIENTATION_AUTO || g.method == GST_VIDEO_ORIENTATION_CUSTOM)
        g.method = GST_VIDEO_ORIENTATION_IDENTITY;
    g.left = left;
    g.right = right;
    g.top = top;
    g.bottom = bottom;
    return g;
}

namespace {

// Maps one width or height value across the element. forward: input -> output (minus the crop);
// else output -> input (plus the crop, saturating at G_MAXINT). `crop` is the sum of two sides,
// each up to G_MAXINT. Returns false when nothing of the frame would be left.
bool map_dimension(const GValue *in, GValue *out, gint64 crop, bool forward)
{
    auto map = [&](gint v) -> gint {
        const gint64 mapped = forward ? v - crop : v + crop;
        return static_cast<gint>(std::clamp<gint64>(mapped, G_MININT, G_MAXINT));
    };
    if (G_VALUE_HOLDS_INT(in)) {
        const gint v = map(g_value_get_int(in));
        if (v < 1)
            return false;
        g_value_init(out, G_TYPE_INT);
        g_value_set_int(out, v);
        return true;
    }
    if (GST_VALUE_HOLDS_INT_RANGE(in)) {
        gint lo = map(gst_value_get_int_range_min(in));
        const gint hi = map(gst_value_get_int_range_max(in));
        if (hi < 1)
            return false;
        lo = std::max(lo, 1);
        g_value_init(out, lo == hi ? G_TYPE_INT : GST_TYPE_INT_RANGE);
        if (lo == hi)
            g_value_set_int(out, lo);
        else
            gst_value_set_int_range(out, lo, hi);
        return true;
    }
    if (GST_VALUE_HOLDS_LIST(in)) {
        g_value_init(out, GST_TYPE_LIST);
        for (guint i = 0; i < gst_value_list_get_size(in); ++i) {
            g_auto(GValue) item = G_VALUE_INIT;
            if (map_dimension(gst_value_list_get_value(in, i), &item, crop, forward))
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

GstStructure *map_structure(const GstStructure *in, const Geometry &g, bool forward)
{
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
    if (sized && (!map_dimension(w, &nw, gint64{g.left} + g.right, forward) ||
                  !map_dimension(h, &nh, gint64{g.top} + g.bottom, forward)))
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
                             const Geometry &g)
{
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

GstStructure *output_of_sizes_left_empty(const GstStructure *in, const Geometry &g)
{
    GstStructure *out = gst_structure_copy(in);
    gst_structure_set(out, "width", GST_TYPE_INT_RANGE, 1, G_MAXINT, "height", GST_TYPE_INT_RANGE, 1,
                      G_MAXINT, nullptr);
    transpose_pixel_aspect_ratio(in, out, orientation_transposes(g.method));
    return out;
}

} // namespace g2g::element
