// SPDX-License-Identifier: LGPL-2.1-or-later
// Test helper: an appsink's frames checked as they arrive (see sink-recorder.h).
#include "sink-recorder.h"

namespace g2g::test {

SinkRecorder::SinkRecorder(GstElement *appsink, FrameCheck check)
    : sink_(ElementRef::borrow(appsink)), name_(GST_OBJECT_NAME(appsink)), check_(std::move(check))
{
    gst_segment_init(&status_.segment, GST_FORMAT_UNDEFINED);
    GstAppSinkCallbacks callbacks{};
    callbacks.new_sample = on_sample;
    callbacks.eos = on_eos;
    gst_app_sink_set_callbacks(GST_APP_SINK(appsink), &callbacks, this, nullptr);
}

SinkRecorder::~SinkRecorder()
{
    GstAppSinkCallbacks none{};
    gst_app_sink_set_callbacks(GST_APP_SINK(sink_.get()), &none, nullptr, nullptr);
}

void SinkRecorder::reset()
{
    {
        const std::lock_guard lock(mutex_);
        status_ = {};
        gst_segment_init(&status_.segment, GST_FORMAT_UNDEFINED);
    }
    changed_.notify_all();
}

SinkStatus SinkRecorder::status() const
{
    const std::lock_guard lock(mutex_);
    return status_;
}

bool SinkRecorder::wait_until(const std::function<bool(const SinkStatus &)> &done,
                              std::chrono::milliseconds timeout)
{
    std::unique_lock lock(mutex_);
    changed_.wait_for(lock, timeout, [&] { return done(status_) || !status_.problem.empty(); });
    return done(status_);
}

GstFlowReturn SinkRecorder::on_sample(GstAppSink *sink, gpointer self)
{
    const Ref<GstSample> sample = Ref<GstSample>::adopt(gst_app_sink_pull_sample(sink));
    if (!sample)
        return GST_FLOW_FLUSHING;
    static_cast<SinkRecorder *>(self)->take(sample.get());
    return GST_FLOW_OK;
}

void SinkRecorder::on_eos(GstAppSink *, gpointer data)
{
    auto *self = static_cast<SinkRecorder *>(data);
    {
        const std::lock_guard lock(self->mutex_);
        self->status_.eos = true;
    }
    self->changed_.notify_all();
}

namespace {

std::string time_string(GstClockTime t)
{
    g_autofree gchar *text = g_strdup_printf("%" GST_TIME_FORMAT, GST_TIME_ARGS(t));
    return text;
}

} // namespace

void SinkRecorder::take(GstSample *sample)
{
    GstBuffer *buffer = gst_sample_get_buffer(sample);
    GstCaps *caps = gst_sample_get_caps(sample);
    const GstSegment *segment = gst_sample_get_segment(sample);
    std::string problem;
    if (!buffer || !caps || !segment) {
        problem = "a sample without buffer, caps or segment";
    } else {
        if (caps != caps_.get()) {
            caps_ = CapsRef::borrow(caps);
            if (!gst_video_info_from_caps(&info_, caps))
                problem = "caps that are not video";
        }
        if (problem.empty())
            problem = check_(buffer, info_);
    }
    const GstClockTime pts = buffer ? GST_BUFFER_PTS(buffer) : GST_CLOCK_TIME_NONE;
    {
        const std::lock_guard lock(mutex_);
        SinkStatus &s = status_;
        const bool same_segment = segment && gst_segment_is_equal(&s.segment, segment);
        if (problem.empty() && s.eos)
            problem = "a frame at " + time_string(pts) + " after EOS";
        if (problem.empty() && segment && segment->format == GST_FORMAT_TIME &&
            (!GST_CLOCK_TIME_IS_VALID(pts) || pts < segment->start ||
             (GST_CLOCK_TIME_IS_VALID(segment->stop) && pts >= segment->stop)))
            problem = "a frame at " + time_string(pts) + " outside its segment " +
                      time_string(segment->start) + ".." + time_string(segment->stop);
        // Within one segment every frame starts where the one before ended: none lost, none twice.
        if (problem.empty() && same_segment && GST_CLOCK_TIME_IS_VALID(s.last_end) && pts != s.last_end)
            problem = "a frame at " + time_string(pts) + " after the one at " + time_string(s.last_pts) +
                      " (which ended at " + time_string(s.last_end) + ") in the same segment";
        if (!same_segment && segment) {
            gst_segment_copy_into(segment, &s.segment);
            s.segment_frames = 0;
            s.segment_first_pts = pts;
        }
        ++s.frames;
        ++s.segment_frames;
        s.last_pts = pts;
        s.last_end = buffer && GST_BUFFER_DURATION_IS_VALID(buffer) && GST_CLOCK_TIME_IS_VALID(pts)
                         ? pts + GST_BUFFER_DURATION(buffer)
                         : GST_CLOCK_TIME_NONE;
        if (s.problem.empty() && !problem.empty())
            s.problem = name_ + ": " + problem;
    }
    changed_.notify_all();
}

} // namespace g2g::test
