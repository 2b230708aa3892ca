// SPDX-License-Identifier: MIT
// myszkowski: the minmax shader (see myszkowski.c).
//
// The map's first rendering: depth range and surface count per object.
uniform uint object;
void main() {
    uint p = uint(gl_FragCoord.y) * uint(width) + uint(gl_FragCoord.x);
    uint z = gl_FragCoord.z > 0.0 ? floatBitsToUint(gl_FragCoord.z) : 0u; // no -0.0
    atomicMin(pixels[(3u + object) * pixel_count + p], z);
    atomicMax(pixels[(5u + object) * pixel_count + p], z);
    atomicAdd(pixels[(7u + object) * pixel_count + p], 1u);
}
