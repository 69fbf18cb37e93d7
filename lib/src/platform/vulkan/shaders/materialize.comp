// SPDX-License-Identifier: LGPL-2.1-or-later
// One plane of a frame view written densely: output texel (x, y) is the source texel at
// origin + x * col + y * row (the view's byte strides, turned into texel steps on the host).
// The source is read with texelFetch (no filtering, no coordinate normalisation); UNORM texels
// convert to floats and back exactly, so the bytes are the source's.
#version 450

layout(local_size_x = 16, local_size_y = 16) in;

layout(set = 0, binding = 0) uniform sampler2D source;
// No format qualifier: one shader writes R8, R8G8, R8G8B8A8 and B8G8R8A8 planes
// (shaderStorageImageWriteWithoutFormat, which the engine checks for).
layout(set = 0, binding = 1) uniform writeonly image2D destination;

layout(push_constant) uniform Walk {
    ivec2 origin;
    ivec2 col;
    ivec2 row;
    uvec2 size;
} walk;

void main()
{
    const uvec2 at = gl_GlobalInvocationID.xy;
    if (at.x >= walk.size.x || at.y >= walk.size.y)
        return;
    const ivec2 from = walk.origin + int(at.x) * walk.col + int(at.y) * walk.row;
    imageStore(destination, ivec2(at), texelFetch(source, from, 0));
}
