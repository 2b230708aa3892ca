// SPDX-License-Identifier: MIT
// myszkowski: the surface shader (see myszkowski.c).
//
// Depth and stencil do the work; the shader only restricts pass 2's A to
// the marked pixels and counts A's surfaces there (pi-convexity).
uniform uint require;
uniform int count_layers;
void main() {
    uint p = uint(gl_FragCoord.y) * uint(width) + uint(gl_FragCoord.x);
    if (require != 0u && (pixels[2u * p] & require) == 0u)
        discard;
    if (count_layers != 0)
        atomicAdd(pixels[2u * p + 1u], 1u);
}
