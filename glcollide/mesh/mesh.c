/* SPDX-License-Identifier: MIT */
/* Meshes: creation, validation (is it a closed solid?), data files, OFF output. */
#define _POSIX_C_SOURCE 200809L
#include "mesh/mesh_internal.h"
#include "geometry/predicates.h"

#include <errno.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---------------------------------------------------------------- create / destroy */

int glcollide_mesh_adopt(double *positions, size_t vertex_count, uint32_t *triangles,
                         size_t triangle_count, const char *name, glcollide_mesh **out)
{
    glcollide_mesh *mesh = malloc(sizeof *mesh);
    char *copy = glcollide_strdup(name ? name : "mesh");
    if (!mesh || !copy) {
        free(mesh);
        free(copy);
        free(positions);
        free(triangles);
        return glcollide_fail(GLCOLLIDE_ERROR_OUT_OF_MEMORY, "%s: out of memory",
                              name ? name : "mesh");
    }
    mesh->positions = positions;
    mesh->triangles = triangles;
    mesh->vertex_count = vertex_count;
    mesh->triangle_count = triangle_count;
    mesh->name = copy;
    *out = mesh;
    return GLCOLLIDE_OK;
}

int glcollide_mesh_create(const double *positions, size_t vertex_count, const uint32_t *triangles,
                          size_t triangle_count, const char *name, glcollide_mesh **out)
{
    const char *label = name ? name : "glcollide_mesh_create";
    if ((!positions && vertex_count) || (!triangles && triangle_count) || !out)
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT, "%s: %s is NULL", label,
                              !out                         ? "out"
                              : !positions && vertex_count ? "positions"
                                                           : "triangles");
    if (vertex_count > SIZE_MAX / 3 || triangle_count > SIZE_MAX / 3)
        return glcollide_fail(GLCOLLIDE_ERROR_LIMIT, "%s: too many vertices or triangles", label);
    for (size_t v = 0; v < vertex_count; v++)
        if (!isfinite(positions[3 * v]) || !isfinite(positions[3 * v + 1]) ||
            !isfinite(positions[3 * v + 2]))
            return glcollide_fail(GLCOLLIDE_ERROR_INVALID_MESH,
                                  "%s: vertex %zu has a non-finite coordinate", label, v);
    for (size_t i = 0; i < 3 * triangle_count; i++)
        if (triangles[i] >= vertex_count)
            return glcollide_fail(GLCOLLIDE_ERROR_INVALID_MESH,
                                  "%s: triangle %zu refers to vertex %u, only %zu vertices", label,
                                  i / 3, triangles[i], vertex_count);
    double *p = glcollide_alloc_array(3 * vertex_count, sizeof *p);
    uint32_t *t = glcollide_alloc_array(3 * triangle_count, sizeof *t);
    if (!p || !t) {
        free(p);
        free(t);
        return glcollide_fail(GLCOLLIDE_ERROR_OUT_OF_MEMORY,
                              "%s: out of memory for %zu vertices, %zu triangles", label,
                              vertex_count, triangle_count);
    }
    if (vertex_count)
        memcpy(p, positions, 3 * vertex_count * sizeof *p);
    if (triangle_count)
        memcpy(t, triangles, 3 * triangle_count * sizeof *t);
    return glcollide_mesh_adopt(p, vertex_count, t, triangle_count, name, out);
}

void glcollide_mesh_destroy(glcollide_mesh **mesh)
{
    if (!mesh || !*mesh)
        return;
    free((*mesh)->positions);
    free((*mesh)->triangles);
    free((*mesh)->name);
    free(*mesh);
    *mesh = NULL;
}

/* ---------------------------------------------------------------- validation */

/*
 * LSD radix sort of undirected edge keys (min << 32 | max) carrying each
 * edge's direction along, by bytes, skipping bytes all keys share (the high
 * bytes of the indices of all but enormous meshes).
 */
static int sort_edges(uint64_t *keys, unsigned char *backward, size_t n)
{
    if (n < 2)
        return GLCOLLIDE_OK;
    uint64_t *key_scratch = glcollide_alloc_array(n, sizeof *key_scratch);
    unsigned char *backward_scratch = malloc(n);
    size_t(*counts)[256] = calloc(8, sizeof *counts);
    if (!key_scratch || !backward_scratch || !counts) {
        free(key_scratch);
        free(backward_scratch);
        free(counts);
        return GLCOLLIDE_ERROR_OUT_OF_MEMORY;
    }
    for (size_t i = 0; i < n; i++)
        for (int b = 0; b < 8; b++)
            counts[b][(keys[i] >> (8 * b)) & 255]++;
    uint64_t *src = keys, *dst = key_scratch;
    unsigned char *src_backward = backward, *dst_backward = backward_scratch;
    for (int b = 0; b < 8; b++) {
        if (counts[b][(keys[0] >> (8 * b)) & 255] == n)
            continue;
        glcollide_counts_to_offsets(counts[b], 256);
        for (size_t i = 0; i < n; i++) {
            size_t slot = counts[b][(src[i] >> (8 * b)) & 255]++;
            dst[slot] = src[i];
            dst_backward[slot] = src_backward[i];
        }
        uint64_t *swap = src;
        src = dst;
        dst = swap;
        unsigned char *swap_backward = src_backward;
        src_backward = dst_backward;
        dst_backward = swap_backward;
    }
    if (src != keys) {
        memcpy(keys, src, n * sizeof *keys);
        memcpy(backward, src_backward, n);
    }
    free(key_scratch);
    free(backward_scratch);
    free(counts);
    return GLCOLLIDE_OK;
}

/*
 * Edge classification from the sorted undirected edges: of the uses of an
 * edge, f go from its smaller vertex to the larger and r go back.
 * f + r == 1: boundary; >= 3: non-manifold; >= 2 with f != r: misoriented
 * (the uses cannot be paired into opposite directions).
 */
static void classify_edges(const uint64_t *keys, const unsigned char *backward, size_t n,
                           glcollide_mesh_report *report)
{
    for (size_t i = 0; i < n;) {
        size_t f = 0, r = 0, j = i;
        for (; j < n && keys[j] == keys[i]; j++) {
            if (backward[j])
                r++;
            else
                f++;
        }
        i = j;
        if (f + r == 1)
            report->boundary_edges++;
        if (f + r >= 3)
            report->nonmanifold_edges++;
        if (f + r >= 2 && f != r)
            report->misoriented_edges++;
    }
}

/*
 * Degenerate triangles with a repeated index take no part in the edge
 * counts (their "edges" have no meaning); exactly collinear ones with three
 * distinct vertices do, as they still connect the surface. Bounds are empty
 * (+inf, -inf) when no finite vertex is referenced.
 */
int glcollide_mesh_validate(const glcollide_mesh *mesh, glcollide_mesh_report *report)
{
    if (!mesh || !report || (!mesh->positions && mesh->vertex_count) ||
        (!mesh->triangles && mesh->triangle_count) || mesh->triangle_count > SIZE_MAX / 3)
        return GLCOLLIDE_ERROR_INVALID_ARGUMENT;
    const double *positions = mesh->positions;
    const uint32_t *triangles = mesh->triangles;
    size_t vertex_count = mesh->vertex_count, triangle_count = mesh->triangle_count;
    for (size_t i = 0; i < 3 * triangle_count; i++)
        if (triangles[i] >= vertex_count)
            return GLCOLLIDE_ERROR_INVALID_ARGUMENT;

    memset(report, 0, sizeof *report);
    enum { REFERENCED = 1, NONFINITE = 2 };
    unsigned char *flags = calloc(vertex_count ? vertex_count : 1, 1);
    uint64_t *edges = glcollide_alloc_array(3 * triangle_count, sizeof *edges);
    unsigned char *backward = malloc(3 * triangle_count + 1);
    if (!flags || !edges || !backward) {
        free(flags);
        free(edges);
        free(backward);
        return GLCOLLIDE_ERROR_OUT_OF_MEMORY;
    }
    for (size_t v = 0; v < vertex_count; v++) {
        const double *p = positions + 3 * v;
        if (!isfinite(p[0]) || !isfinite(p[1]) || !isfinite(p[2])) {
            flags[v] = NONFINITE;
            report->nonfinite_vertices++;
        }
    }
    for (size_t i = 0; i < 3 * triangle_count; i++)
        flags[triangles[i]] |= REFERENCED;
    glcollide_aabb bounds;
    glcollide_aabb_empty(&bounds);
    for (size_t v = 0; v < vertex_count; v++) {
        if (!(flags[v] & REFERENCED))
            report->unreferenced_vertices++;
        else if (!(flags[v] & NONFINITE))
            glcollide_aabb_add_point(&bounds, positions + 3 * v);
    }
    /* Volume relative to the centre of the bounds (smaller products, less
     * cancellation) and scaled by a power of two that brings the half extent
     * into [1/2, 1): a product of three coordinates then neither overflows
     * (scale 1e110 gave inf) nor underflows (1e-110 gave 0, and the mesh
     * counted as open) for any finite mesh. */
    double origin[3] = {0.0, 0.0, 0.0}, scale = 1.0;
    if (bounds.min[0] <= bounds.max[0])
        glcollide_frame_fit(&bounds, origin, &scale);

    size_t edge_count = 0;
    double volume = 0.0;
    for (size_t t = 0; t < triangle_count; t++) {
        const uint32_t *tri = triangles + 3 * t;
        uint32_t a = tri[0], b = tri[1], c = tri[2];
        if (a == b || b == c || c == a) {
            report->degenerate_triangles++;
            continue;
        }
        const uint32_t corners[4] = {a, b, c, a};
        for (int k = 0; k < 3; k++) {
            uint32_t from = corners[k], to = corners[k + 1];
            backward[edge_count] = from > to;
            edges[edge_count++] = from < to ? (uint64_t)from << 32 | to : (uint64_t)to << 32 | from;
        }
        if ((flags[a] | flags[b] | flags[c]) & NONFINITE)
            continue;
        const double *pa = positions + 3 * a, *pb = positions + 3 * b, *pc = positions + 3 * c;
        if (glcollide_triangle_drop_axis(pa, pb, pc) < 0) /* exactly collinear */
            report->degenerate_triangles++;
        double ra[3], rb[3], rc[3], cross[3];
        for (int k = 0; k < 3; k++) {
            ra[k] = (pa[k] - origin[k]) * scale;
            rb[k] = (pb[k] - origin[k]) * scale;
            rc[k] = (pc[k] - origin[k]) * scale;
        }
        glcollide_vec3_cross(cross, rb, rc);
        volume += glcollide_vec3_dot(ra, cross);
    }
    free(flags);
    int status = sort_edges(edges, backward, edge_count);
    if (status == GLCOLLIDE_OK)
        classify_edges(edges, backward, edge_count, report);
    free(edges);
    free(backward);
    if (status < 0)
        return status;

    report->signed_volume = volume / 6.0 / scale / scale / scale;
    memcpy(report->bounds_min, bounds.min, sizeof bounds.min);
    memcpy(report->bounds_max, bounds.max, sizeof bounds.max);
    report->closed = triangle_count > 0 && report->boundary_edges == 0 &&
                     report->nonmanifold_edges == 0 && report->misoriented_edges == 0 &&
                     report->degenerate_triangles == 0 && report->nonfinite_vertices == 0 &&
                     volume > 0.0; /* not signed_volume, which may underflow to 0 */
    return GLCOLLIDE_OK;
}

static void append_defect(char *buf, size_t size, size_t count, const char *one, const char *many)
{
    if (!count)
        return;
    size_t used = strlen(buf);
    if (used >= size)
        return;
    snprintf(buf + used, size - used, "%s%zu %s", used ? ", " : "", count, count == 1 ? one : many);
}

int glcollide_mesh_require_solid(const glcollide_mesh *mesh, glcollide_mesh_report *report)
{
    glcollide_mesh_report local;
    if (!report)
        report = &local;
    if (!mesh)
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                              "glcollide_mesh_require_solid: mesh is NULL");
    const char *name = mesh->name ? mesh->name : "mesh";
    int status = glcollide_mesh_validate(mesh, report);
    if (status == GLCOLLIDE_ERROR_INVALID_ARGUMENT)
        return glcollide_fail(status, "%s: NULL arrays or a vertex index out of range", name);
    if (status < 0)
        return glcollide_fail(status, "%s: out of memory validating %zu triangles", name,
                              mesh->triangle_count);
    if (report->closed)
        return GLCOLLIDE_OK;
    char defects[512] = "";
    append_defect(defects, sizeof defects, report->boundary_edges, "boundary edge",
                  "boundary edges");
    append_defect(defects, sizeof defects, report->nonmanifold_edges, "non-manifold edge",
                  "non-manifold edges");
    append_defect(defects, sizeof defects, report->misoriented_edges, "misoriented edge",
                  "misoriented edges");
    append_defect(defects, sizeof defects, report->degenerate_triangles, "degenerate triangle",
                  "degenerate triangles");
    append_defect(defects, sizeof defects, report->nonfinite_vertices, "non-finite vertex",
                  "non-finite vertices");
    if (!defects[0] && mesh->triangle_count == 0)
        snprintf(defects, sizeof defects, "no triangles");
    else if (!defects[0])
        /* Well-formed but with inward normals (or flat): the volume tells. */
        snprintf(defects, sizeof defects, "signed volume %g is not positive (inside out?)",
                 report->signed_volume);
    return glcollide_fail(GLCOLLIDE_ERROR_INVALID_MESH, "%s: not a closed solid: %s", name,
                          defects);
}

/* ---------------------------------------------------------------- data meshes */

/* "dir/name" in a fresh string, or NULL. */
static char *join_path(const char *dir, const char *suffix, const char *name)
{
    size_t n = strlen(dir) + strlen(suffix) + strlen(name) + 2;
    char *path = malloc(n);
    if (path)
        snprintf(path, n, "%s%s/%s", dir, suffix, name);
    return path;
}

int glcollide_mesh_find_data_quiet(const char *file_name, char *buf, size_t size, char *tried,
                                   size_t tried_size)
{
    /* The search order of the header; the cache is where tests/cgal-meshes.sh puts them. */
    const char *env = getenv("GLCOLLIDE_MESH_DIR");
    const char *xdg = getenv("XDG_CACHE_HOME");
    const char *home = getenv("HOME");
    const char *dirs[2], *suffixes[2];
    int count = 0;
    if (env && *env) {
        dirs[count] = env;
        suffixes[count++] = "";
    }
    if (xdg && *xdg) {
        dirs[count] = xdg;
        suffixes[count++] = "/glcollide/meshes";
    } else if (home && *home) {
        dirs[count] = home;
        suffixes[count++] = "/.cache/glcollide/meshes";
    }
    snprintf(tried, tried_size, "%s",
             count ? "" : "no directory: GLCOLLIDE_MESH_DIR, XDG_CACHE_HOME and HOME unset");
    for (int i = 0; i < count; i++) {
        char *path = join_path(dirs[i], suffixes[i], file_name);
        if (!path)
            return glcollide_fail(GLCOLLIDE_ERROR_OUT_OF_MEMORY,
                                  "glcollide_mesh_find_data: out of memory");
        struct stat info;
        if (stat(path, &info) == 0 && S_ISREG(info.st_mode)) {
            size_t n = strlen(path) + 1;
            if (n > size) {
                int status =
                    glcollide_fail(GLCOLLIDE_ERROR_LIMIT,
                                   "%s: path needs %zu bytes, buffer has %zu", path, n, size);
                free(path);
                return status;
            }
            memcpy(buf, path, n);
            free(path);
            return GLCOLLIDE_OK;
        }
        free(path);
        size_t used = strlen(tried);
        if (used < tried_size)
            snprintf(tried + used, tried_size - used, "%s%s%s", used ? ", " : "", dirs[i],
                     suffixes[i]);
    }
    return GLCOLLIDE_ERROR_IO;
}

int glcollide_mesh_find_data(const char *file_name, char *buf, size_t size)
{
    if (!file_name || !*file_name || !buf)
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT, "glcollide_mesh_find_data: %s",
                              !buf ? "buf is NULL" : "no file name");
    char tried[1024];
    int status = glcollide_mesh_find_data_quiet(file_name, buf, size, tried, sizeof tried);
    if (status != GLCOLLIDE_ERROR_IO)
        return status;
    return glcollide_fail(GLCOLLIDE_ERROR_IO,
                          "data mesh %s not found in %s (run tests/cgal-meshes.sh)", file_name,
                          tried);
}

/* ---------------------------------------------------------------- OFF output */

/* %.17g reads back to the same double; the locale's decimal point is put
 * back to '.' so files are the same whatever setlocale() a program made. */
static void format_double(char *buf, size_t size, double value)
{
    snprintf(buf, size, "%.17g", value);
    const char *point = localeconv()->decimal_point;
    if (!point || (point[0] == '.' && point[1] == '\0'))
        return;
    char *found = strstr(buf, point);
    if (found) {
        size_t n = strlen(point);
        *found = '.';
        memmove(found + 1, found + n, strlen(found + n) + 1);
    }
}

int glcollide_mesh_save_off(const glcollide_mesh *mesh, const char *path)
{
    if (!mesh || !path)
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                              "glcollide_mesh_save_off: %s is NULL", mesh ? "path" : "mesh");
    for (size_t i = 0; i < 3 * mesh->vertex_count; i++)
        if (!isfinite(mesh->positions[i]))
            return glcollide_fail(GLCOLLIDE_ERROR_INVALID_MESH,
                                  "%s: vertex %zu has a non-finite coordinate",
                                  mesh->name ? mesh->name : "mesh", i / 3);
    FILE *file = fopen(path, "w");
    if (!file)
        return glcollide_fail(GLCOLLIDE_ERROR_IO, "%s: cannot open for writing: %s", path,
                              strerror(errno));
    fprintf(file, "OFF\n%zu %zu 0\n", mesh->vertex_count, mesh->triangle_count);
    for (size_t v = 0; v < mesh->vertex_count; v++) {
        char x[40], y[40], z[40];
        format_double(x, sizeof x, mesh->positions[3 * v]);
        format_double(y, sizeof y, mesh->positions[3 * v + 1]);
        format_double(z, sizeof z, mesh->positions[3 * v + 2]);
        fprintf(file, "%s %s %s\n", x, y, z);
    }
    for (size_t t = 0; t < mesh->triangle_count; t++) {
        const uint32_t *tri = mesh->triangles + 3 * t;
        fprintf(file, "3 %u %u %u\n", (unsigned)tri[0], (unsigned)tri[1], (unsigned)tri[2]);
    }
    int error = ferror(file) ? (errno ? errno : EIO) : 0;
    if (fclose(file) != 0 && !error)
        error = errno ? errno : EIO;
    if (error)
        return glcollide_fail(GLCOLLIDE_ERROR_IO, "%s: write failed: %s", path, strerror(error));
    return GLCOLLIDE_OK;
}

int glcollide_mesh_fit(glcollide_mesh *mesh, double size)
{
    if (!mesh || !(size > 0) || !isfinite(size))
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT, "mesh: fit needs a mesh and a size > 0");
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (size_t v = 0; v < mesh->vertex_count; v++)
        for (int k = 0; k < 3; k++) {
            lo[k] = fmin(lo[k], mesh->positions[3 * v + k]);
            hi[k] = fmax(hi[k], mesh->positions[3 * v + k]);
        }
    double extent = fmax(hi[0] - lo[0], fmax(hi[1] - lo[1], hi[2] - lo[2]));
    if (!(extent > 0) || !isfinite(extent))
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                              "mesh %s: cannot fit a box of size %g", mesh->name ? mesh->name : "?",
                              extent);
    for (size_t v = 0; v < mesh->vertex_count; v++)
        for (int k = 0; k < 3; k++)
            mesh->positions[3 * v + k] =
                (mesh->positions[3 * v + k] - 0.5 * (lo[k] + hi[k])) * size / extent;
    return GLCOLLIDE_OK;
}
