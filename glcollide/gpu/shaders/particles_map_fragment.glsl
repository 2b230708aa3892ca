// SPDX-License-Identifier: MIT
// particles: the map fragment shader (see particles.c).
#version 430 core
flat in vec4 value;
layout(location = 0) out vec4 color;
void main() { color = value; }
