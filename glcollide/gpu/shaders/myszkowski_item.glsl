// SPDX-License-Identifier: MIT
// myszkowski: the item shader (see myszkowski.c).
//
// The item buffer (section 7): after the depth ranges, each fragment at its
// object's nearest or farthest depth writes its triangle index there.
uniform uint object;
void main() {
    uint p = uint(gl_FragCoord.y) * uint(width) + uint(gl_FragCoord.x);
    uint z = gl_FragCoord.z > 0.0 ? floatBitsToUint(gl_FragCoord.z) : 0u;
    if (z == pixels[(3u + object) * pixel_count + p])
        pixels[(11u + 2u * object) * pixel_count + p] = uint(gl_PrimitiveID);
    if (z == pixels[(5u + object) * pixel_count + p])
        pixels[(12u + 2u * object) * pixel_count + p] = uint(gl_PrimitiveID);
}
