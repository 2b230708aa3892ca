// SPDX-License-Identifier: MIT
// The culling passes' fragment stage (cull.c): pass 0 keeps the nearest
// depth and its object, pass 1 the nearest depth of the other objects,
// pass 2 flags every triangle with a fragment at or behind another object.
// FAR rasterises conservatively: a fragment is kept where the pixel square
// grown by the radius is not separated from the triangle by one of its
// edges, and carries the triangle's depth range over that square.

layout(binding = 0) uniform usampler2D owner_texture;
layout(binding = 1) uniform sampler2D nearest_texture;
layout(binding = 2) uniform sampler2D second_texture;
layout(std430, binding = 6) buffer flag_block { uint flags[]; };

flat in uint f_triangle;
flat in uint f_object;
#if RELIABLE
flat in vec3 f_edges[3];
flat in vec4 f_plane;
flat in vec2 f_wrange;
flat in vec4 f_bounds;
#endif
#if PASS == 0
layout(location = 0) out uint owner;
#endif

void main()
{
#if RELIABLE
    float radius = view_min.w;
    vec2 c = view_min.xy + gl_FragCoord.xy * pixel.xy;
    vec2 h = 0.5 * pixel.xy + vec2(radius);
    if (any(lessThan(c + 0.5 * pixel.xy, f_bounds.xy)) ||
        any(greaterThan(c - 0.5 * pixel.xy, f_bounds.zw)))
        discard;
    for (int k = 0; k < 3; k++)
        if (dot(f_edges[k].xy, c) - f_edges[k].z > dot(abs(f_edges[k].xy), h))
            discard;
    float wlo = f_wrange.x, whi = f_wrange.y;
    if (f_plane.w != 0.0) {
        float wc = f_plane.x + dot(f_plane.yz, c);
        float spread = dot(abs(f_plane.yz), h);
        wlo = max(wc - spread, wlo);
        whi = min(wc + spread, whi);
    }
    float zlo = (wlo - radius - view_min.z) / view_size.z;
    float zhi = (whi + radius - view_min.z) / view_size.z;
#else
    float zlo = gl_FragCoord.z, zhi = gl_FragCoord.z;
#endif
#if PASS == 0
    owner = f_object;
#if RELIABLE
    gl_FragDepth = zlo;
#endif
#elif PASS == 1
    if (texelFetch(owner_texture, ivec2(gl_FragCoord.xy), 0).r == f_object)
        discard;
#if RELIABLE
    gl_FragDepth = zlo;
#endif
#else
    ivec2 texel = ivec2(gl_FragCoord.xy);
    bool own = texelFetch(owner_texture, texel, 0).r == f_object;
    float other = own ? texelFetch(second_texture, texel, 0).r
                      : texelFetch(nearest_texture, texel, 0).r;
    if (zhi >= other)
        atomicOr(flags[f_triangle >> 5], 1u << (f_triangle & 31u));
#endif
}
