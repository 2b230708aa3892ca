// SPDX-License-Identifier: MIT
// self test: the fragment shader (see self_test.c).
#version 430 core
layout(early_fragment_tests) in;
layout(std430, binding = 0) buffer counter_block { uint fragments; };
out vec4 color;
void main() { atomicAdd(fragments, 1u); color = vec4(1.0); }
