// SPDX-License-Identifier: LGPL-2.1-or-later
// g2gview's geometry: its properties as set (ViewSettings), what they ask of a frame (Geometry),
// and how caps map across that (sizes minus the crop, axes swapped by a transposing orientation).
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>

#include <optional>
#include <string>
#include <utility>

namespace g2g::element {

// What g2gview does to a frame: crop in input pixels first (as videocrop before videoflip),
// then the orientation (videoflip's methods; never auto or custom here).
struct Geometry {
    GstVideoOrientationMethod method = GST_VIDEO_ORIENTATION_IDENTITY;
    guint left = 0, right = 0, top = 0, bottom = 0;

    bool crops() const { return left || right || top || bottom; }
    bool is_identity() const { return method == GST_VIDEO_ORIENTATION_IDENTITY && !crops(); }
    // A crop and nothing else: what a GstVideoCropMeta can say.
    bool is_pure_crop() const { return method == GST_VIDEO_ORIENTATION_IDENTITY && crops(); }

    bool operator==(const Geometry &) const = default;

    // Width and height out for a width x height input; nullopt when the crop leaves no pixel.
    // Summed in 64 bits: each side may be G_MAXINT, and left + right must not wrap into a
    // "crop" that widens the frame.
    std::optional<std::pair<gint, gint>> output_size(gint width, gint height) const;
};

// A crop side of kAutomaticCrop (videocrop's -1) crops whatever the input and output sizes leave.
inline constexpr gint kAutomaticCrop = -1;

// What the settings ask of a stream, before its sizes are known: the orientation (auto already
// resolved to the tag's) and each crop side, in pixels or kAutomaticCrop. Caps map across it;
// negotiation resolves it into the Geometry of the stream's sizes.
struct GeometryRequest {
    GstVideoOrientationMethod method = GST_VIDEO_ORIENTATION_IDENTITY;
    gint left = 0, right = 0, top = 0, bottom = 0;

    bool operator==(const GeometryRequest &) const = default;

    bool automatic_width() const { return left == kAutomaticCrop || right == kAutomaticCrop; }
    bool automatic_height() const { return top == kAutomaticCrop || bottom == kAutomaticCrop; }
    // The geometry without the automatic sides (each 0): all a caps mapping can know of them.
    Geometry fixed() const;
    // The geometry that takes an in_width x in_height frame to out_width x out_height (the output's
    // own axes), as videocrop resolves automatic sides: two automatic sides share what is left (the
    // odd pixel right or bottom), one takes it alone. nullopt when the fixed sides crop more than the
    // sizes leave, or the result does not fit: no such geometry.
    std::optional<Geometry> resolve(gint in_width, gint in_height, gint out_width, gint out_height) const;
    // The element error's text for a crop that leaves no pixel of a width x height frame.
    std::string no_pixels_left(gint width, gint height) const;
};

// g2gview's properties (the object lock guards them in the element).
struct ViewSettings {
    GstVideoOrientationMethod direction = GST_VIDEO_ORIENTATION_IDENTITY; // video-direction; may be auto
    // The image-orientation the stream's tags give (videoflip 1.28's rule: a stream-scoped tag wins
    // over a global one; a new stream starts from identity); auto follows it.
    GstVideoOrientationMethod tag_method = GST_VIDEO_ORIENTATION_IDENTITY;
    gint left = 0, right = 0, top = 0, bottom = 0; // or kAutomaticCrop

    // What these settings ask for: auto follows the tag.
    GeometryRequest requested() const;
};

// One caps structure mapped across `request` (forward: sink caps to src caps; else src to
// sink), or nullptr when no frame it allows would keep a pixel. An automatic axis maps to every
// size the other side's fixed crop allows (forward: up to the input's; else from the output's up).
GstStructure *map_structure(const GstStructure *in, const GeometryRequest &request, bool forward);

// The input sizes `geometry`'s crop leaves no pixel of, as copies of the sink-side structure
// `in` (format and rate kept) appended to `caps` with `features`: up to two, narrow frames and
// short ones (none when `in` has no size). g2gview's sink caps end with them so that a producer
// that has only such frames links and its caps event is refused with the reason (the crop and the
// frame), not a bare not-negotiated or "could not link" before g2gview could say anything.
void append_sizes_left_empty(GstCaps *caps, const GstStructure *in, GstCapsFeatures *features,
                             const GeometryRequest &request);

// What the src side says for a sink-side structure `in` whose every size the crop leaves no pixel
// of: `in` with any size (and the pixel-aspect-ratio the orientation gives), so that the link
// holds and such a frame's caps event is refused with the reason; nothing ever leaves with it.
GstStructure *output_of_sizes_left_empty(const GstStructure *in, const GeometryRequest &request);

} // namespace g2g::element
