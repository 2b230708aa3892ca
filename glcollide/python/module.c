/* SPDX-License-Identifier: MIT */
/*
 * The Python module `glcollide` (its C part, glcollide._glcollide): meshes
 * and scenes loaded into NumPy arrays, and the World (world.c) over the C
 * world. The pure-Python part (glcollide/__init__.py, collision.py) adds
 * trimesh's CollisionManager on top.
 *
 * Errors: every failed library call raises an exception carrying the
 * library's own message (the one it logs), captured by a log callback that
 * the module installs at import: glcollide.Error, or InvalidInput (also a
 * ValueError) for bad arguments, meshes, files and limits, or FileError
 * (also an OSError) for files that cannot be read. Warnings, and messages
 * logged outside the module's calls (an ODE plugin in the same process),
 * are printed as the library's default callback prints them.
 *
 * The GIL is released around every library call that may take time (mesh
 * loading, queries, contacts, distances), so other Python threads run
 * meanwhile; the log capture is per thread for that reason.
 */
#define GLCOLLIDE_PYTHON_IMPORTS_ARRAY
#include "python/module.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

PyObject *glcollide_python_error;
PyObject *glcollide_python_invalid_input;
PyObject *glcollide_python_file_error;

/* ------------------------------------------------------------ log capture */

typedef struct capture {
    int active;
    int have;
    char message[2048];
} capture;

static _Thread_local capture this_thread;

static const char *level_name(glcollide_log_level level)
{
    switch (level) {
    case GLCOLLIDE_LOG_ERROR: return "error";
    case GLCOLLIDE_LOG_WARNING: return "warning";
    case GLCOLLIDE_LOG_INFO: return "info";
    case GLCOLLIDE_LOG_DEBUG: return "debug";
    }
    return "message";
}

/* Called by the library, possibly without the GIL: touches only this
 * thread's capture and stderr. */
static void log_message(glcollide_log_level level, const char *message, void *user)
{
    capture *c = &this_thread;
    if (c->active && level == GLCOLLIDE_LOG_ERROR) {
        snprintf(c->message, sizeof c->message, "%s", message);
        c->have = 1;
        return;
    }
    fprintf(stderr, "glcollide: %s: %s\n", level_name(level), message);
}

void glcollide_python_log_install(void)
{
    glcollide_set_log_callback(log_message, NULL);
}

void glcollide_python_capture_begin(void)
{
    this_thread.active = 1;
    this_thread.have = 0;
}

void glcollide_python_capture_end(void)
{
    this_thread.active = 0;
}

PyObject *glcollide_python_raise_prefixed(int status, const char *prefix)
{
    char message[sizeof this_thread.message + 128];
    snprintf(message, sizeof message, "%s%s", prefix,
             this_thread.have ? this_thread.message : glcollide_status_string(status));
    this_thread.have = 0;
    PyObject *type = glcollide_python_error;
    switch (status) {
    case GLCOLLIDE_ERROR_INVALID_ARGUMENT:
    case GLCOLLIDE_ERROR_INVALID_MESH:
    case GLCOLLIDE_ERROR_PARSE:
    case GLCOLLIDE_ERROR_LIMIT: type = glcollide_python_invalid_input; break;
    case GLCOLLIDE_ERROR_IO: type = glcollide_python_file_error; break;
    case GLCOLLIDE_ERROR_OUT_OF_MEMORY: PyErr_SetString(PyExc_MemoryError, message); return NULL;
    default: break;
    }
    PyObject *error = PyObject_CallFunction(type, "s", message);
    if (!error)
        return NULL;
    PyObject *code = PyLong_FromLong(status);
    PyObject *name = PyUnicode_FromString(glcollide_status_string(status));
    if (code && name && PyObject_SetAttrString(error, "status", code) == 0 &&
        PyObject_SetAttrString(error, "status_name", name) == 0)
        PyErr_SetObject(type, error);
    Py_XDECREF(code);
    Py_XDECREF(name);
    Py_DECREF(error);
    return NULL;
}

PyObject *glcollide_python_raise(int status)
{
    return glcollide_python_raise_prefixed(status, "");
}

PyObject *glcollide_python_invalid(const char *format, ...)
{
    char message[1024];
    va_list args;
    va_start(args, format);
    vsnprintf(message, sizeof message, format, args);
    va_end(args);
    PyErr_SetString(glcollide_python_invalid_input, message);
    return NULL;
}

/* ------------------------------------------------------------ meshes */

static void mesh_capsule_free(PyObject *capsule)
{
    glcollide_mesh *mesh = PyCapsule_GetPointer(capsule, "glcollide_mesh");
    glcollide_mesh_destroy(&mesh);
}

/* (vertices, faces) arrays over mesh's buffers, with owner (a capsule
 * that frees them) as the base of both: no copy. Steals the reference to
 * owner. */
static PyObject *arrays_over(const glcollide_mesh *mesh, PyObject *owner)
{
    npy_intp vdims[2] = {(npy_intp)mesh->vertex_count, 3};
    npy_intp fdims[2] = {(npy_intp)mesh->triangle_count, 3};
    PyObject *vertices = PyArray_SimpleNewFromData(2, vdims, NPY_DOUBLE, mesh->positions);
    PyObject *faces = PyArray_SimpleNewFromData(2, fdims, NPY_UINT32, mesh->triangles);
    int ok = vertices && faces;
    if (ok) {
        Py_INCREF(owner);
        ok = PyArray_SetBaseObject((PyArrayObject *)vertices, owner) == 0;
    }
    if (ok) {
        Py_INCREF(owner);
        ok = PyArray_SetBaseObject((PyArrayObject *)faces, owner) == 0;
    }
    Py_DECREF(owner);
    if (!ok) {
        Py_XDECREF(vertices);
        Py_XDECREF(faces);
        return NULL;
    }
    return Py_BuildValue("(NN)", vertices, faces);
}

/* (vertices, faces) arrays over the mesh's own buffers, which a capsule
 * frees when both arrays are gone: no copy. Takes the mesh (freed on
 * error). */
static PyObject *mesh_arrays(glcollide_mesh *mesh)
{
    PyObject *capsule = PyCapsule_New(mesh, "glcollide_mesh", mesh_capsule_free);
    if (!capsule) {
        glcollide_mesh_destroy(&mesh);
        return NULL;
    }
    return arrays_over(mesh, capsule);
}

/* A path argument: str, bytes or os.PathLike, as bytes. */
static int path_bytes(PyObject *obj, PyObject **out)
{
    return PyUnicode_FSConverter(obj, out);
}

static PyObject *load_mesh(PyObject *self, PyObject *args, PyObject *kwargs)
{
    static char *keywords[] = {"path", "scale", NULL};
    PyObject *path = NULL;
    double scale = 1.0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O&|d:load_mesh", keywords, path_bytes, &path,
                                     &scale))
        return NULL;
    glcollide_mesh *mesh = NULL;
    int status;
    const char *file = PyBytes_AS_STRING(path);
    glcollide_python_capture_begin();
    Py_BEGIN_ALLOW_THREADS status = glcollide_mesh_load(file, scale, &mesh);
    Py_END_ALLOW_THREADS glcollide_python_capture_end();
    Py_DECREF(path);
    if (status != GLCOLLIDE_OK)
        return glcollide_python_raise(status);
    return mesh_arrays(mesh);
}

static void world_capsule_free(PyObject *capsule)
{
    glcollide_world *world = PyCapsule_GetPointer(capsule, "glcollide_world");
    glcollide_world_destroy(&world);
}

/* The arrays of the loaded world's meshes, which stay the world's: a
 * capsule destroys it when the last array is gone. Takes the world. */
static PyObject *scene_meshes(glcollide_world *world)
{
    PyObject *capsule = PyCapsule_New(world, "glcollide_world", world_capsule_free);
    if (!capsule) {
        glcollide_world_destroy(&world);
        return NULL;
    }
    size_t count = glcollide_world_mesh_count(world);
    PyObject *list = PyList_New((Py_ssize_t)count);
    for (size_t m = 0; list && m < count; m++) {
        Py_INCREF(capsule);
        PyObject *pair = arrays_over(glcollide_world_mesh(world, (uint32_t)m), capsule);
        if (!pair) {
            Py_CLEAR(list);
            break;
        }
        PyList_SET_ITEM(list, (Py_ssize_t)m, pair);
    }
    Py_DECREF(capsule);
    return list;
}

static PyObject *load_scene(PyObject *self, PyObject *args, PyObject *kwargs)
{
    static char *keywords[] = {"path", NULL};
    PyObject *path = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O&:load_scene", keywords, path_bytes, &path))
        return NULL;
    glcollide_world *world = NULL;
    int status;
    const char *file = PyBytes_AS_STRING(path);
    glcollide_python_capture_begin();
    Py_BEGIN_ALLOW_THREADS status = glcollide_world_load(file, &world);
    Py_END_ALLOW_THREADS glcollide_python_capture_end();
    Py_DECREF(path);
    if (status != GLCOLLIDE_OK)
        return glcollide_python_raise(status);
    npy_intp k = (npy_intp)glcollide_world_object_count(world);
    npy_intp dims[2] = {k, 7};
    PyObject *mesh_index = PyArray_SimpleNew(1, dims, NPY_UINT32);
    PyObject *poses = PyArray_SimpleNew(2, dims, NPY_DOUBLE);
    if (mesh_index && poses) {
        uint32_t *index = PyArray_DATA((PyArrayObject *)mesh_index);
        double *pose = PyArray_DATA((PyArrayObject *)poses);
        for (npy_intp o = 0; o < k; o++) {
            const glcollide_object *object = glcollide_world_object(world, (uint32_t)o);
            index[o] = object->mesh;
            memcpy(pose + 7 * o, object->pose.translation, sizeof object->pose.translation);
            memcpy(pose + 7 * o + 3, object->pose.rotation, sizeof object->pose.rotation);
        }
    }
    /* the world goes with the meshes' arrays (or now, on error) */
    PyObject *meshes = mesh_index && poses ? scene_meshes(world) : NULL;
    if (!meshes && (!mesh_index || !poses))
        glcollide_world_destroy(&world);
    if (!meshes) {
        Py_XDECREF(mesh_index);
        Py_XDECREF(poses);
        return NULL;
    }
    return Py_BuildValue("(NNN)", meshes, mesh_index, poses);
}

static PyObject *find_data_mesh(PyObject *self, PyObject *args)
{
    const char *name;
    if (!PyArg_ParseTuple(args, "s:find_data_mesh", &name))
        return NULL;
    char path[4096];
    glcollide_python_capture_begin();
    int status = glcollide_mesh_find_data(name, path, sizeof path);
    glcollide_python_capture_end();
    if (status != GLCOLLIDE_OK)
        return glcollide_python_raise(status);
    return PyUnicode_DecodeFSDefault(path);
}

/* The generator's mesh as arrays, or its error. */
static PyObject *generated(int status, glcollide_mesh *const *made)
{
    glcollide_mesh *mesh = *made;
    glcollide_python_capture_end();
    if (status != GLCOLLIDE_OK)
        return glcollide_python_raise(status);
    return mesh_arrays(mesh);
}

static PyObject *box_mesh(PyObject *self, PyObject *args)
{
    double hx, hy, hz;
    if (!PyArg_ParseTuple(args, "ddd:box_mesh", &hx, &hy, &hz))
        return NULL;
    glcollide_mesh *mesh = NULL;
    glcollide_python_capture_begin();
    int status = glcollide_mesh_generate_box(hx, hy, hz, &mesh);
    return generated(status, &mesh);
}

static PyObject *sphere_mesh(PyObject *self, PyObject *args, PyObject *kwargs)
{
    static char *keywords[] = {"radius", "slices", "stacks", NULL};
    double radius;
    int slices = 16, stacks = 8;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "d|ii:sphere_mesh", keywords, &radius, &slices,
                                     &stacks))
        return NULL;
    glcollide_mesh *mesh = NULL;
    glcollide_python_capture_begin();
    int status = glcollide_mesh_generate_sphere(radius, slices, stacks, &mesh);
    return generated(status, &mesh);
}

static PyObject *capsule_mesh(PyObject *self, PyObject *args, PyObject *kwargs)
{
    static char *keywords[] = {"radius", "half_length", "slices", "cap_stacks", NULL};
    double radius, half_length;
    int slices = 16, cap_stacks = 4;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "dd|ii:capsule_mesh", keywords, &radius,
                                     &half_length, &slices, &cap_stacks))
        return NULL;
    glcollide_mesh *mesh = NULL;
    glcollide_python_capture_begin();
    int status = glcollide_mesh_generate_capsule(radius, half_length, slices, cap_stacks, &mesh);
    return generated(status, &mesh);
}

static PyObject *torus_mesh(PyObject *self, PyObject *args, PyObject *kwargs)
{
    static char *keywords[] = {"major_radius", "minor_radius", "major_segments", "minor_segments",
                               NULL};
    double major, minor;
    int major_segments = 24, minor_segments = 12;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "dd|ii:torus_mesh", keywords, &major, &minor,
                                     &major_segments, &minor_segments))
        return NULL;
    glcollide_mesh *mesh = NULL;
    glcollide_python_capture_begin();
    int status = glcollide_mesh_generate_torus(major, minor, major_segments, minor_segments, &mesh);
    return generated(status, &mesh);
}

/* ------------------------------------------------------------ module */

static PyMethodDef module_methods[] = {
    {"load_mesh", (PyCFunction)(void (*)(void))load_mesh, METH_VARARGS | METH_KEYWORDS,
     "load_mesh(path, scale=1.0) -> (vertices, faces)\n\n"
     "Loads an OFF, OBJ or STL file: vertices float64 (n, 3), faces uint32 (m, 3)\n"
     "(counter-clockwise seen from outside). Raises FileError when the file\n"
     "cannot be read, InvalidInput when it is malformed (the message says\n"
     "file:line)."},
    {"load_scene", (PyCFunction)(void (*)(void))load_scene, METH_VARARGS | METH_KEYWORDS,
     "load_scene(path) -> (meshes, mesh_indices, poses)\n\n"
     "Loads a scene file (glcollide-query's format): meshes a list of\n"
     "(vertices, faces), mesh_indices uint32 (k,) the mesh of each object,\n"
     "poses float64 (k, 7) translation and unit quaternion w x y z."},
    {"find_data_mesh", find_data_mesh, METH_VARARGS,
     "find_data_mesh(file_name) -> path\n\n"
     "Finds a data mesh (e.g. 'bunny00.off') in $GLCOLLIDE_MESH_DIR or the\n"
     "user's mesh cache; raises FileError when it is in neither."},
    {"box_mesh", box_mesh, METH_VARARGS,
     "box_mesh(hx, hy, hz) -> (vertices, faces)\n\nA closed box of half sizes hx, hy, hz centred "
     "at the origin."},
    {"sphere_mesh", (PyCFunction)(void (*)(void))sphere_mesh, METH_VARARGS | METH_KEYWORDS,
     "sphere_mesh(radius, slices=16, stacks=8) -> (vertices, faces)"},
    {"capsule_mesh", (PyCFunction)(void (*)(void))capsule_mesh, METH_VARARGS | METH_KEYWORDS,
     "capsule_mesh(radius, half_length, slices=16, cap_stacks=4) -> (vertices, faces)\n\n"
     "A capsule along z: a cylinder of half length half_length capped by hemispheres."},
    {"torus_mesh", (PyCFunction)(void (*)(void))torus_mesh, METH_VARARGS | METH_KEYWORDS,
     "torus_mesh(major_radius, minor_radius, major_segments=24, minor_segments=12)\n"
     "    -> (vertices, faces)\n\nA torus around the z axis."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT,
    .m_name = "_glcollide",
    .m_doc = "glcollide's C part: meshes, scenes and the World. Import glcollide, not this.",
    .m_size = -1,
    .m_methods = module_methods,
};

static int add_exceptions(PyObject *module)
{
    glcollide_python_error = PyErr_NewExceptionWithDoc(
        "glcollide.Error",
        "A failure the library reports; str() is its message, .status its status code.", NULL,
        NULL);
    if (!glcollide_python_error)
        return -1;
    PyObject *bases = PyTuple_Pack(2, glcollide_python_error, PyExc_ValueError);
    glcollide_python_invalid_input =
        bases
            ? PyErr_NewExceptionWithDoc(
                  "glcollide.InvalidInput",
                  "Bad arguments, meshes, poses, files or sizes (also a ValueError).", bases, NULL)
            : NULL;
    Py_XDECREF(bases);
    bases = PyTuple_Pack(2, glcollide_python_error, PyExc_OSError);
    glcollide_python_file_error =
        bases ? PyErr_NewExceptionWithDoc("glcollide.FileError",
                                          "A file that cannot be read (also an OSError).", bases,
                                          NULL)
              : NULL;
    Py_XDECREF(bases);
    if (!glcollide_python_invalid_input || !glcollide_python_file_error)
        return -1;
    Py_INCREF(glcollide_python_error);
    Py_INCREF(glcollide_python_invalid_input);
    Py_INCREF(glcollide_python_file_error);
    if (PyModule_AddObject(module, "Error", glcollide_python_error) ||
        PyModule_AddObject(module, "InvalidInput", glcollide_python_invalid_input) ||
        PyModule_AddObject(module, "FileError", glcollide_python_file_error))
        return -1;
    return 0;
}

PyMODINIT_FUNC PyInit__glcollide(void); /* the one exported name */
PyMODINIT_FUNC PyInit__glcollide(void)
{
    import_array();
    PyObject *module = PyModule_Create(&module_def);
    if (!module)
        return NULL;
    if (add_exceptions(module) || PyType_Ready(&glcollide_python_world_type) < 0) {
        Py_DECREF(module);
        return NULL;
    }
    Py_INCREF(&glcollide_python_world_type);
    if (PyModule_AddObject(module, "World", (PyObject *)&glcollide_python_world_type)) {
        Py_DECREF(&glcollide_python_world_type);
        Py_DECREF(module);
        return NULL;
    }
    glcollide_python_log_install();
    return module;
}
