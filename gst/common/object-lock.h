// SPDX-License-Identifier: LGPL-2.1-or-later
// A scoped GST_OBJECT_LOCK: held from construction to the end of the scope.
#pragma once

#include <gst/gst.h>

namespace g2g::element {

class ObjectLock {
public:
    explicit ObjectLock(gpointer object) : object_(GST_OBJECT(object)) { GST_OBJECT_LOCK(object_); }
    ~ObjectLock() { GST_OBJECT_UNLOCK(object_); }
    ObjectLock(const ObjectLock &) = delete;
    ObjectLock &operator=(const ObjectLock &) = delete;

private:
    GstObject *object_;
};

} // namespace g2g::element
