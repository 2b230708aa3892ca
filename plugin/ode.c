/* SPDX-License-Identifier: MIT */
/* The ODE plugin: lifetime of glcollide's context for an ODE program. */
#include <glcollide/glcollide.h>
#include <glcollide/ode.h>

static int started;
static glcollide_context *gl_context;

int glcollide_ode_init(void)
{
    if (started)
        return 0;
    int status = glcollide_context_create_egl(&gl_context);
    if (status == GLCOLLIDE_OK && (status = glcollide_context_self_test(gl_context)) != GLCOLLIDE_OK)
        glcollide_context_destroy(&gl_context);
    if (status != GLCOLLIDE_OK)
        return status; /* logged by glcollide; the CPU path still works */
    started = 1;
    return 0;
}

void glcollide_ode_shutdown(void)
{
    glcollide_context_destroy(&gl_context);
    started = 0;
}

int glcollide_ode_has_gpu(void)
{
    return gl_context != NULL;
}
