/* SPDX-License-Identifier: MIT */
/*
 * Private to the Python module (glcollide/python): what its files share.
 * The module sees the library only through its public headers, as any
 * program would.
 */
#ifndef GLCOLLIDE_PYTHON_MODULE_H
#define GLCOLLIDE_PYTHON_MODULE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#define PY_ARRAY_UNIQUE_SYMBOL glcollide_python_ARRAY_API
#ifndef GLCOLLIDE_PYTHON_IMPORTS_ARRAY
#define NO_IMPORT_ARRAY
#endif
#include <numpy/arrayobject.h>

#include <glcollide/geometry.h>
#include <glcollide/glcollide.h>

/* ------------------------------------------------------------ errors */

/* glcollide.Error and its two refinements, made at import. */
extern PyObject *glcollide_python_error;
extern PyObject *glcollide_python_invalid_input;
extern PyObject *glcollide_python_file_error;

/*
 * The library's messages during one call: between begin and end, the error
 * messages the calling thread's library calls log are kept (the last one)
 * instead of printed, so that the exception raised for a failed status
 * carries them. Thread-local: calls that released the GIL on other threads
 * keep their own.
 */
void glcollide_python_capture_begin(void);
void glcollide_python_capture_end(void);
/* Installs the module's log callback (at import). */
void glcollide_python_log_install(void);

/* Raises the exception for status with the captured message (or the
 * status's own text); returns NULL for `return glcollide_python_raise(s);`. */
PyObject *glcollide_python_raise(int status);
/* The same with prefix before the message (a caller's context). */
PyObject *glcollide_python_raise_prefixed(int status, const char *prefix);
/* Raises glcollide.InvalidInput with a formatted message; returns NULL. */
PyObject *glcollide_python_invalid(const char *format, ...);

/* ------------------------------------------------------------ arrays */

/*
 * An (n, 3) float64 C-contiguous array from obj: obj itself (a new
 * reference, no copy) when it already is one, else one converting copy
 * (integers and float32 accepted). Raises TypeError (not real numbers) or
 * glcollide.InvalidInput (shape), naming what. NULL on error.
 */
PyArrayObject *glcollide_python_points(PyObject *obj, const char *what);
/*
 * An (m, 3) uint32 C-contiguous array of vertex indices from obj: obj itself
 * when it is one, else one converting copy from any integer dtype, each
 * index checked to be in 0 .. 2^32 - 1 (the library checks it against the
 * vertex count). Raises TypeError (not integers) or glcollide.InvalidInput.
 */
PyArrayObject *glcollide_python_faces(PyObject *obj, const char *what);
/* The same for (m, cols) indices, named row (each row) and item (each
 * index) in messages: glcollide_python_faces is (3, "face", "vertex"). */
PyArrayObject *glcollide_python_index_rows(PyObject *obj, const char *what, npy_intp cols,
                                           const char *row, const char *item);
/* A (rows, cols) float64 C-contiguous array from obj, as
 * glcollide_python_points (rows < 0: any number of rows). */
PyArrayObject *glcollide_python_doubles(PyObject *obj, const char *what, npy_intp rows,
                                        npy_intp cols);
/* n doubles from a sequence of n real numbers into out. */
int glcollide_python_vector(PyObject *obj, const char *what, double *out, int n);
/* A (k,) int64 array of object indices, each in 0 .. count - 1. */
PyArrayObject *glcollide_python_indices(PyObject *obj, const char *what, size_t count);

/* New arrays holding a copy of data: (rows, cols), or (rows,) for cols 0. */
PyObject *glcollide_python_new_doubles(const double *data, npy_intp rows, npy_intp cols);
PyObject *glcollide_python_new_uint32(const uint32_t *data, npy_intp rows, npy_intp cols);

/* ------------------------------------------------------------ types */

extern PyTypeObject glcollide_python_world_type;

#endif
