// SPDX-License-Identifier: MIT
// stencil: the fragment shader (see stencil.c).
flat in uint f_sample;
flat in uint f_object;
#if PASS == 0
flat in vec2 f_depths;
layout(location = 0) out uint sample_id;
layout(location = 1) out uint sample_owner;
layout(location = 2) out float sample_depth;
void main() {
    sample_id = f_sample;
    sample_owner = f_object;
    sample_depth = clamp(gl_FragCoord.z, f_depths.x, f_depths.y);
    gl_FragDepth = sample_depth;
}
#else
layout(binding = 0) uniform usampler2D owner_texture;
layout(binding = 1) uniform sampler2D depth_texture;
layout(std430, binding = 3) buffer pixel_block { int pixel_sums[]; };
uniform int side;
uniform int track; // some object passes through itself: track who has faces here
void main() {
    ivec2 t = ivec2(gl_FragCoord.xy);
    uint object = f_object & ID_MASK;
    // No sample here (owner NO_SAMPLE), a face of the sample's own object, or
    // a face at or behind the sample: not counted. The stencil is updated
    // exactly for the fragments that reach the end (depth test off).
    if (texelFetch(owner_texture, t, 0).r == object ||
        !(gl_FragCoord.z < texelFetch(depth_texture, t, 0).r))
        discard;
    // glFrontFace(GL_CW): front = toward the viewer
    int facing = gl_FrontFacing ? 1 : -1;
    int pixel = t.y * side + t.x;
    atomicAdd(pixel_sums[PIXEL_WORDS * pixel], facing * int(object));
#if ATOMIC
    atomicAdd(pixel_sums[PIXEL_WORDS * pixel + 1], facing);
#endif
    // Which objects have faces here: the first (+ 1), MULTI once another
    // shows, CROSSING if one passes through itself (its winding may be 2
    // or -1, so the count's sum over objects no longer says who contains
    // the sample). The first fragment to arrive swaps 0 for its object
    // before anyone ORs a flag, so a flag never hides an object.
    if (track != 0) {
        int old = atomicCompSwap(pixel_sums[PIXEL_WORDS * pixel + 2], 0, int(object + 1u));
        if (old != 0 && (uint(old) & ID_MASK) != object + 1u)
            atomicOr(pixel_sums[PIXEL_WORDS * pixel + 2], int(MULTI));
        if ((f_object & CROSSING) != 0u)
            atomicOr(pixel_sums[PIXEL_WORDS * pixel + 2], int(CROSSING));
    }
}
#endif
