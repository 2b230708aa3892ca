/* SPDX-License-Identifier: MIT */
/*
 * The suites of tests/glcollide-gpu-tests (a GL context), one line each, in the order they run:
 * TEST_SUITE(name) for the file's `Suite *suite_<name>(void)`. helpers/tests.h
 * declares every folder's suites from these lists and tests/gpu/gpu_main.c adds
 * these, so a new suite is one line here (docs/testing.md). No include
 * guard: included with TEST_SUITE defined.
 */
TEST_SUITE(context)
TEST_SUITE(world_gpu)
TEST_SUITE(cull)
TEST_SUITE(stencil)
TEST_SUITE(particles)
TEST_SUITE(particles_gpu)
TEST_SUITE(tetra_tree)
TEST_SUITE(myszkowski)
TEST_SUITE(myszkowski_map)
TEST_SUITE(bad_input)
