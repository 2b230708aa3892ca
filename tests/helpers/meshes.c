/* SPDX-License-Identifier: MIT */
/* Procedural closed meshes (see meshes.h). */
#include "helpers/meshes.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

static const double pi = 3.14159265358979323846;

typedef struct builder {
    double *positions;
    uint32_t *triangles;
    size_t vertex_count, triangle_count;
    size_t vertex_capacity, triangle_capacity; /* in doubles and indices */
    int failed;
} builder;

/* Room for count items in *array, doubling; on failure marks the builder. */
static int reserve(builder *b, void **array, size_t *capacity, size_t count, size_t size)
{
    if (count <= *capacity)
        return 1;
    size_t grown = *capacity ? 2 * *capacity : 192;
    void *bigger = realloc(*array, grown * size);
    if (!bigger) {
        b->failed = 1;
        return 0;
    }
    *array = bigger;
    *capacity = grown;
    return 1;
}

static uint32_t add_vertex(builder *b, double x, double y, double z)
{
    if (!reserve(b, (void **)&b->positions, &b->vertex_capacity, 3 * (b->vertex_count + 1),
                 sizeof *b->positions))
        return 0;
    double *p = b->positions + 3 * b->vertex_count;
    p[0] = x;
    p[1] = y;
    p[2] = z;
    return (uint32_t)b->vertex_count++;
}

static void add_triangle(builder *b, uint32_t i, uint32_t j, uint32_t k)
{
    if (!reserve(b, (void **)&b->triangles, &b->triangle_capacity, 3 * (b->triangle_count + 1),
                 sizeof *b->triangles))
        return;
    uint32_t *t = b->triangles + 3 * b->triangle_count++;
    t[0] = i;
    t[1] = j;
    t[2] = k;
}

/* Counter-clockwise quad a b c d as two triangles. */
static void add_quad(builder *b, uint32_t a, uint32_t c1, uint32_t c2, uint32_t d)
{
    add_triangle(b, a, c1, c2);
    add_triangle(b, a, c2, d);
}

static glcollide_mesh *finish(builder *b, const char *name)
{
    glcollide_mesh *mesh = NULL;
    if (!b->failed)
        glcollide_mesh_create(b->positions, b->vertex_count, b->triangles, b->triangle_count, name,
                              &mesh);
    free(b->positions);
    free(b->triangles);
    return mesh;
}

glcollide_mesh *test_mesh_box(const double h[3], const int n[3])
{
    /* Surface lattice points (i, j, k), i in 0..n[0] etc., one vertex each. */
    size_t nx = (size_t)n[0] + 1, ny = (size_t)n[1] + 1, nz = (size_t)n[2] + 1;
    uint32_t *index = malloc(nx * ny * nz * sizeof *index);
    if (!index)
        return NULL;
    builder b = {0};
    for (size_t i = 0; i < nx; i++)
        for (size_t j = 0; j < ny; j++)
            for (size_t k = 0; k < nz; k++) {
                int surface =
                    i == 0 || j == 0 || k == 0 || i == nx - 1 || j == ny - 1 || k == nz - 1;
                index[(i * ny + j) * nz + k] =
                    surface ? add_vertex(&b, -h[0] + 2 * h[0] * (double)i / n[0],
                                         -h[1] + 2 * h[1] * (double)j / n[1],
                                         -h[2] + 2 * h[2] * (double)k / n[2])
                            : UINT32_MAX;
            }
#define AT(i, j, k) index[((size_t)(i)*ny + (size_t)(j)) * nz + (size_t)(k)]
    /* Each face: axis a fixed at 0 or n[a]; u, v the other two, ordered so
     * that (u, v, outward) is right-handed. */
    for (int a = 0; a < 3; a++)
        for (int side = 0; side < 2; side++) {
            int u = (a + 1) % 3, v = (a + 2) % 3;
            if (!side) { /* the face at -h: swap so the quads face outward */
                int t = u;
                u = v;
                v = t;
            }
            for (int s = 0; s < n[u]; s++)
                for (int t = 0; t < n[v]; t++) {
                    int c[4][3];
                    int corners[4][2] = {{s, t}, {s + 1, t}, {s + 1, t + 1}, {s, t + 1}};
                    for (int q = 0; q < 4; q++) {
                        c[q][a] = side ? n[a] : 0;
                        c[q][u] = corners[q][0];
                        c[q][v] = corners[q][1];
                    }
                    add_quad(&b, AT(c[0][0], c[0][1], c[0][2]), AT(c[1][0], c[1][1], c[1][2]),
                             AT(c[2][0], c[2][1], c[2][2]), AT(c[3][0], c[3][1], c[3][2]));
                }
        }
#undef AT
    free(index);
    return finish(&b, "box");
}

glcollide_mesh *test_mesh_cylinder(double r, double h, int sides)
{
    builder b = {0};
    uint32_t bottom = add_vertex(&b, 0, 0, -h), top = add_vertex(&b, 0, 0, h);
    for (int i = 0; i < sides; i++) {
        double angle = 2 * pi * i / sides;
        add_vertex(&b, r * cos(angle), r * sin(angle), -h);
        add_vertex(&b, r * cos(angle), r * sin(angle), h);
    }
    for (int i = 0; i < sides; i++) {
        uint32_t lo = 2 + 2 * (uint32_t)i, hi = lo + 1;
        uint32_t lo2 = 2 + 2 * (uint32_t)((i + 1) % sides), hi2 = lo2 + 1;
        add_quad(&b, lo, lo2, hi2, hi);
        add_triangle(&b, top, hi, hi2);
        add_triangle(&b, bottom, lo2, lo);
    }
    return finish(&b, "cylinder");
}

glcollide_mesh *test_mesh_cup(double w, double height, double hole, double floor)
{
    builder b = {0};
    const double sx[4] = {-1, 1, 1, -1}, sy[4] = {-1, -1, 1, 1};
    uint32_t ob[4], ot[4], it[4], ib[4];
    for (int i = 0; i < 4; i++) {
        ob[i] = add_vertex(&b, w * sx[i], w * sy[i], 0);
        ot[i] = add_vertex(&b, w * sx[i], w * sy[i], height);
        it[i] = add_vertex(&b, hole * sx[i], hole * sy[i], height);
        ib[i] = add_vertex(&b, hole * sx[i], hole * sy[i], floor);
    }
    add_quad(&b, ob[0], ob[3], ob[2], ob[1]); /* bottom, facing down */
    add_quad(&b, ib[0], ib[1], ib[2], ib[3]); /* hole floor, facing up */
    for (int i = 0; i < 4; i++) {
        int j = (i + 1) % 4;
        add_quad(&b, ob[i], ob[j], ot[j], ot[i]); /* outer wall */
        add_quad(&b, ot[i], ot[j], it[j], it[i]); /* top rim */
        add_quad(&b, it[i], it[j], ib[j], ib[i]); /* inner wall, facing the hole */
    }
    return finish(&b, "cup");
}
