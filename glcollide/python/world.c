/* SPDX-License-Identifier: MIT */
/*
 * glcollide.World: the C world (glcollide_world) from Python. Meshes are
 * NumPy arrays the world reads in place (kept alive by the World; converted
 * once where their dtype or layout does not fit); objects are instances of
 * them, posed one at a time or many in one call (set_poses); queries,
 * contacts and distances answer on the world as it stands, with the GIL
 * released while the C code runs.
 *
 * Threads: the C world must not be used by two threads at once, and with
 * the GIL released two Python threads could; each World has a lock, taken
 * around every use (waited for without the GIL). The GPU methods get an EGL
 * context of the World's own on first use, made current around each query
 * and released after, so any thread may ask next.
 */
#include "python/module.h"

#include <math.h>
#include <pythread.h>
#include <stdio.h>
#include <string.h>

/* A registered mesh: the library's view of two arrays the World keeps. */
typedef struct world_mesh {
    glcollide_mesh mesh;
    PyArrayObject *vertices, *faces;
    glcollide_aabb bounds; /* of the vertices the faces use (object space) */
    char name[32];
} world_mesh;

typedef struct world_object {
    PyObject_HEAD glcollide_world *world;
    glcollide_context *context; /* GPU methods; made on first need */
    PyThread_type_lock lock;
    world_mesh **meshes; /* each allocated alone: the C world holds pointers to them */
    size_t mesh_count, mesh_capacity;
    glcollide_query_result result; /* reused query after query */
    glcollide_contact *contacts;
    size_t contact_capacity;
    glcollide_query_stats stats; /* of the last query */
} world_object;

/* ------------------------------------------------------------ lock */

static void world_lock(world_object *w)
{
    if (!PyThread_acquire_lock(w->lock, NOWAIT_LOCK)) {
        Py_BEGIN_ALLOW_THREADS PyThread_acquire_lock(w->lock, WAIT_LOCK);
        Py_END_ALLOW_THREADS
    }
}

static void world_unlock(world_object *w)
{
    PyThread_release_lock(w->lock);
}

/* ------------------------------------------------------------ lifetime */

static PyObject *world_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
    static char *keywords[] = {NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, ":World", keywords))
        return NULL;
    world_object *w = (world_object *)type->tp_alloc(type, 0);
    if (!w)
        return NULL;
    if (!(w->lock = PyThread_allocate_lock())) {
        Py_DECREF(w);
        return PyErr_NoMemory();
    }
    glcollide_python_capture_begin();
    int status = glcollide_world_create(&w->world);
    glcollide_python_capture_end();
    if (status != GLCOLLIDE_OK) {
        Py_DECREF(w);
        return glcollide_python_raise(status);
    }
    return (PyObject *)w;
}

static void world_dealloc(world_object *w)
{
    glcollide_query_result_clear(&w->result);
    glcollide_world_destroy(&w->world);
    glcollide_context_destroy(&w->context);
    for (size_t m = 0; m < w->mesh_count; m++) {
        Py_XDECREF(w->meshes[m]->vertices);
        Py_XDECREF(w->meshes[m]->faces);
        PyMem_Free(w->meshes[m]);
    }
    PyMem_Free(w->meshes);
    PyMem_Free(w->contacts);
    if (w->lock)
        PyThread_free_lock(w->lock);
    Py_TYPE(w)->tp_free((PyObject *)w);
}

/* ------------------------------------------------------------ meshes */

static int reserve_meshes(world_object *w)
{
    if (w->mesh_count < w->mesh_capacity)
        return 0;
    size_t capacity = w->mesh_capacity ? 2 * w->mesh_capacity : 8;
    world_mesh **meshes = PyMem_Realloc(w->meshes, capacity * sizeof *meshes);
    if (!meshes) {
        PyErr_NoMemory();
        return -1;
    }
    w->meshes = meshes;
    w->mesh_capacity = capacity;
    return 0;
}

/* The box of the vertices the faces use (indices checked by the caller). */
static void faces_bounds(const glcollide_mesh *mesh, glcollide_aabb *box)
{
    for (int k = 0; k < 3; k++) {
        box->min[k] = INFINITY;
        box->max[k] = -INFINITY;
    }
    for (size_t i = 0; i < 3 * mesh->triangle_count; i++) {
        const double *p = mesh->positions + 3 * (size_t)mesh->triangles[i];
        for (int k = 0; k < 3; k++) {
            box->min[k] = fmin(box->min[k], p[k]);
            box->max[k] = fmax(box->max[k], p[k]);
        }
    }
}

static PyObject *world_add_mesh(world_object *w, PyObject *args, PyObject *kwargs)
{
    static char *keywords[] = {"vertices", "faces", NULL};
    PyObject *vertices_in, *faces_in;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO:add_mesh", keywords, &vertices_in,
                                     &faces_in))
        return NULL;
    world_mesh *entry = PyMem_Calloc(1, sizeof *entry);
    if (!entry)
        return PyErr_NoMemory();
    entry->vertices = glcollide_python_points(vertices_in, "vertices");
    entry->faces = entry->vertices ? glcollide_python_faces(faces_in, "faces") : NULL;
    if (!entry->faces || reserve_meshes(w)) {
        Py_XDECREF(entry->vertices);
        Py_XDECREF(entry->faces);
        PyMem_Free(entry);
        return NULL;
    }
    snprintf(entry->name, sizeof entry->name, "mesh %zu", w->mesh_count);
    entry->mesh = (glcollide_mesh){
        .positions = PyArray_DATA(entry->vertices),
        .triangles = PyArray_DATA(entry->faces),
        .vertex_count = (size_t)PyArray_DIM(entry->vertices, 0),
        .triangle_count = (size_t)PyArray_DIM(entry->faces, 0),
        .name = entry->name,
    };
    uint32_t index = 0;
    world_lock(w);
    glcollide_python_capture_begin();
    int status;
    Py_BEGIN_ALLOW_THREADS status = glcollide_world_add_mesh(w->world, &entry->mesh, &index);
    if (status == GLCOLLIDE_OK)
        faces_bounds(&entry->mesh, &entry->bounds);
    Py_END_ALLOW_THREADS glcollide_python_capture_end();
    if (status == GLCOLLIDE_OK)
        w->meshes[w->mesh_count++] = entry;
    world_unlock(w);
    if (status != GLCOLLIDE_OK) {
        Py_DECREF(entry->vertices);
        Py_DECREF(entry->faces);
        PyMem_Free(entry);
        return glcollide_python_raise(status);
    }
    return PyLong_FromUnsignedLong(index);
}

/* A mesh index argument in range. */
static int mesh_index(world_object *w, PyObject *obj, uint32_t *out)
{
    unsigned long long value = PyLong_AsUnsignedLongLong(obj);
    if (PyErr_Occurred() && PyErr_ExceptionMatches(PyExc_OverflowError)) {
        PyErr_Clear();
        value = (unsigned long long)-1;
    }
    if (PyErr_Occurred())
        return -1;
    if (value >= w->mesh_count) {
        glcollide_python_invalid("no mesh %lld (%zu meshes)", (long long)value, w->mesh_count);
        return -1;
    }
    *out = (uint32_t)value;
    return 0;
}

static PyObject *world_mesh_changed(world_object *w, PyObject *args, PyObject *kwargs)
{
    static char *keywords[] = {"mesh", "first", "count", NULL};
    PyObject *mesh_obj, *count_obj = Py_None;
    Py_ssize_t first = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|nO:mesh_changed", keywords, &mesh_obj, &first,
                                     &count_obj))
        return NULL;
    uint32_t m;
    if (mesh_index(w, mesh_obj, &m))
        return NULL;
    size_t vertex_count = w->meshes[m]->mesh.vertex_count;
    Py_ssize_t count =
        count_obj == Py_None ? (Py_ssize_t)vertex_count - first : PyLong_AsSsize_t(count_obj);
    if (count == -1 && PyErr_Occurred())
        return NULL;
    if (first < 0 || count < 0)
        return glcollide_python_invalid("mesh_changed: first and count must be >= 0");
    world_lock(w);
    glcollide_python_capture_begin();
    int status;
    Py_BEGIN_ALLOW_THREADS status =
        glcollide_world_mesh_changed(w->world, m, (size_t)first, (size_t)count);
    if (status == GLCOLLIDE_OK)
        faces_bounds(&w->meshes[m]->mesh, &w->meshes[m]->bounds);
    Py_END_ALLOW_THREADS glcollide_python_capture_end();
    world_unlock(w);
    if (status != GLCOLLIDE_OK)
        return glcollide_python_raise(status);
    Py_RETURN_NONE;
}

static PyObject *world_mesh_arrays(world_object *w, PyObject *args)
{
    PyObject *mesh_obj;
    uint32_t m;
    if (!PyArg_ParseTuple(args, "O:mesh_arrays", &mesh_obj) || mesh_index(w, mesh_obj, &m))
        return NULL;
    return Py_BuildValue("(OO)", w->meshes[m]->vertices, w->meshes[m]->faces);
}

/* ------------------------------------------------------------ objects */

/* translation and rotation arguments (None: the identity). */
static int pose_arguments(PyObject *translation, PyObject *rotation, double t[3], double q[4])
{
    static const double origin[3] = {0, 0, 0}, identity[4] = {1, 0, 0, 0};
    memcpy(t, origin, sizeof origin);
    memcpy(q, identity, sizeof identity);
    if (translation && translation != Py_None &&
        glcollide_python_vector(translation, "translation", t, 3))
        return -1;
    if (rotation && rotation != Py_None && glcollide_python_vector(rotation, "rotation_wxyz", q, 4))
        return -1;
    return 0;
}

static PyObject *world_add_object(world_object *w, PyObject *args, PyObject *kwargs)
{
    static char *keywords[] = {"mesh", "translation", "rotation_wxyz", NULL};
    PyObject *mesh_obj, *translation = NULL, *rotation = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|OO:add_object", keywords, &mesh_obj,
                                     &translation, &rotation))
        return NULL;
    uint32_t m, index = 0;
    double t[3], q[4];
    if (mesh_index(w, mesh_obj, &m) || pose_arguments(translation, rotation, t, q))
        return NULL;
    world_lock(w);
    glcollide_python_capture_begin();
    int status = glcollide_world_add_object(w->world, m, t, q, &index);
    glcollide_python_capture_end();
    world_unlock(w);
    if (status != GLCOLLIDE_OK)
        return glcollide_python_raise(status);
    return PyLong_FromUnsignedLong(index);
}

/* An object index argument in range (the World's lock held or not: object
 * counts only change under the GIL). */
static int object_index(world_object *w, PyObject *obj, const char *what, uint32_t *out)
{
    size_t count = glcollide_world_object_count(w->world);
    long long value = PyLong_AsLongLong(obj);
    if (value == -1 && PyErr_Occurred()) {
        if (!PyErr_ExceptionMatches(PyExc_OverflowError))
            return -1;
        PyErr_Clear();
        value = LLONG_MAX;
    }
    if (value < 0 || (unsigned long long)value >= count) {
        glcollide_python_invalid("%s: no object %lld (%zu objects)", what, value, count);
        return -1;
    }
    *out = (uint32_t)value;
    return 0;
}

static PyObject *world_set_pose(world_object *w, PyObject *args, PyObject *kwargs)
{
    static char *keywords[] = {"object", "translation", "rotation_wxyz", NULL};
    PyObject *object_obj, *translation, *rotation;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OOO:set_pose", keywords, &object_obj,
                                     &translation, &rotation))
        return NULL;
    uint32_t o;
    double t[3], q[4];
    if (object_index(w, object_obj, "set_pose", &o) || pose_arguments(translation, rotation, t, q))
        return NULL;
    world_lock(w);
    glcollide_python_capture_begin();
    int status = glcollide_world_set_pose(w->world, o, t, q);
    glcollide_python_capture_end();
    world_unlock(w);
    if (status != GLCOLLIDE_OK)
        return glcollide_python_raise(status);
    Py_RETURN_NONE;
}

/* Poses objects[i] from rows of poses; on an error the poses set so far are
 * put back, so a call changes all or nothing. */
static int set_poses_all(glcollide_world *world, const int64_t *objects, const double *poses,
                         size_t k, double *saved, size_t *failed)
{
    for (size_t i = 0; i < k; i++) {
        const glcollide_object *now = glcollide_world_object(world, (uint32_t)objects[i]);
        memcpy(saved + 7 * i, now->pose.translation, sizeof now->pose.translation);
        memcpy(saved + 7 * i + 3, now->pose.rotation, sizeof now->pose.rotation);
    }
    for (size_t i = 0; i < k; i++) {
        const double *p = poses + 7 * i;
        int status = glcollide_world_set_pose(world, (uint32_t)objects[i], p, p + 3);
        if (status != GLCOLLIDE_OK) {
            *failed = i;
            while (i-- > 0)
                glcollide_world_set_pose(world, (uint32_t)objects[i], saved + 7 * i,
                                         saved + 7 * i + 3);
            return status;
        }
    }
    return GLCOLLIDE_OK;
}

static PyObject *world_set_poses(world_object *w, PyObject *args, PyObject *kwargs)
{
    static char *keywords[] = {"objects", "poses", NULL};
    PyObject *objects_in, *poses_in;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO:set_poses", keywords, &objects_in,
                                     &poses_in))
        return NULL;
    PyArrayObject *objects = glcollide_python_indices(objects_in, "set_poses: objects",
                                                      glcollide_world_object_count(w->world));
    PyArrayObject *poses =
        objects ? glcollide_python_doubles(poses_in, "set_poses: poses", -1, 7) : NULL;
    if (!poses) {
        Py_XDECREF(objects);
        return NULL;
    }
    size_t k = (size_t)PyArray_DIM(objects, 0);
    double *saved = NULL;
    if ((size_t)PyArray_DIM(poses, 0) != k)
        glcollide_python_invalid("set_poses: %zu objects but %ld poses", k,
                                 (long)PyArray_DIM(poses, 0));
    else if (!(saved = PyMem_Malloc(7 * k * sizeof *saved + 1)))
        PyErr_NoMemory();
    int status = GLCOLLIDE_OK;
    size_t failed = 0;
    if (saved) {
        const int64_t *ids = PyArray_DATA(objects);
        const double *rows = PyArray_DATA(poses);
        world_lock(w);
        glcollide_python_capture_begin();
        Py_BEGIN_ALLOW_THREADS status = set_poses_all(w->world, ids, rows, k, saved, &failed);
        Py_END_ALLOW_THREADS glcollide_python_capture_end();
        world_unlock(w);
    }
    PyMem_Free(saved);
    int64_t failed_object = status != GLCOLLIDE_OK ? ((int64_t *)PyArray_DATA(objects))[failed] : 0;
    Py_DECREF(objects);
    Py_DECREF(poses);
    if (!saved)
        return NULL;
    if (status != GLCOLLIDE_OK) {
        char prefix[96];
        snprintf(prefix, sizeof prefix, "set_poses: row %zu (object %lld): ", failed,
                 (long long)failed_object);
        return glcollide_python_raise_prefixed(status, prefix);
    }
    Py_RETURN_NONE;
}

static PyObject *world_add_objects(world_object *w, PyObject *args, PyObject *kwargs)
{
    static char *keywords[] = {"meshes", "poses", NULL};
    PyObject *meshes_in, *poses_in;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO:add_objects", keywords, &meshes_in,
                                     &poses_in))
        return NULL;
    PyArrayObject *meshes =
        glcollide_python_indices(meshes_in, "add_objects: meshes", w->mesh_count);
    PyArrayObject *poses =
        meshes ? glcollide_python_doubles(poses_in, "add_objects: poses", -1, 7) : NULL;
    if (!poses) {
        Py_XDECREF(meshes);
        return NULL;
    }
    size_t k = (size_t)PyArray_DIM(meshes, 0);
    if ((size_t)PyArray_DIM(poses, 0) != k) {
        Py_DECREF(meshes);
        Py_DECREF(poses);
        return glcollide_python_invalid("add_objects: %zu meshes but %ld poses", k,
                                        (long)PyArray_DIM(poses, 0));
    }
    const int64_t *ids = PyArray_DATA(meshes);
    const double *rows = PyArray_DATA(poses);
    world_lock(w);
    size_t before = glcollide_world_object_count(w->world), added = 0;
    int status = GLCOLLIDE_OK;
    glcollide_python_capture_begin();
    Py_BEGIN_ALLOW_THREADS for (; added < k && status == GLCOLLIDE_OK; added++) status =
        glcollide_world_add_object(w->world, (uint32_t)ids[added], rows + 7 * added,
                                   rows + 7 * added + 3, NULL);
    Py_END_ALLOW_THREADS glcollide_python_capture_end();
    world_unlock(w);
    Py_DECREF(meshes);
    Py_DECREF(poses);
    if (status != GLCOLLIDE_OK)
        return glcollide_python_raise(status);
    return PyLong_FromSize_t(before);
}

static PyObject *world_clear_objects(world_object *w, PyObject *unused)
{
    world_lock(w);
    glcollide_world_clear_objects(w->world);
    world_unlock(w);
    Py_RETURN_NONE;
}

static PyObject *world_poses(world_object *w, PyObject *unused)
{
    world_lock(w);
    size_t n = glcollide_world_object_count(w->world);
    npy_intp dims[2] = {(npy_intp)n, 7};
    PyObject *poses = PyArray_SimpleNew(2, dims, NPY_DOUBLE);
    npy_intp mdims[1] = {(npy_intp)n};
    PyObject *meshes = poses ? PyArray_SimpleNew(1, mdims, NPY_UINT32) : NULL;
    if (meshes) {
        double *rows = PyArray_DATA((PyArrayObject *)poses);
        uint32_t *mesh = PyArray_DATA((PyArrayObject *)meshes);
        for (size_t o = 0; o < n; o++) {
            const glcollide_object *object = glcollide_world_object(w->world, (uint32_t)o);
            memcpy(rows + 7 * o, object->pose.translation, sizeof object->pose.translation);
            memcpy(rows + 7 * o + 3, object->pose.rotation, sizeof object->pose.rotation);
            mesh[o] = object->mesh;
        }
    }
    world_unlock(w);
    if (!meshes) {
        Py_XDECREF(poses);
        return NULL;
    }
    return Py_BuildValue("(NN)", meshes, poses);
}

/* The world boxes of the objects: (n, 6) rows min x y z, max x y z. */
static PyObject *world_boxes(world_object *w, PyObject *unused)
{
    world_lock(w);
    size_t n = glcollide_world_object_count(w->world);
    npy_intp dims[2] = {(npy_intp)n, 6};
    PyObject *boxes = PyArray_SimpleNew(2, dims, NPY_DOUBLE);
    if (boxes) {
        double *rows = PyArray_DATA((PyArrayObject *)boxes);
        for (size_t o = 0; o < n; o++) {
            const glcollide_object *object = glcollide_world_object(w->world, (uint32_t)o);
            const glcollide_aabb *local = &w->meshes[object->mesh]->bounds;
            glcollide_aabb box;
            if (local->min[0] > local->max[0]) /* no faces: a box nothing meets */
                box = (glcollide_aabb){{NAN, NAN, NAN}, {NAN, NAN, NAN}};
            else
                glcollide_aabb_place(local, &object->pose, &box);
            memcpy(rows + 6 * o, box.min, sizeof box.min);
            memcpy(rows + 6 * o + 3, box.max, sizeof box.max);
        }
    }
    world_unlock(w);
    return boxes;
}

/* ------------------------------------------------------------ queries */

static int parse_level(const char *name, glcollide_level *level)
{
    if (!strcmp(name, "objects"))
        *level = GLCOLLIDE_LEVEL_OBJECTS;
    else if (!strcmp(name, "triangles"))
        *level = GLCOLLIDE_LEVEL_TRIANGLES;
    else {
        glcollide_python_invalid("query: unknown level '%s' (objects or triangles)", name);
        return -1;
    }
    return 0;
}

static int method_on_gpu(glcollide_method method)
{
    return method != GLCOLLIDE_METHOD_EXACT && method != GLCOLLIDE_METHOD_SAP;
}

/* The query with the lock held and the GIL released. */
static int run_query(world_object *w, const glcollide_query_options *options)
{
    int status = GLCOLLIDE_OK;
    int gpu = method_on_gpu(options->method);
    if (gpu)
        status = w->context ? glcollide_context_acquire(w->context)
                            : glcollide_context_create_egl(&w->context);
    if (status == GLCOLLIDE_OK)
        status = glcollide_world_query(w->world, gpu ? w->context : NULL, options, &w->result);
    if (gpu && w->context)
        glcollide_context_release(w->context);
    return status;
}

/*
 * pairs= of query, rows (k, 2) of object indices (converted before the
 * world's lock is taken: a conversion may run Python code) in any order,
 * each either way round, repeats allowed; into out (empty; the caller
 * clears it) sorted by (a, b) with a < b, once each, as the library takes
 * them. The lock held. -1 with an exception: an object paired with itself,
 * an index beyond the world's objects.
 */
static int query_pairs(world_object *w, PyArrayObject *rows, glcollide_pair_list *out)
{
    size_t n = (size_t)PyArray_DIM(rows, 0), objects = glcollide_world_object_count(w->world);
    const uint32_t *in = PyArray_DATA(rows);
    for (size_t k = 0; k < n; k++) {
        uint32_t a = in[2 * k], b = in[2 * k + 1];
        if (a == b || a >= objects || b >= objects) {
            glcollide_python_invalid(a == b ? "query: pair %zu pairs object %u with itself"
                                            : "query: pair %zu (%u, %u) names an object beyond "
                                              "the world's %zu",
                                     k, a, b, objects);
            return -1;
        }
        if (glcollide_pair_list_push(out, a < b ? a : b, a < b ? b : a) != GLCOLLIDE_OK) {
            PyErr_NoMemory();
            return -1;
        }
    }
    glcollide_pair_list_sort_unique(out);
    return 0;
}

static PyObject *world_query(world_object *w, PyObject *args, PyObject *kwargs)
{
    static char *keywords[] = {"method", "level", "distance", "resolution", "pairs", NULL};
    const char *method_name = "exact", *level_name = "objects";
    PyObject *pairs_in = Py_None;
    glcollide_query_options options = glcollide_query_default_options();
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|ssdiO:query", keywords, &method_name,
                                     &level_name, &options.distance, &options.resolution,
                                     &pairs_in))
        return NULL;
    glcollide_python_capture_begin();
    int known = glcollide_method_from_name(method_name, &options.method);
    glcollide_python_capture_end();
    if (known != GLCOLLIDE_OK) /* the library's message, naming the methods */
        return glcollide_python_raise(known);
    if (parse_level(level_name, &options.level))
        return NULL;
    PyArrayObject *rows = NULL;
    if (pairs_in != Py_None &&
        !(rows = glcollide_python_index_rows(pairs_in, "query: pairs", 2, "pair", "object")))
        return NULL;
    glcollide_pair_list pairs = {0};
    world_lock(w);
    int bad = rows && query_pairs(w, rows, &pairs);
    Py_XDECREF(rows);
    if (bad) {
        world_unlock(w);
        glcollide_pair_list_clear(&pairs);
        return NULL;
    }
    /* an empty list given: no pair (NULL would be the sweep) */
    static const glcollide_index_pair none = {0, 0};
    options.pairs = rows ? (pairs.count ? pairs.pairs : &none) : NULL;
    options.pair_count = pairs.count;
    glcollide_python_capture_begin();
    int status;
    Py_BEGIN_ALLOW_THREADS status = run_query(w, &options);
    Py_END_ALLOW_THREADS glcollide_python_capture_end();
    glcollide_pair_list_clear(&pairs);
    PyObject *out = NULL;
    if (status == GLCOLLIDE_OK) {
        w->stats = w->result.stats;
        if (options.level == GLCOLLIDE_LEVEL_TRIANGLES)
            out = glcollide_python_new_uint32((const uint32_t *)w->result.triangle_pairs,
                                              (npy_intp)w->result.triangle_pair_count, 4);
        else
            out = glcollide_python_new_uint32((const uint32_t *)w->result.pairs,
                                              (npy_intp)w->result.pair_count, 2);
    }
    world_unlock(w);
    if (status != GLCOLLIDE_OK)
        return glcollide_python_raise(status);
    return out;
}

static PyObject *world_stats(world_object *w, void *closure)
{
    const glcollide_query_stats *s = &w->stats;
    return Py_BuildValue(
        "{s:d,s:K,s:K,s:K,s:K,s:K,s:K,s:K,s:K,s:K}", "time_ms", s->time_ms, "aabb_pairs",
        (unsigned long long)s->aabb_pairs, "candidates", (unsigned long long)s->candidates,
        "triangle_tests", (unsigned long long)s->triangle_tests, "draw_calls",
        (unsigned long long)s->draw_calls, "gpu_syncs", (unsigned long long)s->gpu_syncs,
        "readback_bytes", (unsigned long long)s->readback_bytes, "triangles_rasterized",
        (unsigned long long)s->triangles_rasterized, "upload_bytes",
        (unsigned long long)s->upload_bytes, "compute_dispatches",
        (unsigned long long)s->compute_dispatches);
}

static PyObject *world_contacts(world_object *w, PyObject *args, PyObject *kwargs)
{
    static char *keywords[] = {"a", "b", "max_contacts", "return_triangles", NULL};
    PyObject *a_obj, *b_obj;
    Py_ssize_t max_contacts = 64;
    int return_triangles = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO|np:contacts", keywords, &a_obj, &b_obj,
                                     &max_contacts, &return_triangles))
        return NULL;
    uint32_t a, b;
    if (object_index(w, a_obj, "contacts", &a) || object_index(w, b_obj, "contacts", &b))
        return NULL;
    if (max_contacts < 0)
        return glcollide_python_invalid("contacts: max_contacts must be >= 0, got %zd",
                                        max_contacts);
    world_lock(w);
    if ((size_t)max_contacts > w->contact_capacity) {
        glcollide_contact *grown =
            PyMem_Realloc(w->contacts, (size_t)max_contacts * sizeof *w->contacts);
        if (!grown) {
            world_unlock(w);
            return PyErr_NoMemory();
        }
        w->contacts = grown;
        w->contact_capacity = (size_t)max_contacts;
    }
    size_t count = 0;
    int status;
    glcollide_python_capture_begin();
    Py_BEGIN_ALLOW_THREADS status =
        glcollide_world_contacts(w->world, a, b, (size_t)max_contacts, w->contacts, &count);
    Py_END_ALLOW_THREADS glcollide_python_capture_end();
    PyObject *out = NULL;
    if (status == GLCOLLIDE_OK) {
        npy_intp n = (npy_intp)count, dims3[2] = {n, 3}, dims2[2] = {n, 2};
        PyObject *points = PyArray_SimpleNew(2, dims3, NPY_DOUBLE);
        PyObject *normals = PyArray_SimpleNew(2, dims3, NPY_DOUBLE);
        PyObject *depths = PyArray_SimpleNew(1, dims3, NPY_DOUBLE);
        PyObject *triangles = PyArray_SimpleNew(2, dims2, NPY_UINT32);
        if (points && normals && depths && triangles) {
            for (size_t i = 0; i < count; i++) {
                const glcollide_contact *c = &w->contacts[i];
                memcpy((double *)PyArray_DATA((PyArrayObject *)points) + 3 * i, c->position,
                       sizeof c->position);
                memcpy((double *)PyArray_DATA((PyArrayObject *)normals) + 3 * i, c->normal,
                       sizeof c->normal);
                ((double *)PyArray_DATA((PyArrayObject *)depths))[i] = c->depth;
                uint32_t *t = (uint32_t *)PyArray_DATA((PyArrayObject *)triangles) + 2 * i;
                t[0] = c->triangle_a;
                t[1] = c->triangle_b;
            }
            out = return_triangles ? Py_BuildValue("(NNNN)", points, normals, depths, triangles)
                                   : Py_BuildValue("(NNN)", points, normals, depths);
            if (!return_triangles)
                Py_DECREF(triangles);
        } else {
            Py_XDECREF(points);
            Py_XDECREF(normals);
            Py_XDECREF(depths);
            Py_XDECREF(triangles);
        }
    }
    world_unlock(w);
    if (status != GLCOLLIDE_OK)
        return glcollide_python_raise(status);
    return out;
}

/* A triangle index, None for GLCOLLIDE_NO_TRIANGLE. */
static PyObject *triangle_object(uint32_t triangle)
{
    if (triangle == GLCOLLIDE_NO_TRIANGLE)
        Py_RETURN_NONE;
    return PyLong_FromUnsignedLong(triangle);
}

static PyObject *world_distance(world_object *w, PyObject *args, PyObject *kwargs)
{
    static char *keywords[] = {"a", "b", "upper_bound", "return_triangles", NULL};
    PyObject *a_obj, *b_obj;
    double upper_bound = INFINITY;
    int return_triangles = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO|dp:distance", keywords, &a_obj, &b_obj,
                                     &upper_bound, &return_triangles))
        return NULL;
    uint32_t a, b;
    if (object_index(w, a_obj, "distance", &a) || object_index(w, b_obj, "distance", &b))
        return NULL;
    glcollide_distance_result result;
    memset(&result, 0, sizeof result);
    int status;
    world_lock(w);
    glcollide_python_capture_begin();
    Py_BEGIN_ALLOW_THREADS status = glcollide_world_distance(w->world, a, b, upper_bound, &result);
    Py_END_ALLOW_THREADS glcollide_python_capture_end();
    world_unlock(w);
    if (status != GLCOLLIDE_OK)
        return glcollide_python_raise(status);
    PyObject *pa = glcollide_python_new_doubles(result.point_a, 3, 0);
    PyObject *pb = glcollide_python_new_doubles(result.point_b, 3, 0);
    if (!pa || !pb) {
        Py_XDECREF(pa);
        Py_XDECREF(pb);
        return NULL;
    }
    if (return_triangles)
        return Py_BuildValue("(dNN(NN))", result.distance, pa, pb,
                             triangle_object(result.triangle_a),
                             triangle_object(result.triangle_b));
    return Py_BuildValue("(dNN)", result.distance, pa, pb);
}

static PyObject *world_object_count(world_object *w, void *closure)
{
    return PyLong_FromSize_t(glcollide_world_object_count(w->world));
}

static PyObject *world_mesh_count(world_object *w, void *closure)
{
    return PyLong_FromSize_t(w->mesh_count);
}

/* ------------------------------------------------------------ type */

#define METHOD(name, flags, doc)                                                                   \
    {                                                                                              \
#name, (PyCFunction)(void (*)(void))world_##name, flags, doc                               \
    }

static PyMethodDef world_methods[] = {
    METHOD(add_mesh, METH_VARARGS | METH_KEYWORDS,
           "add_mesh(vertices, faces) -> mesh index\n\n"
           "Registers a mesh: vertices (n, 3) float64, faces (m, 3) vertex indices\n"
           "(counter-clockwise seen from outside). Arrays of exactly that dtype\n"
           "and C layout are read in place, no copy (the World keeps them; after\n"
           "rewriting vertices in place, call mesh_changed); others are converted\n"
           "once. Raises InvalidInput for a wrong shape, an index out of range or a\n"
           "non-finite coordinate, TypeError for a dtype that is not numbers."),
    METHOD(mesh_changed, METH_VARARGS | METH_KEYWORDS,
           "mesh_changed(mesh, first=0, count=None)\n\n"
           "Vertices first .. first + count - 1 of the mesh's array (mesh_arrays)\n"
           "were rewritten in place (same faces): its BVH and boxes follow."),
    METHOD(mesh_arrays, METH_VARARGS,
           "mesh_arrays(mesh) -> (vertices, faces)\n\nThe arrays the World reads for the mesh."),
    METHOD(add_object, METH_VARARGS | METH_KEYWORDS,
           "add_object(mesh, translation=(0, 0, 0), rotation_wxyz=(1, 0, 0, 0)) -> index\n\n"
           "Adds an instance of a mesh. The rotation is a unit quaternion w x y z:\n"
           "one within 1e-6 of unit length is normalised, any other (or a\n"
           "non-finite pose) raises InvalidInput."),
    METHOD(add_objects, METH_VARARGS | METH_KEYWORDS,
           "add_objects(meshes, poses) -> index of the first\n\n"
           "Adds k objects in one call: meshes (k,) mesh indices, poses (k, 7)\n"
           "translation and quaternion w x y z each."),
    METHOD(
        set_pose, METH_VARARGS | METH_KEYWORDS,
        "set_pose(object, translation, rotation_wxyz)\n\nMoves one object (checks as add_object)."),
    METHOD(set_poses, METH_VARARGS | METH_KEYWORDS,
           "set_poses(objects, poses)\n\n"
           "Moves many objects in one call: objects (k,) indices, poses (k, 7)\n"
           "translation and quaternion w x y z each, float64 C-contiguous read in\n"
           "place. All or nothing: a bad row raises InvalidInput naming it and\n"
           "leaves every pose as it was."),
    METHOD(clear_objects, METH_NOARGS, "clear_objects()\n\nRemoves every object (meshes stay)."),
    METHOD(poses, METH_NOARGS,
           "poses() -> (mesh_indices, poses)\n\n"
           "Each object's mesh (k,) and pose (k, 7), rotations as normalised."),
    METHOD(boxes, METH_NOARGS,
           "boxes() -> (n, 6) float64\n\n"
           "Each object's world box (min x y z, max x y z), as the world bounds it:\n"
           "the mesh's box turned by the pose (NaN for a mesh without faces)."),
    METHOD(query, METH_VARARGS | METH_KEYWORDS,
           "query(method='exact', level='objects', distance=0.0, resolution=1024)\n\n"
           "Which objects touch: (k, 2) uint32 pairs i < j, sorted. level='triangles'\n"
           "gives (k, 4) rows (object_a, triangle_a, object_b, triangle_b) grouped by\n"
           "object pair in that order. method: exact (CPU oracle: surfaces meet or\n"
           "one solid contains the other), sap (box overlaps), or the GPU methods\n"
           "cullide, far, stencil, convex (an EGL context is made on first use).\n"
           "distance > 0: pairs closer than that. Work counters: World.stats."),
    METHOD(contacts, METH_VARARGS | METH_KEYWORDS,
           "contacts(a, b, max_contacts=64, return_triangles=False)\n"
           "    -> (points (n, 3), normals (n, 3), depths (n,)[, triangles (n, 2)])\n\n"
           "Contact points between objects a and b, as the ODE plugin gives them:\n"
           "normals unit, from b toward a; depths >= 0; triangles the pair of mesh\n"
           "triangles of each. n is 0 when the solids do not touch."),
    METHOD(distance, METH_VARARGS | METH_KEYWORDS,
           "distance(a, b, upper_bound=inf, return_triangles=False)\n"
           "    -> (d, point_a (3,), point_b (3,)[, (triangle_a, triangle_b)])\n\n"
           "The distance between objects a and b (a closed mesh stands for its\n"
           "solid, an open one for its surface) and the closest\n"
           "points (world space); 0 when the solids touch, overlap or one contains\n"
           "the other (then point_a = point_b, a point of both); inf for a mesh\n"
           "without faces. upper_bound: the search may stop once the distance is\n"
           "known to be larger (then d > upper_bound, a lower bound, points NaN).\n"
           "Triangles are None where no triangle is meant (the outer solid of a\n"
           "containment, a search stopped by upper_bound)."),
    {NULL, NULL, 0, NULL}};

static PyGetSetDef world_getset[] = {
    {"object_count", (getter)world_object_count, NULL, "Number of objects.", NULL},
    {"mesh_count", (getter)world_mesh_count, NULL, "Number of meshes.", NULL},
    {"stats", (getter)world_stats, NULL, "Work counters of the last query (a dict).", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

PyTypeObject glcollide_python_world_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "glcollide.World",
    .tp_basicsize = sizeof(world_object),
    .tp_dealloc = (destructor)world_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "World()\n\n"
              "A persistent collision world: meshes registered once, objects (instances\n"
              "of meshes) posed frame after frame, queries answered on it. Methods release\n"
              "the GIL while the library works; one World may be used from several\n"
              "threads (calls take turns).",
    .tp_methods = world_methods,
    .tp_getset = world_getset,
    .tp_new = world_new,
};
