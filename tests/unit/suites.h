/* SPDX-License-Identifier: MIT */
/*
 * The suites of tests/glcollide-tests (no GL context), one line each, in the order they run:
 * TEST_SUITE(name) for the file's `Suite *suite_<name>(void)`. helpers/tests.h
 * declares every folder's suites from these lists and tests/unit/main.c adds
 * these, so a new suite is one line here (docs/testing.md). No include
 * guard: included with TEST_SUITE defined.
 */
TEST_SUITE(workers)
TEST_SUITE(mesh_io)
TEST_SUITE(mesh_io_malformed)
TEST_SUITE(mesh_io_data)
TEST_SUITE(mesh_validate)
TEST_SUITE(predicates)
TEST_SUITE(tritri)
TEST_SUITE(sap)
TEST_SUITE(bvh)
TEST_SUITE(point_in_mesh)
TEST_SUITE(scene)
TEST_SUITE(query)
TEST_SUITE(distance)
TEST_SUITE(world)
TEST_SUITE(world_contacts)
TEST_SUITE(self_intersection)
TEST_SUITE(contacts)
TEST_SUITE(contacts_primitive)
TEST_SUITE(contacts_primitive_regions)
TEST_SUITE(contacts_primitive_queries)
TEST_SUITE(myszkowski_cpu)
TEST_SUITE(tetra_tree_cpu)
