/* SPDX-License-Identifier: MIT */
/*
 * The suites of tests/glcollide-ode-tests (the ODE plugin), one line each, in the order they run:
 * TEST_SUITE(name) for the file's `Suite *suite_<name>(void)`. helpers/tests.h
 * declares every folder's suites from these lists and tests/ode/ode_main.c adds
 * these, so a new suite is one line here (docs/testing.md). No include
 * guard: included with TEST_SUITE defined.
 */
TEST_SUITE(ode)
TEST_SUITE(ode_trimesh)
TEST_SUITE(ode_gpu)
TEST_SUITE(stacking)
TEST_SUITE(primitives)
TEST_SUITE(ode_threads)
TEST_SUITE(ode_collide2)
