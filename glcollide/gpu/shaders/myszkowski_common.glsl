// SPDX-License-Identifier: MIT
// myszkowski: the definitions every pass shares (see myszkowski.c).
//
// Pixel buffer regions, in words of P = width * height: state (2P: flags
// and SC1, A's surface count), list heads (P), and for the map min depth (A,
// B: 2P), max depth (2P), surface count (2P), distance (P), coverage (P).
#define STATE_SECOND 0x100u
#define STATE_CONCAVE 0x200u
#define STATE_COLLIDE 0x400u
#define C_COVERED 0
#define C_COLLIDE1 1
#define C_SECOND 2
#define C_COLLIDE2 3
#define C_NOT_PI_CONVEX 4
#define C_CONCAVE 5
#define C_COLLIDE_CONCAVE 6
#define C_UNRESOLVED 7
#define C_NODES 8
#define COUNTER_WORDS 16u
#define MAX_LAYERS 256
layout(std430, binding = 2) buffer pixel_block { uint pixels[]; };
layout(std430, binding = 3) buffer work_block { uint work[]; };
uniform int width;
uniform uint pixel_count;
