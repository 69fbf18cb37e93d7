// SPDX-License-Identifier: LGPL-2.1-or-later
// The log messages of some domains while it lives (see log-capture.h).
#include "log-capture.h"

#include <utility>

namespace g2g::test {

LogCapture::LogCapture(std::initializer_list<const char *> domains, GLogLevelFlags levels)
{
    for (const char *domain : domains)
        handlers_.emplace_back(domain, g_log_set_handler(domain, levels, keep, this));
}

LogCapture::~LogCapture()
{
    for (const auto &[domain, id] : handlers_)
        g_log_remove_handler(domain, id);
}

std::vector<std::string> LogCapture::said() const
{
    const std::lock_guard hold(lock_);
    return said_;
}

std::vector<std::string> LogCapture::take()
{
    const std::lock_guard hold(lock_);
    return std::exchange(said_, {});
}

void LogCapture::keep(const gchar *, GLogLevelFlags, const gchar *message, gpointer self)
{
    auto *capture = static_cast<LogCapture *>(self);
    const std::lock_guard hold(capture->lock_);
    capture->said_.emplace_back(message ? message : "");
}

} // namespace g2g::test
