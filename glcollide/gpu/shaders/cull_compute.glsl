// SPDX-License-Identifier: MIT
// The culling passes' compute stages (cull.c), one program per STAGE: the
// selection of each view's triangles, its view box, the FAR split into
// points and quads, the draw commands, and the flags' update: no CPU work
// and no readback between views.

layout(local_size_x = 64) in;

layout(std430, binding = 4) buffer list_block { uint lists[]; }; // selected, points, quads
layout(std430, binding = 5) buffer alive_block { uint alive[]; }; // triangles, then objects
layout(std430, binding = 6) buffer flag_block { uint flags[]; };  // this view's, the same layout

uniform int axis;
uniform uint capacity;       // entries of each list
uniform uint triangle_words; // where the objects' bits start
uniform float base_radius;   // FAR: fattening and the placement's error bound, frame units
uniform int resolution;
uniform float max_point_size;
uniform int round_start;     // the first view of a round after the first

uint invocation() { return (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * 64u + gl_LocalInvocationID.x; }

bool bit(uint word, uint index) { return (word >> (index & 31u) & 1u) != 0u; }

// Floats ordered as unsigned integers (for atomicMin/Max).
uint ordered(float f)
{
    uint u = floatBitsToUint(f);
    return (u & 0x80000000u) != 0u ? ~u : u | 0x80000000u;
}
float unordered(uint u) { return uintBitsToFloat((u & 0x80000000u) != 0u ? u & 0x7fffffffu : ~u); }

// 64 invocations a group, groups in x up to 65535, then rows.
void write_dispatch(uint count)
{
    uint groups = (count + 63u) / 64u;
    uint x = min(groups, 65535u);
    dispatch[0] = max(x, 1u);
    dispatch[1] = x == 0u ? 0u : (groups + x - 1u) / x;
    dispatch[2] = 1u;
}

void main()
{
#if STAGE == STAGE_RESET || STAGE == STAGE_SETUP || STAGE == STAGE_COMMANDS
    if (invocation() != 0u)
        return; // the stages of one invocation
#endif
#if STAGE == STAGE_RESET
    for (int k = 0; k < 3; k++) {
        bounds_lo[k] = 0xffffffffu;
        bounds_hi[k] = 0u;
    }
    selected = point_count = quad_count = listed = 0u;
    // A round that removed no triangle leaves the set as it found it: the
    // next would draw the same views and remove none either.
    if (round_start != 0) {
        halted = removed == round_mark ? 1u : halted;
        round_mark = removed;
    }
#elif STAGE == STAGE_PREFILTER
    // Triangle level: only the triangles whose box meets the region of
    // their object (the boxes of the objects it pairs with) take part.
    uint g = invocation();
    if (g >= triangle_total)
        return;
    vec3 p[3];
    uint o = triangle_corners(g, p);
    vec3 lo = min(min(p[0], p[1]), p[2]), hi = max(max(p[0], p[1]), p[2]);
    if (all(lessThanEqual(lo, objects[o].region_hi.xyz)) &&
        all(greaterThanEqual(hi, objects[o].region_lo.xyz)))
        atomicOr(alive[g >> 5], 1u << (g & 31u));
#elif STAGE == STAGE_SELECT
    uint g = invocation();
    if (g >= triangle_total)
        return;
#if OBJECT_ROUND
    uint o = object_of(g);
    if (!bit(alive[triangle_words + (o >> 5)], o))
        return;
#else
    if (halted != 0u || !bit(alive[g >> 5], g))
        return;
#endif
    lists[atomicAdd(selected, 1u)] = g;
    vec3 p[3];
    triangle_corners(g, p);
    vec3 lo = min(min(p[0], p[1]), p[2]), hi = max(max(p[0], p[1]), p[2]);
    for (int k = 0; k < 3; k++) {
        atomicMin(bounds_lo[k], ordered(lo[k]));
        atomicMax(bounds_hi[k], ordered(hi[k]));
    }
#elif STAGE == STAGE_SETUP
    // The view box fitted to the selected triangles (as FAR's pixel and
    // depth steps are then the finest), with room for the fattening and a
    // pixel on every side, and never a zero extent.
    vec3 lo = to_view(axis, vec3(unordered(bounds_lo[0]), unordered(bounds_lo[1]), unordered(bounds_lo[2])));
    vec3 hi = to_view(axis, vec3(unordered(bounds_hi[0]), unordered(bounds_hi[1]), unordered(bounds_hi[2])));
    float extent = 0.0;
    for (int k = 0; k < 3; k++)
        extent = max(extent, max(abs(lo[k]), abs(hi[k])));
#if RELIABLE
    float radius = base_radius + 1e-6 * extent + 1.17549435e-38;
#else
    float radius = 0.0;
#endif
    vec3 vmin, vsize;
    for (int k = 0; k < 3; k++) {
        float pad = radius + 1e-6 * extent + 1e-30;
        float size = hi[k] - lo[k] + 2.0 * pad;
        if (k < 2)
            pad += size / float(resolution - 2);
        vmin[k] = lo[k] - pad;
        vsize[k] = hi[k] + pad - vmin[k];
    }
    view_min = vec4(vmin, radius);
    view_size = vec4(vsize, 0.0);
    pixel = vec4(vsize.xy / float(resolution), 0.0, 0.0);
    write_dispatch(selected);
#elif STAGE == STAGE_CLASSIFY
    // FAR: triangles whose grown bounds fit in a point are drawn as one,
    // unless the point's square would shade many more pixels than the
    // bounds (a long triangle: the square of its long side), which a quad
    // covers alone; a point's one vertex beats a quad's six where the
    // difference is a few pixels.
    uint i = invocation();
    if (i >= selected)
        return;
    uint g = lists[i];
    vec3 p[3];
    triangle_corners(g, p);
    float side = 0.0, bounds = 1.0, radius = view_min.w;
    for (int k = 0; k < 2; k++) {
        vec3 a = to_view(axis, p[0]), b = to_view(axis, p[1]), c = to_view(axis, p[2]);
        float e = max(max(a[k], b[k]), c[k]) - min(min(a[k], b[k]), c[k]);
        float pixels = (e + 2.0 * radius) / pixel[k] + 3.02;
        side = max(side, pixels);
        bounds *= pixels;
    }
    if (side <= max_point_size && side * side <= max(2.0 * bounds, bounds + 32.0))
        lists[capacity + atomicAdd(point_count, 1u)] = g;
    else
        lists[2u * capacity + atomicAdd(quad_count, 1u)] = g;
#elif STAGE == STAGE_COMMANDS
#if RELIABLE
    uint draws[2] = uint[2](point_count, 6u * quad_count);
    rasterized += 3u * (point_count + 2u * quad_count);
#else
    uint draws[2] = uint[2](3u * selected, 0u);
    rasterized += 3u * selected;
#endif
    for (int d = 0; d < 2; d++) {
        commands[4 * d] = draws[d];
        commands[4 * d + 1] = 1u;
        commands[4 * d + 2] = 0u;
        commands[4 * d + 3] = 0u;
    }
#elif STAGE == STAGE_UPDATE
    // A triangle not behind another object in this view touches nothing:
    // it leaves the set (triangle rounds); an object with none behind
    // leaves the object PCS (object round).
    uint i = invocation();
    if (i >= selected)
        return;
    uint g = lists[i];
    bool flagged = bit(flags[g >> 5], g);
#if OBJECT_ROUND
    if (flagged) {
        uint o = object_of(g);
        atomicOr(flags[triangle_words + (o >> 5)], 1u << (o & 31u));
    }
#else
    if (!flagged) {
        atomicAnd(alive[g >> 5], ~(1u << (g & 31u)));
        atomicAdd(removed, 1u);
    }
#endif
#elif STAGE == STAGE_OBJECTS
    uint w = invocation();
    if (w < (object_count + 31u) / 32u)
        alive[triangle_words + w] &= flags[triangle_words + w];
#elif STAGE == STAGE_COMPACT
    // The triangles left, listed for the one readback.
    uint g = invocation();
    if (g < triangle_total && bit(alive[g >> 5], g))
        lists[atomicAdd(listed, 1u)] = g;
#endif
}
