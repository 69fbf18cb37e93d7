#include "view-output.h"

#include <g2g/cuda-view.h>
#include <g2g/tensor-view-meta.h>

namespace g2g::element {

gboolean frame_size_of_caps(GstBaseTransform *, GstPadDirection, GstCaps *, gsize, GstCaps *othercaps,
                            gsize *othersize)
{
    GstVideoInfo info;
    if (!gst_video_info_from_caps(&info, othercaps))
        return FALSE;
    *othersize = GST_VIDEO_INFO_SIZE(&info);
    return TRUE;
}

bool describes_geometry(GType api)
{
    return api == GST_VIDEO_META_API_TYPE || api == GST_VIDEO_CROP_META_API_TYPE ||
           api == G2G_TENSOR_VIEW_META_API_TYPE || api == GST_PARENT_BUFFER_META_API_TYPE;
}

GstFlowReturn write_dense(GstElement *element, const FrameView &view, GstBuffer *input, GstVideoInfo *info,
                          GstBuffer *output)
{
    // CUDA out (and so CUDA in): a kernel writes the frame, the bytes never leave the device.
    // A CUDA frame under system-memory caps (cudadownload 1.22 passes CUDA memory through to
    // peers that take GstVideoMeta, downloading when mapped) goes the CPU way: mapping it
    // downloads it, once.
    if (cuda::is_device_frame(output)) {
        Result<void> written = cuda::materialize_into(view, input, output);
        if (!written) {
            GST_ELEMENT_ERROR(element, STREAM, FAILED, ("%s", written.error().message().c_str()), (nullptr));
            return GST_FLOW_ERROR;
        }
        return GST_FLOW_OK;
    }
    GstVideoFrame frame;
    if (!gst_video_frame_map(&frame, info, output, GST_MAP_WRITE)) {
        GST_ELEMENT_ERROR(element, STREAM, FAILED, ("cannot map the output frame for writing"), (nullptr));
        return GST_FLOW_ERROR;
    }
    guint8 *planes[GST_VIDEO_MAX_PLANES];
    for (guint p = 0; p < GST_VIDEO_FRAME_N_PLANES(&frame); ++p)
        planes[p] = static_cast<guint8 *>(GST_VIDEO_FRAME_PLANE_DATA(&frame, p));
    Result<void> written = view.materialize_into(input, planes, frame.info.stride);
    gst_video_frame_unmap(&frame);
    if (!written) {
        GST_ELEMENT_ERROR(element, STREAM, FAILED, ("%s", written.error().message().c_str()), (nullptr));
        return GST_FLOW_ERROR;
    }
    return GST_FLOW_OK;
}

} // namespace g2g::element
