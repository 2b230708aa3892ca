// SPDX-License-Identifier: MIT
// The culling passes' vertex stage (cull.c): each selected triangle placed
// from its mesh and pose. CULLIDE draws it as it is; FAR draws it as one
// square point over its bounds grown by the fattening radius, or as a quad
// of two triangles where the point size does not allow.

layout(std430, binding = 4) readonly buffer list_block { uint lists[]; };

uniform int axis;
uniform uint capacity;

flat out uint f_triangle;
flat out uint f_object;
#if RELIABLE
flat out vec3 f_edges[3]; // unit normal (xy), offset (z): inside iff dot(n, p) <= z
flat out vec4 f_plane;    // w = x + y u + z v where the plane is valid (w = 1)
flat out vec2 f_wrange;
flat out vec4 f_bounds;   // 2D bounds grown by the radius
#else
invariant gl_Position;
#endif

void main()
{
#if RELIABLE && POINTS
    uint t = lists[capacity + uint(gl_VertexID)];
    int corner = 0;
#elif RELIABLE
    uint t = lists[2u * capacity + uint(gl_VertexID / 6)];
    int corner = gl_VertexID % 6;
#else
    uint t = lists[uint(gl_VertexID / 3)];
    int corner = gl_VertexID % 3;
#endif
    vec3 placed[3];
    f_triangle = t;
    f_object = triangle_corners(t, placed);
    vec3 p[3] = vec3[3](to_view(axis, placed[0]), to_view(axis, placed[1]), to_view(axis, placed[2]));
#if RELIABLE
    float radius = view_min.w;
    vec2 grow = vec2(radius) + 0.51 * pixel.xy;
    vec2 lo = min(min(p[0].xy, p[1].xy), p[2].xy) - grow;
    vec2 hi = max(max(p[0].xy, p[1].xy), p[2].xy) + grow;
    f_bounds = vec4(lo + 0.51 * pixel.xy, hi - 0.51 * pixel.xy);
    float area = (p[1].x - p[0].x) * (p[2].y - p[0].y) - (p[2].x - p[0].x) * (p[1].y - p[0].y);
    float orientation = area > 0.0 ? 1.0 : -1.0;
    for (int k = 0; k < 3; k++) {
        vec2 e = p[(k + 1) % 3].xy - p[k].xy;
        vec2 n = orientation * vec2(e.y, -e.x);
        float len = length(n);
        // a degenerate edge or triangle gives no separating edge: keep all
        f_edges[k] = (area != 0.0 && len > 0.0) ? vec3(n / len, dot(n / len, p[k].xy))
                                               : vec3(0.0, 0.0, 1.0);
    }
#if POINTS
    // one square point over the grown bounds: one vertex, one primitive
    vec2 q = 0.5 * (lo + hi);
    gl_PointSize = max((hi.x - lo.x) / pixel.x, (hi.y - lo.y) / pixel.y) + 1.0;
#else
    // The triangle grown by the fragment stage's offset of each edge (and a
    // twentieth of a pixel for rounding) holds every pixel centre that stage
    // keeps, in about half the pixels of the bounds for a right triangle;
    // corners 3-5 repeat one point (no pixels). The bounds' quad instead
    // where the grown triangle would not be smaller (a thin one, whose grown
    // corners fly off) or it has no area.
    vec2 h = 0.5 * pixel.xy + vec2(radius);
    vec2 grown[3];
    bool tight = area != 0.0;
    for (int k = 0; k < 3 && tight; k++) {
        vec3 a = f_edges[(k + 2) % 3], b = f_edges[k]; // the edges meeting at corner k
        float oa = a.z + dot(abs(a.xy), h) + 0.05 * max(pixel.x, pixel.y);
        float ob = b.z + dot(abs(b.xy), h) + 0.05 * max(pixel.x, pixel.y);
        float det = a.x * b.y - a.y * b.x;
        tight = det != 0.0;
        grown[k] = vec2(oa * b.y - ob * a.y, a.x * ob - b.x * oa) / det;
    }
    float grown_area = tight ? abs((grown[1].x - grown[0].x) * (grown[2].y - grown[0].y) -
                                   (grown[2].x - grown[0].x) * (grown[1].y - grown[0].y))
                             : 0.0;
    tight = tight && 0.5 * grown_area < 0.75 * (hi.x - lo.x) * (hi.y - lo.y);
    vec2 quad[6] = vec2[6](lo, vec2(hi.x, lo.y), hi, lo, hi, vec2(lo.x, hi.y));
    vec2 q = tight ? grown[min(corner, 3) % 3] : quad[corner];
#endif
    gl_Position = vec4(2.0 * (q - view_min.xy) / view_size.xy - 1.0, 0.0, 1.0);
    vec3 normal = cross(p[1] - p[0], p[2] - p[0]);
    if (abs(normal.z) > 1e-6 * length(normal)) {
        vec2 g = -normal.xy / normal.z;
        f_plane = vec4(p[0].z - dot(g, p[0].xy), g, 1.0);
    } else {
        f_plane = vec4(0.0);
    }
    f_wrange = vec2(min(min(p[0].z, p[1].z), p[2].z), max(max(p[0].z, p[1].z), p[2].z));
#else
    vec3 v = p[corner];
    gl_Position = vec4(2.0 * (v.xy - view_min.xy) / view_size.xy - 1.0,
                       2.0 * (v.z - view_min.z) / view_size.z - 1.0, 1.0);
#endif
}
