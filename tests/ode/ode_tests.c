/* SPDX-License-Identifier: MIT */
/* The ODE plugin tests' pairs, meshes, contacts and fixture (ode_tests.h). */
#include "ode/ode_tests.h"
#include "helpers/tests.h"

#include "programs/ode_demo.h"

#include <stdlib.h>
#include <string.h>

void *room_for_one(void *array, size_t count, size_t *capacity, size_t size)
{
    if (count < *capacity)
        return array;
    *capacity = *capacity ? 2 * *capacity : 64;
    array = realloc(array, *capacity * size);
    ck_assert_ptr_nonnull(array);
    return array;
}

void record(void *data, dGeomID a, dGeomID b)
{
    pair_set *set = data;
    set->pairs = room_for_one(set->pairs, set->count, &set->capacity, sizeof *set->pairs);
    set->pairs[set->count][0] = a < b ? a : b;
    set->pairs[set->count][1] = a < b ? b : a;
    set->count++;
}

int compare_pair(const void *x, const void *y)
{
    const dGeomID *a = x, *b = y;
    if (a[0] != b[0])
        return a[0] < b[0] ? -1 : 1;
    return a[1] < b[1] ? -1 : a[1] > b[1];
}

void sort_pairs(pair_set *set)
{
    qsort(set->pairs, set->count, sizeof *set->pairs, compare_pair);
}

int has_pair(const pair_set *set, const dGeomID *pair)
{
    return bsearch(pair, set->pairs, set->count, sizeof *set->pairs, compare_pair) != NULL;
}

void cube_build(cube_data *cube, double h)
{
    ode_demo_box_arrays(h, h, h, cube->vertices, cube->indices);
    cube->data = dGeomTriMeshDataCreate();
    ode_demo_build_trimesh(cube->data, cube->vertices, 8, cube->indices, 36);
}

void destroy_scene(dSpaceID space)
{
    dSpaceSetCleanup(space, 1);
    dSpaceDestroy(space); /* nested spaces and geoms with it */
}

/* Two trimesh cubes that overlap, in a space of their own. */
dSpaceID overlapping_cubes(const cube_data *cube)
{
    dSpaceID space = dSimpleSpaceCreate(NULL);
    dCreateTriMesh(space, cube->data, NULL, NULL, NULL);
    dGeomSetPosition(dCreateTriMesh(space, cube->data, NULL, NULL, NULL), 0.3, 0.2, 0.1);
    return space;
}

void mesh_data_build(mesh_data *m, const glcollide_mesh *mesh)
{
    m->mesh = mesh;
    m->vertices = malloc(3 * mesh->vertex_count * sizeof *m->vertices);
    m->indices = malloc(3 * mesh->triangle_count * sizeof *m->indices);
    ck_assert(m->vertices && m->indices);
    for (size_t i = 0; i < 3 * mesh->vertex_count; i++)
        m->vertices[i] = (dReal)mesh->positions[i];
    for (size_t i = 0; i < 3 * mesh->triangle_count; i++)
        m->indices[i] = (dTriIndex)mesh->triangles[i];
    m->data = dGeomTriMeshDataCreate();
    ode_demo_build_trimesh(m->data, m->vertices, (int)mesh->vertex_count, m->indices,
                           (int)(3 * mesh->triangle_count));
    /* glcollide reads the exact arrays (else OPCODE's float copies). */
#ifdef dDOUBLE
    glcollide_ode_trimesh_data_build_double(m->data, m->vertices, 3 * sizeof(dReal),
                                            (int)mesh->vertex_count, m->indices,
                                            (int)(3 * mesh->triangle_count), 3 * sizeof(dTriIndex));
#else
    glcollide_ode_trimesh_data_build_single(m->data, m->vertices, 3 * sizeof(dReal),
                                            (int)mesh->vertex_count, m->indices,
                                            (int)(3 * mesh->triangle_count), 3 * sizeof(dTriIndex));
#endif
}

void mesh_data_free(mesh_data *m)
{
    glcollide_ode_trimesh_data_forget(m->data);
    dGeomTriMeshDataDestroy(m->data);
    free(m->vertices);
    free(m->indices);
}

void collide_pair(void *data, dGeomID a, dGeomID b)
{
    step_contacts *out = data;
    if (out->count + 16 <= 256)
        out->count += dCollide(a, b, 16, out->contacts + out->count, sizeof out->contacts[0]);
}

void setup(void)
{
    dInitODE2(0);
    /* The GPU path is optional: the CPU path must pass the same tests. */
    glcollide_ode_init();
}

void teardown(void)
{
    glcollide_ode_shutdown();
    dCloseODE();
}
