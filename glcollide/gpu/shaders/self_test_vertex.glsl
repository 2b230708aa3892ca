// SPDX-License-Identifier: MIT
// self test: the vertex shader (see self_test.c).
#version 430 core
layout(location = 0) in vec3 position;
void main() { gl_Position = vec4(position, 1.0); }
