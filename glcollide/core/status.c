/* SPDX-License-Identifier: MIT */
/* Status codes and the log callback. */
#include "core/internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static glcollide_log_fn log_callback;
static void *log_user;
static int log_level = -1; /* -1: not yet read from GLCOLLIDE_LOG */
/* Per thread: a layer that calls another names where it was (a scene line
 * loading a mesh) in the callee's one message instead of adding a second. */
static _Thread_local const char *log_prefix;

const char *glcollide_status_string(int status)
{
    switch (status) {
    case GLCOLLIDE_OK: return "success";
    case GLCOLLIDE_ERROR_INVALID_ARGUMENT: return "invalid argument";
    case GLCOLLIDE_ERROR_OUT_OF_MEMORY: return "out of memory";
    case GLCOLLIDE_ERROR_IO: return "input/output error";
    case GLCOLLIDE_ERROR_PARSE: return "malformed input";
    case GLCOLLIDE_ERROR_INVALID_MESH: return "invalid mesh";
    case GLCOLLIDE_ERROR_NO_CONTEXT: return "no GL context";
    case GLCOLLIDE_ERROR_GL_UNSUPPORTED: return "GL version or extension not supported";
    case GLCOLLIDE_ERROR_GL: return "GL error";
    case GLCOLLIDE_ERROR_UNAVAILABLE: return "not available";
    case GLCOLLIDE_ERROR_LIMIT: return "size limit exceeded";
    }
    return "unknown status";
}

void glcollide_set_log_callback(glcollide_log_fn fn, void *user)
{
    log_callback = fn;
    log_user = user;
}

void glcollide_set_log_level(glcollide_log_level max_level)
{
    log_level = (int)max_level;
}

static int effective_level(void)
{
    if (log_level >= 0)
        return log_level;
    static const char *const names[] = {"error", "warning", "info", "debug"};
    const char *env = getenv("GLCOLLIDE_LOG");
    log_level = GLCOLLIDE_LOG_WARNING;
    for (int i = 0; env && i < 4; i++)
        if (strcasecmp(env, names[i]) == 0)
            log_level = i;
    return log_level;
}

static void vlog(glcollide_log_level level, const char *format, va_list args)
{
    if ((int)level > effective_level())
        return;
    char message[1024];
    int used = log_prefix ? snprintf(message, sizeof message, "%s", log_prefix) : 0;
    if (used < 0 || (size_t)used >= sizeof message)
        used = 0;
    vsnprintf(message + used, sizeof message - (size_t)used, format, args);
    if (log_callback) {
        log_callback(level, message, log_user);
        return;
    }
    static const char *const names[] = {"error", "warning", "info", "debug"};
    fprintf(stderr, "glcollide: %s: %s\n", names[level], message);
}

const char *glcollide_log_set_prefix(const char *prefix)
{
    const char *previous = log_prefix;
    log_prefix = prefix;
    return previous;
}

void glcollide_log(glcollide_log_level level, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    vlog(level, format, args);
    va_end(args);
}

int glcollide_fail(int status, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    vlog(GLCOLLIDE_LOG_ERROR, format, args);
    va_end(args);
    return status;
}
