/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* DLPack capsules for the g2g package: the one piece of it written in C. A capsule's destructor
 * runs inside the interpreter's deallocation, possibly with an exception pending (NumPy drops a
 * capsule it refused with its own error set), where Python code may neither run nor allocate:
 * so it is this C function, which only reads the capsule and calls the tensor's deleter when no
 * consumer took the tensor (the capsule still bears its first name; a consumer renames it
 * "used_dltensor" and calls the deleter itself when done). Built for CPython's stable ABI
 * (3.11 and later load the same file). */
#define Py_LIMITED_API 0x030b0000
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <g2g/dlpack-versioned.h>

static const char kTensor[] = "dltensor";
static const char kVersionedTensor[] = "dltensor_versioned";

static void delete_untaken(PyObject *capsule)
{
    if (PyCapsule_IsValid(capsule, kTensor)) {
        DLManagedTensor *tensor = (DLManagedTensor *)PyCapsule_GetPointer(capsule, kTensor);
        if (tensor->deleter)
            tensor->deleter(tensor);
    } else if (PyCapsule_IsValid(capsule, kVersionedTensor)) {
        G2gDLManagedTensorVersioned *tensor =
            (G2gDLManagedTensorVersioned *)PyCapsule_GetPointer(capsule, kVersionedTensor);
        if (tensor->deleter)
            tensor->deleter(tensor);
    }
}

/* wrap(address, versioned): a capsule over the DLManagedTensor (or, versioned, the
 * DLManagedTensorVersioned) at address, which g2g_frame_plane_to_dlpack(_versioned) made. */
static PyObject *wrap(PyObject *self, PyObject *args)
{
    (void)self;
    unsigned long long address = 0;
    int versioned = 0;
    if (!PyArg_ParseTuple(args, "Kp", &address, &versioned))
        return NULL;
    if (!address) {
        PyErr_SetString(PyExc_ValueError, "no tensor to wrap");
        return NULL;
    }
    return PyCapsule_New((void *)(uintptr_t)address, versioned ? kVersionedTensor : kTensor, delete_untaken);
}

static PyMethodDef methods[] = {
    {"wrap", wrap, METH_VARARGS, "wrap(address, versioned) -> a DLPack capsule that owns the tensor"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT,
    "_capsule",
    "DLPack capsules whose destructor is C",
    -1,
    methods,
    NULL,
    NULL,
    NULL,
    NULL,
};

PyMODINIT_FUNC PyInit__capsule(void)
{
    return PyModule_Create(&module);
}
