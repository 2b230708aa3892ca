// SPDX-License-Identifier: MIT
// myszkowski: the list shader (see myszkowski.c).
//
// A fragment of a marked pixel joins the pixel's list: depth, next, object
// and facing (front = toward the viewer, see glFrontFace in myszkowski.c).
uniform uint object;
uniform uint capacity;
void main() {
    uint p = uint(gl_FragCoord.y) * uint(width) + uint(gl_FragCoord.x);
    if ((pixels[2u * p] & STATE_CONCAVE) == 0u)
        discard;
    uint i = atomicAdd(work[C_NODES], 1u);
    if (i >= capacity)
        discard; // counted: the CPU grows the buffer and runs pass 3 again
    uint next = atomicExchange(pixels[2u * pixel_count + p], i);
    uint at = COUNTER_WORDS + 3u * i;
    work[at] = floatBitsToUint(gl_FragCoord.z);
    work[at + 1u] = next;
    work[at + 2u] = object | (gl_FrontFacing ? 2u : 0u);
}
