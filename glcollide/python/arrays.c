/* SPDX-License-Identifier: MIT */
/*
 * NumPy arrays in and out of the library. What the library reads in place
 * (vertices as float64 rows of three, faces as uint32 rows of three, poses
 * as float64 rows of seven) is handed over as it is when the caller's array
 * already has that dtype and a C-contiguous, aligned layout: no copy. Any
 * other real dtype is converted once (trimesh's int64 faces, float32
 * vertices); a dtype that cannot say the same numbers (complex, strings,
 * floats for indices) is a TypeError, a wrong shape an InvalidInput, both
 * naming the argument.
 */
#include "python/module.h"

#include <stdarg.h>
#include <stdio.h>

/* "(4, 2)" into buf. */
static const char *shape_text(PyArrayObject *array, char *buf, size_t size)
{
    int n = snprintf(buf, size, "(");
    for (int d = 0; d < PyArray_NDIM(array) && n > 0 && (size_t)n < size; d++)
        n += snprintf(buf + n, size - (size_t)n, d ? ", %ld" : "%ld", (long)PyArray_DIM(array, d));
    if (n > 0 && (size_t)n < size)
        snprintf(buf + n, size - (size_t)n, PyArray_NDIM(array) == 1 ? ",)" : ")");
    return buf;
}

/* obj as an array of any dtype (no copy where it is one already). */
static PyArrayObject *any_array(PyObject *obj, const char *what)
{
    PyArrayObject *array = (PyArrayObject *)PyArray_FROM_O(obj);
    if (!array && PyErr_ExceptionMatches(PyExc_ValueError)) {
        PyErr_Clear(); /* ragged nested sequences */
        glcollide_python_invalid("%s: not an array of numbers", what);
    }
    return array;
}

/* Requires ndim == 2 (rows, cols) or ndim == 1 (cols) where rows_optional. */
static int check_shape(PyArrayObject *array, const char *what, npy_intp rows, npy_intp cols,
                       int allow_flat)
{
    int ok = PyArray_NDIM(array) == 2 && PyArray_DIM(array, 1) == cols &&
             (rows < 0 || PyArray_DIM(array, 0) == rows);
    if (!ok && allow_flat && PyArray_NDIM(array) == 1 && PyArray_DIM(array, 0) == cols)
        ok = 1;
    if (ok)
        return 0;
    char shape[96];
    if (rows < 0)
        glcollide_python_invalid("%s: expected shape (n, %ld), got %s", what, (long)cols,
                                 shape_text(array, shape, sizeof shape));
    else
        glcollide_python_invalid("%s: expected shape (%ld, %ld), got %s", what, (long)rows,
                                 (long)cols, shape_text(array, shape, sizeof shape));
    return -1;
}

static int is_real(PyArrayObject *array)
{
    char kind = PyArray_DESCR(array)->kind;
    return kind == 'f' || kind == 'i' || kind == 'u';
}

PyArrayObject *glcollide_python_doubles(PyObject *obj, const char *what, npy_intp rows,
                                        npy_intp cols)
{
    PyArrayObject *array = any_array(obj, what);
    if (!array)
        return NULL;
    if (!is_real(array)) {
        PyErr_Format(PyExc_TypeError, "%s: expected real numbers, got dtype %s", what,
                     PyArray_DESCR(array)->typeobj->tp_name);
        Py_DECREF(array);
        return NULL;
    }
    if (check_shape(array, what, rows, cols, 0)) {
        Py_DECREF(array);
        return NULL;
    }
    /* A no-op (a new reference to the same array) when it already fits. */
    PyArrayObject *fitted =
        (PyArrayObject *)PyArray_FROM_OTF((PyObject *)array, NPY_DOUBLE, NPY_ARRAY_IN_ARRAY);
    Py_DECREF(array);
    return fitted;
}

PyArrayObject *glcollide_python_points(PyObject *obj, const char *what)
{
    return glcollide_python_doubles(obj, what, -1, 3);
}

PyArrayObject *glcollide_python_faces(PyObject *obj, const char *what)
{
    return glcollide_python_index_rows(obj, what, 3, "face", "vertex");
}

PyArrayObject *glcollide_python_index_rows(PyObject *obj, const char *what, npy_intp cols,
                                           const char *row, const char *item)
{
    PyArrayObject *array = any_array(obj, what);
    if (!array)
        return NULL;
    char kind = PyArray_DESCR(array)->kind;
    /* An empty list comes as float64: no faces. */
    int empty_list = PyArray_SIZE(array) == 0 && !PyArray_Check(obj);
    if (kind != 'i' && kind != 'u' && !empty_list) {
        PyErr_Format(PyExc_TypeError, "%s: expected integer %s indices, got dtype %s", what, item,
                     PyArray_DESCR(array)->typeobj->tp_name);
        Py_DECREF(array);
        return NULL;
    }
    if (empty_list && PyArray_NDIM(array) == 1) {
        Py_DECREF(array);
        npy_intp dims[2] = {0, cols};
        return (PyArrayObject *)PyArray_SimpleNew(2, dims, NPY_UINT32);
    }
    if (check_shape(array, what, -1, cols, 0)) {
        Py_DECREF(array);
        return NULL;
    }
    if (PyArray_TYPE(array) == NPY_UINT32 && PyArray_ISCARRAY_RO(array) &&
        PyArray_ISNOTSWAPPED(array))
        return array;
    /* Through a 64-bit integer of the same signedness (a safe cast), each
     * index checked, into a new uint32 array: an index -1 or 2^32 must not
     * wrap around into a valid one. */
    int is_signed = kind == 'i';
    PyArrayObject *wide = (PyArrayObject *)PyArray_FROM_OTF(
        (PyObject *)array, is_signed ? NPY_INT64 : NPY_UINT64, NPY_ARRAY_IN_ARRAY);
    Py_DECREF(array);
    if (!wide)
        return NULL;
    PyArrayObject *out = (PyArrayObject *)PyArray_SimpleNew(2, PyArray_DIMS(wide), NPY_UINT32);
    if (!out) {
        Py_DECREF(wide);
        return NULL;
    }
    npy_intp n = PyArray_SIZE(wide);
    uint32_t *dst = PyArray_DATA(out);
    for (npy_intp i = 0; i < n; i++) {
        int ok;
        long long value;
        if (is_signed) {
            value = ((const int64_t *)PyArray_DATA(wide))[i];
            ok = value >= 0 && value <= (long long)UINT32_MAX;
        } else {
            uint64_t u = ((const uint64_t *)PyArray_DATA(wide))[i];
            value = u > (uint64_t)LLONG_MAX ? LLONG_MAX : (long long)u;
            ok = u <= UINT32_MAX;
        }
        if (!ok) {
            glcollide_python_invalid("%s: %s %ld has %s index %lld, outside 0..%u", what, row,
                                     (long)(i / cols), item, value, UINT32_MAX);
            Py_DECREF(wide);
            Py_DECREF(out);
            return NULL;
        }
        dst[i] = (uint32_t)value;
    }
    Py_DECREF(wide);
    return out;
}

int glcollide_python_vector(PyObject *obj, const char *what, double *out, int n)
{
    PyArrayObject *array = any_array(obj, what);
    if (!array)
        return -1;
    int ok = is_real(array) && PyArray_NDIM(array) == 1 && PyArray_DIM(array, 0) == n;
    if (!ok) {
        char shape[96];
        if (!is_real(array))
            PyErr_Format(PyExc_TypeError, "%s: expected %d real numbers, got dtype %s", what, n,
                         PyArray_DESCR(array)->typeobj->tp_name);
        else
            glcollide_python_invalid("%s: expected %d numbers, got shape %s", what, n,
                                     shape_text(array, shape, sizeof shape));
        Py_DECREF(array);
        return -1;
    }
    PyArrayObject *fitted =
        (PyArrayObject *)PyArray_FROM_OTF((PyObject *)array, NPY_DOUBLE, NPY_ARRAY_IN_ARRAY);
    Py_DECREF(array);
    if (!fitted)
        return -1;
    memcpy(out, PyArray_DATA(fitted), (size_t)n * sizeof *out);
    Py_DECREF(fitted);
    return 0;
}

PyArrayObject *glcollide_python_indices(PyObject *obj, const char *what, size_t count)
{
    PyArrayObject *array = any_array(obj, what);
    if (!array)
        return NULL;
    char kind = PyArray_DESCR(array)->kind;
    if (PyArray_SIZE(array) > 0 && kind != 'i' && kind != 'u') {
        PyErr_Format(PyExc_TypeError, "%s: expected integer object indices, got dtype %s", what,
                     PyArray_DESCR(array)->typeobj->tp_name);
        Py_DECREF(array);
        return NULL;
    }
    if (PyArray_NDIM(array) != 1) {
        char shape[96];
        glcollide_python_invalid("%s: expected shape (k,), got %s", what,
                                 shape_text(array, shape, sizeof shape));
        Py_DECREF(array);
        return NULL;
    }
    PyArrayObject *wide =
        (PyArrayObject *)PyArray_FROM_OTF((PyObject *)array, kind == 'u' ? NPY_UINT64 : NPY_INT64,
                                          NPY_ARRAY_IN_ARRAY | NPY_ARRAY_FORCECAST);
    Py_DECREF(array);
    if (!wide)
        return NULL;
    for (npy_intp i = 0; i < PyArray_SIZE(wide); i++) {
        int64_t s = ((const int64_t *)PyArray_DATA(wide))[i];
        uint64_t u = ((const uint64_t *)PyArray_DATA(wide))[i];
        int ok = kind == 'u' ? u < count : s >= 0 && (uint64_t)s < count;
        if (!ok) {
            if (kind == 'u')
                glcollide_python_invalid("%s: no object %llu (%zu objects)", what,
                                         (unsigned long long)u, count);
            else
                glcollide_python_invalid("%s: no object %lld (%zu objects)", what, (long long)s,
                                         count);
            Py_DECREF(wide);
            return NULL;
        }
    }
    return wide;
}

/* A new (rows, cols) array (cols 0: (rows,)) of type, a copy of data. */
static PyObject *new_array(const void *data, npy_intp rows, npy_intp cols, int type, size_t size)
{
    npy_intp dims[2] = {rows, cols};
    PyObject *array = PyArray_SimpleNew(cols > 0 ? 2 : 1, dims, type);
    if (array && rows > 0)
        memcpy(PyArray_DATA((PyArrayObject *)array), data,
               (size_t)rows * (size_t)(cols > 0 ? cols : 1) * size);
    return array;
}

PyObject *glcollide_python_new_doubles(const double *data, npy_intp rows, npy_intp cols)
{
    return new_array(data, rows, cols, NPY_DOUBLE, sizeof *data);
}

PyObject *glcollide_python_new_uint32(const uint32_t *data, npy_intp rows, npy_intp cols)
{
    return new_array(data, rows, cols, NPY_UINT32, sizeof *data);
}
