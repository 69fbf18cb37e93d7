// SPDX-License-Identifier: LGPL-2.1-or-later
// The whole g2g C++ API: every installed header.
#pragma once

#include <g2g/classify.h>
#include <g2g/converters.h>
#include <g2g/cuda-view.h>
#include <g2g/domain-set.h>
#include <g2g/error.h>
#include <g2g/frame-view.h>
#include <g2g/g2g.h>
#include <g2g/gst-ref.h>
#include <g2g/memory-domain-kind.h>
#include <g2g/memory-domain.h>
#include <g2g/opaque-memory.h>
#include <g2g/tensor-view-meta.h>
