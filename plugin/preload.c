/* SPDX-License-Identifier: MIT */
/*
 * libglcollide-ode-preload.so: LD_PRELOAD it into an unmodified ODE program
 * (linked to the shared libode) and glcollide serves its spaces and trimesh
 * contacts. The ODE functions below are interposed; each calls ODE's own
 * (found with dlsym(RTLD_NEXT)) and adds glcollide's part:
 *   dInitODE, dInitODE2   then glcollide_ode_init (no GL context yet: one is
 *                         made when a trimesh pair first needs the GPU)
 *   dCloseODE             glcollide_ode_shutdown first
 *   dSpaceCollide         glcollide_ode_space_collide, for every space
 *   dSpaceCollide2        glcollide_ode_space_collide2 (ODE's for two geoms,
 *                         quadtree spaces and classes of the program's own)
 *   dGeomTriMeshDataBuild* then register the arrays with glcollide
 *   dGeomTriMeshDataUpdate then mark the data changed
 *   dGeomTriMeshDataDestroy first glcollide_ode_trimesh_data_forget
 * Environment (read at dInitODE2; docs/environment.md):
 *   GLCOLLIDE_PRELOAD=0          all of it off: ODE as if not preloaded
 *   GLCOLLIDE_GPU=auto|never|always  GPU culling of trimesh pairs
 *                                (glcollide_ode_set_gpu; default auto)
 *   GLCOLLIDE_PRIMITIVES=0|1     a trimesh's pairs with ODE's planes, boxes,
 *                                spheres, capsules, cylinders and rays:
 *                                glcollide's colliders (1, default) or ODE's
 *                                (glcollide_ode_set_primitive_contacts)
 *   GLCOLLIDE_STENCIL=RESOLUTION the stencil flags pass beside GPU culling
 *                                (glcollide_ode_set_stencil_flags; default 0: off)
 *   GLCOLLIDE_PRELOAD_STATS=1    glcollide's counters on stderr, once: at
 *                                dCloseODE, or at exit or SIGINT/SIGTERM when
 *                                dCloseODE never came (below)
 *   GLCOLLIDE_LOG=debug|info|... glcollide's log level (default warnings)
 */
#define _GNU_SOURCE
#include "plugin.h"

#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int enabled(void)
{
    const char *env = getenv("GLCOLLIDE_PRELOAD");
    return !env || strcmp(env, "0") != 0;
}

/* ODE's own definition of a symbol we interpose; NULL if not found. */
static void *next(const char *name)
{
    return dlsym(RTLD_NEXT, name);
}

#define GLCOLLIDE_PRELOAD_API __attribute__((visibility("default")))

/* ------------------------------------------------------------- statistics
 *
 * GLCOLLIDE_PRELOAD_STATS=1 prints one line of counters. Many programs never
 * call dCloseODE (PyODE's, games that quit with exit(), anything stopped by
 * Ctrl-C or kill), so the line also comes at exit (this library's destructor)
 * or at SIGINT/SIGTERM, whichever of the three comes first, once per
 * dInitODE, in the process that called it (not in a forked child). ODE
 * counts its dInitODE and dCloseODE calls (a program with two collision
 * detectors makes two of each); the line comes at the close of the last.
 *
 * A signal may only be watched where it would kill the program anyway: at
 * dInitODE, SIGINT and SIGTERM whose action is the default get a handler
 * that prints, puts the default back and raises the signal again, so the
 * program still dies of it (same exit status, same parent's view). A signal
 * the program ignores or handles is left alone. Libraries look before they
 * install (SDL puts its quit handler only where it finds the default), so
 * while ours stands in for the default it is hidden: sigaction and the
 * signal() family below report the default, setting the default keeps ours,
 * and setting anything else replaces it (the line then comes at exit).
 * Not covered: sigset(), raw system calls, and exits by _exit or by other
 * signals; nothing of this happens without GLCOLLIDE_PRELOAD_STATS=1.
 *
 * The handler only reads atomics, formats by hand and write()s: every call
 * it makes is async-signal-safe.
 */

static atomic_int stats_pending; /* a line is owed: dInitODE came, no line since */
static atomic_int stats_gpu;     /* glcollide_ode_has_gpu after the last space collide */
static pid_t stats_pid;          /* the process that owes it */
static atomic_int stats_inits;   /* dInitODE calls not yet closed by dCloseODE */

typedef struct stats_line {
    char text[768];
    size_t length;
} stats_line;

static void line_text(stats_line *line, const char *text)
{
    while (*text && line->length + 1 < sizeof line->text)
        line->text[line->length++] = *text++;
}

/* value in tenths when tenths is set: "12.3" */
static void line_number(stats_line *line, unsigned long long value, int tenths)
{
    char digits[24];
    int n = 0;
    do {
        digits[n++] = (char)('0' + value % 10);
        value /= 10;
        if (tenths && n == 1)
            digits[n++] = '.';
    } while (value || (tenths && n < 3));
    while (n > 0 && line->length + 1 < sizeof line->text)
        line->text[line->length++] = digits[--n];
}

/* The line (the same text at dCloseODE, at exit and at a signal), written
 * if one is owed. */
static void stats_print(int gpu)
{
    if (!atomic_exchange(&stats_pending, 0))
        return;
    glcollide_ode_stats s;
    glcollide_ode_get_stats(&s);
    const struct {
        const char *name;
        unsigned long long value;
        int tenths;
    } fields[] = {{"gpu", (unsigned long long)(gpu != 0), 0},
                  {"space_collides", s.space_collides, 0},
                  {"aabb_pairs", s.aabb_pairs, 0},
                  {"culled_pairs", s.culled_pairs, 0},
                  {"callbacks", s.callbacks, 0},
                  {"trimesh_collides", s.trimesh_collides, 0},
                  {"candidates", s.candidates, 0},
                  {"contacts", s.contacts, 0},
                  {"gpu_queries", s.gpu_queries, 0},
                  {"gl_contexts", s.gl_contexts, 0},
                  {"cull_ms", (unsigned long long)(s.cull_ms * 10 + 0.5), 1},
                  {"contact_ms", (unsigned long long)(s.contact_ms * 10 + 0.5), 1},
                  {"primitive_collides", s.primitive_collides, 0},
                  {"primitive_contacts", s.primitive_contacts, 0},
                  {"space_collide2s", s.space_collide2s, 0}};
    stats_line line = {.length = 0};
    line_text(&line, "glcollide-preload:");
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        line_text(&line, " ");
        line_text(&line, fields[i].name);
        line_text(&line, "=");
        line_number(&line, fields[i].value, fields[i].tenths);
    }
    line_text(&line, "\n");
    for (size_t written = 0; written < line.length;) {
        ssize_t n = write(STDERR_FILENO, line.text + written, line.length - written);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        written += (size_t)n;
    }
}

/* The signals watched, each with the action the program last gave it, the
 * default (with its mask and flags), while ours stands in for it. */
static const int stats_signals[] = {SIGINT, SIGTERM};
enum { STATS_SIGNALS = sizeof stats_signals / sizeof stats_signals[0] };
static atomic_int stats_owned[STATS_SIGNALS]; /* ours stands in for the default */
static struct sigaction stats_before[STATS_SIGNALS];

typedef int sigaction_fn(int, const struct sigaction *, struct sigaction *);
typedef void (*signal_handler)(int);
typedef signal_handler signal_fn(int, signal_handler);

/* libc's functions that the ones below stand in front of, found once: at
 * load (never first in a signal handler, where dlsym is not safe), or at
 * the first call when another library's constructor calls before ours. */
enum {
    REAL_SIGACTION,
    REAL_SIGNAL,
    REAL_BSD_SIGNAL,
    REAL_SYSV_SIGNAL,
    REAL_SYSV_SIGNAL_,
    REAL_COUNT
};
static const char *const real_names[REAL_COUNT] = {"sigaction", "signal", "bsd_signal",
                                                   "sysv_signal", "__sysv_signal"};
static void *_Atomic real_functions[REAL_COUNT];

static void *real_function(int which)
{
    void *real = atomic_load(&real_functions[which]);
    if (!real) {
        real = next(real_names[which]);
        atomic_store(&real_functions[which], real);
    }
    return real;
}

static sigaction_fn *real_sigaction(void)
{
    return (sigaction_fn *)real_function(REAL_SIGACTION);
}

static int stats_slot(int sig)
{
    for (int i = 0; i < STATS_SIGNALS; i++)
        if (stats_signals[i] == sig)
            return i;
    return -1;
}

/* A line is owed by this process: the default of a watched signal is to
 * be stood in for. */
static int stats_watching(void)
{
    return atomic_load(&stats_pending) && getpid() == stats_pid;
}

static void stats_on_signal(int sig)
{
    int saved_errno = errno;
    if (getpid() == stats_pid)
        stats_print(atomic_load(&stats_gpu));
    /* Then exactly what the default does: the default back, the signal
     * again (delivered as raise returns: SA_NODEFER left it unblocked). */
    int slot = stats_slot(sig);
    if (slot >= 0 && atomic_exchange(&stats_owned[slot], 0))
        real_sigaction()(sig, &stats_before[slot], NULL);
    raise(sig);
    errno = saved_errno;
}

/* Ours in place of the default the program gave (default: that action), the
 * action replaced in *replaced if asked; libc's status. */
static int stats_stand_in(int slot, const struct sigaction *default_action,
                          struct sigaction *replaced)
{
    struct sigaction ours = {.sa_handler = stats_on_signal, .sa_flags = SA_NODEFER};
    sigemptyset(&ours.sa_mask);
    int was_owned = atomic_exchange(&stats_owned[slot], 1);
    struct sigaction before = stats_before[slot];
    stats_before[slot] = *default_action;
    int status = real_sigaction()(stats_signals[slot], &ours, replaced);
    if (status != 0) {
        stats_before[slot] = before;
        atomic_store(&stats_owned[slot], was_owned);
    }
    return status;
}

/* At dInitODE, with GLCOLLIDE_PRELOAD_STATS=1: a line is owed from now on,
 * and ours stands in for SIGINT's and SIGTERM's defaults. */
static void stats_begin(void)
{
    stats_pid = getpid();
    atomic_store(&stats_pending, 1);
    sigaction_fn *real = real_sigaction();
    for (int i = 0; real && i < STATS_SIGNALS; i++) {
        struct sigaction now;
        if (!atomic_load(&stats_owned[i]) && real(stats_signals[i], NULL, &now) == 0 &&
            now.sa_handler == SIG_DFL)
            stats_stand_in(i, &now, NULL);
    }
}

__attribute__((constructor)) static void preload_loaded(void)
{
    for (int i = 0; i < REAL_COUNT; i++)
        real_function(i);
}

__attribute__((destructor)) static void preload_unloaded(void)
{
    if (getpid() == stats_pid)
        stats_print(atomic_load(&stats_gpu));
}

/* sigaction and the signal() family, seen through while ours stands in for
 * the default of a watched signal: asked, they answer the default the
 * program gave; given the default while a line is owed, they put ours in
 * its place (Python, for one, dies of SIGINT that way after Ctrl-C);
 * anything else replaces ours. Other signals pass straight through. */
GLCOLLIDE_PRELOAD_API int sigaction(int sig, const struct sigaction *restrict act,
                                    struct sigaction *restrict old)
{
    sigaction_fn *real = real_sigaction();
    if (!real) {
        errno = ENOSYS;
        return -1;
    }
    int slot = stats_slot(sig);
    int stand_in = slot >= 0 && act && act->sa_handler == SIG_DFL && stats_watching();
    if (slot < 0 || (!stand_in && !atomic_load(&stats_owned[slot])))
        return real(sig, act, old);
    struct sigaction replaced;
    int status;
    if (stand_in) {
        status = stats_stand_in(slot, act, &replaced);
    } else {
        replaced = stats_before[slot];
        int owned = act ? atomic_exchange(&stats_owned[slot], 0) : 1;
        status = real(sig, act, NULL);
        if (status != 0)
            atomic_store(&stats_owned[slot], owned);
    }
    if (status == 0 && old)
        *old = replaced;
    return status;
}

/* One of the signal() family (which: libc's), as sigaction above. */
static signal_handler signal_through(int which, int sig, signal_handler handler)
{
    signal_fn *real = (signal_fn *)real_function(which);
    if (!real || !real_sigaction()) {
        errno = ENOSYS;
        return SIG_ERR;
    }
    int slot = stats_slot(sig);
    int stand_in = slot >= 0 && handler == SIG_DFL && stats_watching();
    if (slot < 0 || (!stand_in && !atomic_load(&stats_owned[slot])))
        return real(sig, handler);
    signal_handler previous = stats_before[slot].sa_handler;
    if (stand_in) {
        struct sigaction default_action = {.sa_handler = SIG_DFL}, replaced;
        sigemptyset(&default_action.sa_mask);
        if (stats_stand_in(slot, &default_action, &replaced) != 0)
            return SIG_ERR;
        return replaced.sa_handler == stats_on_signal ? previous : replaced.sa_handler;
    }
    atomic_store(&stats_owned[slot], 0);
    if (real(sig, handler) == SIG_ERR) {
        atomic_store(&stats_owned[slot], 1);
        return SIG_ERR;
    }
    return previous;
}

GLCOLLIDE_PRELOAD_API signal_handler signal(int sig, signal_handler handler)
{
    return signal_through(REAL_SIGNAL, sig, handler);
}

/* Gone from glibc's headers, still in its library. */
signal_handler bsd_signal(int sig, signal_handler handler);
GLCOLLIDE_PRELOAD_API signal_handler bsd_signal(int sig, signal_handler handler)
{
    return signal_through(REAL_BSD_SIGNAL, sig, handler);
}

GLCOLLIDE_PRELOAD_API signal_handler sysv_signal(int sig, signal_handler handler)
{
    return signal_through(REAL_SYSV_SIGNAL, sig, handler);
}

/* What signal() is under strict C (-std=c11 without _DEFAULT_SOURCE). */
GLCOLLIDE_PRELOAD_API signal_handler __sysv_signal(int sig, signal_handler handler)
{
    return signal_through(REAL_SYSV_SIGNAL_, sig, handler);
}

/* GLCOLLIDE_GPU, GLCOLLIDE_PRIMITIVES and GLCOLLIDE_STENCIL, then glcollide_ode_init. */
static void start(void)
{
    static const struct {
        const char *name;
        int mode;
    } modes[] = {{"auto", GLCOLLIDE_ODE_GPU_AUTO},
                 {"never", GLCOLLIDE_ODE_GPU_NEVER},
                 {"always", GLCOLLIDE_ODE_GPU_ALWAYS}};
    const char *gpu = getenv("GLCOLLIDE_GPU");
    if (gpu && *gpu) {
        size_t i = 0;
        while (i < sizeof modes / sizeof modes[0] && strcmp(gpu, modes[i].name) != 0)
            i++;
        if (i < sizeof modes / sizeof modes[0])
            glcollide_ode_set_gpu(modes[i].mode);
        else
            glcollide_log(GLCOLLIDE_LOG_WARNING,
                          "preload: GLCOLLIDE_GPU=%s is not auto, never or always: auto", gpu);
    }
    const char *primitives = getenv("GLCOLLIDE_PRIMITIVES");
    if (primitives && *primitives) {
        if (strcmp(primitives, "0") == 0 || strcmp(primitives, "1") == 0)
            glcollide_ode_set_primitive_contacts(primitives[0] == '1');
        else
            glcollide_log(GLCOLLIDE_LOG_WARNING,
                          "preload: GLCOLLIDE_PRIMITIVES=%s is not 0 or 1: 1", primitives);
    }
    const char *stencil = getenv("GLCOLLIDE_STENCIL");
    if (stencil && *stencil)
        glcollide_ode_set_stencil_flags(atoi(stencil));
    const char *stats = getenv("GLCOLLIDE_PRELOAD_STATS");
    if (stats && strcmp(stats, "1") == 0)
        stats_begin();
    atomic_fetch_add(&stats_inits, 1);
    glcollide_ode_init();
}

GLCOLLIDE_PRELOAD_API int dInitODE2(unsigned int flags)
{
    int (*real)(unsigned int) = (int (*)(unsigned int))next("dInitODE2");
    int ok = real ? real(flags) : 0;
    if (ok && enabled())
        start();
    return ok;
}

GLCOLLIDE_PRELOAD_API void dInitODE(void)
{
    void (*real)(void) = (void (*)(void))next("dInitODE");
    if (real)
        real();
    if (enabled())
        start();
}

GLCOLLIDE_PRELOAD_API void dCloseODE(void)
{
    /* ODE counts dInitODE and dCloseODE (two collision detectors of one
     * program each pair theirs); the line waits for the last close. */
    int open = atomic_load(&stats_inits);
    while (open > 0 && !atomic_compare_exchange_weak(&stats_inits, &open, open - 1))
        ;
    if (open <= 1 && atomic_load(&stats_pending))
        stats_print(glcollide_ode_has_gpu());
    glcollide_ode_shutdown();
    void (*real)(void) = (void (*)(void))next("dCloseODE");
    if (real)
        real();
}

GLCOLLIDE_PRELOAD_API void dSpaceCollide(dSpaceID space, void *data, dNearCallback *callback)
{
    if (enabled()) {
        glcollide_ode_space_collide(space, data, callback);
        if (atomic_load_explicit(&stats_pending, memory_order_relaxed))
            atomic_store(&stats_gpu, glcollide_ode_has_gpu());
        return;
    }
    void (*real)(dSpaceID, void *, dNearCallback *) =
        (void (*)(dSpaceID, void *, dNearCallback *))next("dSpaceCollide");
    if (real)
        real(space, data, callback);
}

GLCOLLIDE_PRELOAD_API void dSpaceCollide2(dGeomID o1, dGeomID o2, void *data,
                                          dNearCallback *callback)
{
    if (enabled()) {
        glcollide_ode_space_collide2(o1, o2, data, callback);
        if (atomic_load_explicit(&stats_pending, memory_order_relaxed))
            atomic_store(&stats_gpu, glcollide_ode_has_gpu());
        return;
    }
    void (*real)(dGeomID, dGeomID, void *, dNearCallback *) =
        (void (*)(dGeomID, dGeomID, void *, dNearCallback *))next("dSpaceCollide2");
    if (real)
        real(o1, o2, data, callback);
}

GLCOLLIDE_PRELOAD_API void dGeomTriMeshDataUpdate(dTriMeshDataID data)
{
    void (*real)(dTriMeshDataID) = (void (*)(dTriMeshDataID))next("dGeomTriMeshDataUpdate");
    if (real)
        real(data);
    glcollide_ode_trimesh_data_changed(data);
}

/* Each build: ODE's own, then glcollide is given the arrays (exact vertices,
 * re-read cheaply after dGeomTriMeshDataUpdate). */
#define INTERPOSE_BUILD(name, params, args, register_call)                                         \
    GLCOLLIDE_PRELOAD_API void name params                                                         \
    {                                                                                              \
        void(*real) params = (void(*) params)next(#name);                                          \
        if (real)                                                                                  \
            real args;                                                                             \
        if (enabled())                                                                             \
            register_call;                                                                         \
    }

#define BUILD_PARAMS                                                                               \
    (dTriMeshDataID g, const void *vertices, int vertex_stride, int vertex_count,                  \
     const void *indices, int index_count, int tri_stride)
#define BUILD_PARAMS1                                                                              \
    (dTriMeshDataID g, const void *vertices, int vertex_stride, int vertex_count,                  \
     const void *indices, int index_count, int tri_stride, const void *normals)
#define BUILD_ARGS (g, vertices, vertex_stride, vertex_count, indices, index_count, tri_stride)
#define BUILD_ARGS1                                                                                \
    (g, vertices, vertex_stride, vertex_count, indices, index_count, tri_stride, normals)

INTERPOSE_BUILD(dGeomTriMeshDataBuildSingle, BUILD_PARAMS, BUILD_ARGS,
                glcollide_ode_trimesh_data_build_single BUILD_ARGS)
INTERPOSE_BUILD(dGeomTriMeshDataBuildSingle1, BUILD_PARAMS1, BUILD_ARGS1,
                glcollide_ode_trimesh_data_build_single BUILD_ARGS)
INTERPOSE_BUILD(dGeomTriMeshDataBuildDouble, BUILD_PARAMS, BUILD_ARGS,
                glcollide_ode_trimesh_data_build_double BUILD_ARGS)
INTERPOSE_BUILD(dGeomTriMeshDataBuildDouble1, BUILD_PARAMS1, BUILD_ARGS1,
                glcollide_ode_trimesh_data_build_double BUILD_ARGS)

/* The Simple builds take dVector3 vertices (4 dReal apart) and dTriIndex triples. */
#ifdef dDOUBLE
#define register_simple glcollide_ode_trimesh_data_build_double
#else
#define register_simple glcollide_ode_trimesh_data_build_single
#endif
INTERPOSE_BUILD(dGeomTriMeshDataBuildSimple,
                (dTriMeshDataID g, const dReal *vertices, int vertex_count,
                 const dTriIndex *indices, int index_count),
                (g, vertices, vertex_count, indices, index_count),
                register_simple(g, vertices, (int)sizeof(dVector3), vertex_count, indices,
                                index_count, (int)(3 * sizeof(dTriIndex))))
INTERPOSE_BUILD(dGeomTriMeshDataBuildSimple1,
                (dTriMeshDataID g, const dReal *vertices, int vertex_count,
                 const dTriIndex *indices, int index_count, const int *normals),
                (g, vertices, vertex_count, indices, index_count, normals),
                register_simple(g, vertices, (int)sizeof(dVector3), vertex_count, indices,
                                index_count, (int)(3 * sizeof(dTriIndex))))

GLCOLLIDE_PRELOAD_API void dGeomTriMeshDataDestroy(dTriMeshDataID data)
{
    if (enabled())
        glcollide_ode_trimesh_data_forget(data);
    void (*real)(dTriMeshDataID) = (void (*)(dTriMeshDataID))next("dGeomTriMeshDataDestroy");
    if (real)
        real(data);
}
