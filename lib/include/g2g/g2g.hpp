// SPDX-License-Identifier: LGPL-2.1-or-later
// The whole g2g C++ API: every installed header.
//
//   memory-domain-kind  the seed's eleven kinds, their names and caps features
//   domain-set          sets of kinds, the GPU-first preference
//   classify            the kind of any GstMemory / GstBuffer
//   memory-domain       MemoryDomain: a frame and its kind; share, make_shareable, system bytes
//   converters          what to insert between two domains; the wrong-domain error
//   frame-view, tensor-view-meta   views: strides, orientations, crops; materialize
//   worker-pool         the threads a CPU materialize is split across, made once
//   cuda-view           CUDA frames' views materialized on the device
//   dmabuf              DMA-BUF frames: DRM formats, planes, g2g's allocator and pool, wrap, export
//   platform-handles    D3D11, CoreVideo, WebGPU and wgpu frames: a memory type per kind, its
//                       payload (handle-payloads.h) and keep-alive, recovered by type
//   error, gst-ref      Result / Error; owning handles for GStreamer references
//   g2g.h               the C API
#pragma once

#include <g2g/classify.h>
#include <g2g/converters.h>
#include <g2g/cuda-view.h>
#include <g2g/dmabuf.h>
#include <g2g/domain-set.h>
#include <g2g/error.h>
#include <g2g/frame-view.h>
#include <g2g/g2g.h>
#include <g2g/gst-ref.h>
#include <g2g/memory-domain-kind.h>
#include <g2g/memory-domain.h>
#include <g2g/platform-handles.h>
#include <g2g/tensor-view-meta.h>
#include <g2g/worker-pool.h>
