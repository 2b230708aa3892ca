// SPDX-License-Identifier: MIT
// stencil: the compute shaders (see stencil.c): the records (PASS 2) and
// the draw commands (PASS 3).
#if PASS == 3
// One indirect draw command per drawn object and kind (triangles, lines,
// points: base instance = the object, whose record the vertex shader reads
// through an instanced attribute), its counts from the records' firsts.
layout(local_size_x = 64) in;
layout(std430, binding = 2) readonly buffer object_block { uvec4 objects[]; }; // 3 per object
layout(std430, binding = 5) writeonly buffer command_block { uvec4 commands[]; };
uniform uint object_count;
uniform uvec3 totals; // triangles, edges, vertices drawn
void main() {
    uint o = gl_GlobalInvocationID.x;
    if (o >= object_count)
        return;
    uvec3 first = objects[3u * o + 2u].xyz;
    uvec3 next = o + 1u < object_count ? objects[3u * o + 5u].xyz : totals;
    uvec3 count = next - first;
    commands[o] = uvec4(3u * count.x, 1u, 0u, o);
    commands[object_count + o] = uvec4(2u * count.y, 1u, 0u, o);
    commands[2u * object_count + o] = uvec4(count.z, 1u, 0u, o);
}
#else
layout(local_size_x = 8, local_size_y = 8) in;
layout(binding = 0) uniform usampler2D sample_texture;
layout(binding = 1) uniform sampler2D depth_texture;
layout(binding = 2) uniform usampler2D stencil_texture;
layout(std430, binding = 0) buffer record_block { uint record_count; uint pad[3]; uvec4 records[]; };
layout(std430, binding = 1) buffer found_block { uint found[]; };
layout(std430, binding = 3) readonly buffer pixel_block { int pixel_sums[]; };
uniform int side;
uniform uint view;
uniform uint capacity;
void main() {
    ivec2 t = ivec2(gl_GlobalInvocationID.xy);
    if (t.x >= side || t.y >= side)
        return;
    uint id = texelFetch(sample_texture, t, 0).r;
    if (id == 0xffffffffu)
        return;
    int pixel = t.y * side + t.x;
#if ATOMIC
    int count = pixel_sums[PIXEL_WORDS * pixel + 1];
#else
    int count = int(texelFetch(stencil_texture, t, 0).r);
    if (count >= 128)
        count -= 256; // the stencil counts modulo 256: read it signed
#endif
    uint objects = uint(pixel_sums[PIXEL_WORDS * pixel + 2]);
    uint what;
    if ((objects & CROSSING) == 0u) {
        // Every solid in front winds 0 or 1 here: the count is how many
        // contain the sample, and where it is 1 the id sum names it.
        if (count == 0)
            return;
        what = count == 1 ? uint(pixel_sums[PIXEL_WORDS * pixel])
                          : 0x80000000u | (count < 0 ? 0x40000000u : 0u) | uint(min(abs(count), 0xffff));
    } else if ((objects & MULTI) == 0u) {
        // One object only, which passes through itself: the count is its
        // winding number at the sample (nonzero: inside, -1 included).
        if (count == 0)
            return;
        what = (objects & ID_MASK) - 1u;
    } else {
        // Several objects, one winding maybe twice or -1 times: windings of
        // different objects may cancel in the sum; the CPU decides.
        what = 0x80000000u | UNDECIDED | uint(min(abs(count), 0xffff));
    }
    // One record per sample and what it is inside, over all pixels and
    // views: the first to find it keeps its slot; another penetrated object
    // (rare) still gets a record of its own.
    uint before = atomicCompSwap(found[id], 0xffffffffu, what);
    if (before == what)
        return;
    uint i = atomicAdd(record_count, 1u);
    if (i >= capacity)
        return;
    records[i] = uvec4(uint(t.x) | uint(t.y) << 14 | view << 28, id,
                       floatBitsToUint(texelFetch(depth_texture, t, 0).r), what);
}
#endif
