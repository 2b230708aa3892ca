/* SPDX-License-Identifier: MIT */
/*
 * Worker threads: one small pool per process, shared by every caller of the
 * library (the world's queries, the ODE plugin's narrow phase).
 *
 * Why a pthread pool of our own and not OpenMP: glcollide is loaded into
 * other people's programs (an ODE game, DART, a Python interpreter through
 * the preload). OpenMP's runtime there would be shared with the host's own
 * parallel regions (libgomp and libomp may even both be in the process),
 * read the host's OMP_NUM_THREADS and its wait policy (how long threads
 * spin after a region: OMP_WAIT_POLICY, GOMP_SPINCOUNT), and a child forked
 * after an OpenMP region hangs at its first one (libgomp does not re-create
 * its team: the classic Python multiprocessing hang). The pool below is 400
 * lines we control:
 *
 * - Made on first need, never at load time. After a job of a chain
 *   (glcollide_workers_run_chain: one large pair's call is a chain of short
 *   jobs, and waking a parked thread costs tens of microseconds on a
 *   virtual machine) a worker looks for the next one for SPIN_MS, giving
 *   its core away at every look (sched_yield) to any thread that wants it;
 *   after any other job, or then, it parks on a condition variable. Which
 *   thread takes which task of a job run once a step (the ODE space's
 *   pairs) then stays as it was: with lingering workers it changed from
 *   step to step, and each thread's scratch met new records late.
 * - Roused (glcollide_workers_rouse) by a caller that knows a job is tens of
 *   microseconds away (one large pair's descent, while its first node pairs
 *   are cut): parked workers wake then and look for it as after a job of a
 *   chain, so their wake-up overlaps the caller's work. Not the ODE space's
 *   job at the start of a step: roused there, its pairs again changed
 *   threads from step to step (and the warm steps allocated).
 * - One job at a time: a caller that finds the pool busy (a second ODE
 *   world stepping on another thread, or a task asking for parallelism
 *   inside a task) runs its job on its own thread instead. The host's
 *   threads plus the pool's never exceed the host's threads plus count - 1,
 *   so two worlds cannot oversubscribe the machine.
 * - Fork: the prepare handler waits for a running job and holds the pool;
 *   the child starts with no worker at all (they do not exist there) and
 *   makes new ones only when it first runs a job.
 * - Workers block every signal: the host's handlers run on the host's threads.
 * - The answers never depend on the pool: a job is `count` independent tasks,
 *   each writing only its own output; the worker number a task gets is for
 *   choosing scratch memory, never part of a result.
 */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include "core/internal.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

enum { WORKERS_DEFAULT_CAP = 16 };

/* How long a thread that has just left a job of a chain looks for the next
 * before it parks, in ms: it covers the gaps between the jobs of one large
 * contact call (bunnies: up to about 0.6 ms). */
#define SPIN_MS 1.0

/* The tasks of one thread's block still to take: front << 32 | back, the
 * range [front, back) of the tasks from the part's base; a line of its own,
 * as each thread takes from its own block. */
typedef struct workers_block {
    _Alignas(64) atomic_uint_fast64_t range;
} workers_block;

/* The most tasks a job hands out at once (its blocks count in 32 bits): a
 * larger job is handed out in parts. */
#define PART_TASKS ((size_t)UINT32_MAX)

typedef struct workers_job {
    glcollide_task_fn fn;
    void *user;
    size_t base;      /* the first task of the part being handed out */
    int participants; /* threads that may take tasks, the caller's included */
    int linger;       /* a job of a chain: its workers look for the next (SPIN_MS) */
    int block_count;  /* a chain's: one a participant; another job's: one */
    workers_block blocks[GLCOLLIDE_WORKERS_MAX];
} workers_job;

static struct {
    pthread_mutex_t submit; /* held by the caller running a job on the pool */
    pthread_mutex_t lock;   /* the fields below */
    pthread_cond_t wake, idle;
    pthread_t *threads;
    int thread_count;   /* workers running (the pool has thread_count + 1 places) */
    atomic_uint_fast64_t job_id; /* bumped for every job handed to the workers */
    uint64_t rouse;              /* bumped by glcollide_workers_rouse */
    int roused;                  /* the workers it rouses: 1 .. roused - 1 */
    double rouse_until;          /* till when they look for a job after any (ms) */
    atomic_int open;             /* workers may still join the current job */
    atomic_int active;           /* workers inside the current job */
    int stop;           /* workers leave */
    workers_job job;
    atomic_int count;   /* threads a job may use; 0 until first asked */
    int atfork_done;
} pool = {.submit = PTHREAD_MUTEX_INITIALIZER,
          .lock = PTHREAD_MUTEX_INITIALIZER,
          .wake = PTHREAD_COND_INITIALIZER,
          .idle = PTHREAD_COND_INITIALIZER};

/* ------------------------------------------------------------- the count */

int glcollide_workers_default_count(void)
{
    cpu_set_t set;
    int cpus = 1;
    if (sched_getaffinity(0, sizeof set, &set) == 0)
        cpus = CPU_COUNT(&set);
    if (cpus < 1)
        cpus = 1;
    return cpus < WORKERS_DEFAULT_CAP ? cpus : WORKERS_DEFAULT_CAP;
}

/* GLCOLLIDE_THREADS: a positive whole number; anything else is reported
 * once and the default serves. 0 when unset or wrong. */
static int count_from_environment(void)
{
    const char *text = getenv("GLCOLLIDE_THREADS");
    if (!text || !*text)
        return 0;
    char *end = NULL;
    errno = 0;
    long n = strtol(text, &end, 10);
    if (errno || *end || n < 1 || n > GLCOLLIDE_WORKERS_MAX) {
        glcollide_log_warning("threads: GLCOLLIDE_THREADS='%s' is not a whole number from 1 to %d: "
                              "using %d (the CPUs this process may run on, at most %d)",
                              text, GLCOLLIDE_WORKERS_MAX, glcollide_workers_default_count(),
                              WORKERS_DEFAULT_CAP);
        return 0;
    }
    return (int)n;
}

int glcollide_workers_count(void)
{
    int n = atomic_load_explicit(&pool.count, memory_order_relaxed);
    if (n > 0)
        return n;
    n = count_from_environment();
    if (n == 0)
        n = glcollide_workers_default_count();
    int expected = 0;
    atomic_compare_exchange_strong(&pool.count, &expected, n);
    return atomic_load(&pool.count);
}

int glcollide_workers_set_count(int count)
{
    if (count < 0 || count > GLCOLLIDE_WORKERS_MAX)
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                              "threads: count %d is not from 0 (the default) to %d", count,
                              GLCOLLIDE_WORKERS_MAX);
    if (count == 0) {
        count = count_from_environment();
        if (count == 0)
            count = glcollide_workers_default_count();
    }
    atomic_store(&pool.count, count);
    return GLCOLLIDE_OK;
}

/* ------------------------------------------------------------- workers */

/* The part's tasks first .. end - 1 shared out among participants in
 * block_count blocks of consecutive tasks (the caller's fields: no worker
 * is in the job). */
static void share_out(workers_job *job, size_t first, size_t end, int participants, int block_count)
{
    size_t n = end - first;
    job->participants = participants;
    job->block_count = block_count;
    for (int b = 0; b < block_count; b++) {
        uint64_t front = first + n * (size_t)b / (size_t)block_count;
        uint64_t back = first + n * (size_t)(b + 1) / (size_t)block_count;
        atomic_store_explicit(&job->blocks[b].range, front << 32 | back, memory_order_relaxed);
    }
}

/*
 * A task for worker, into *task: the first left in its own block, else the
 * last left in another's. In a chain (a block a participant) a thread thus
 * takes the same stretch of each job's tasks (task k of each job mostly on
 * one thread), and what a task writes is mostly read later on the thread
 * that wrote it: data that another core wrote costs several times as much
 * to read (two bunnies' exact tests, 2 threads: 40% longer a task when the
 * tasks were handed out in turn, whoever came first). Any other job is one
 * block, taken in turn from the front: it has no next job to keep its data
 * for, and the worker it wakes from its parking comes tens of microseconds
 * late, so that the tasks at the front of a block of its own would wait for
 * it (the ODE space's pairs of a 300-object pile's first 100 steps: 10%
 * longer on 2 threads in blocks).
 */
static int take_task(workers_job *job, int worker, size_t *task)
{
    int n = job->block_count;
    for (int k = 0; k < n; k++) {
        atomic_uint_fast64_t *range = &job->blocks[(worker + k) % n].range;
        uint64_t v = atomic_load_explicit(range, memory_order_relaxed);
        while ((uint32_t)(v >> 32) < (uint32_t)v) {
            uint64_t rest = k == 0 ? v + ((uint64_t)1 << 32) : v - 1;
            if (atomic_compare_exchange_weak_explicit(range, &v, rest, memory_order_relaxed,
                                                      memory_order_relaxed)) {
                *task = job->base + (k == 0 ? (uint32_t)(v >> 32) : (uint32_t)v - 1);
                return 1;
            }
        }
    }
    return 0;
}

/* Takes tasks of job until none is left, or until the monotonic clock
 * (glcollide_now_ms) reaches deadline_ms after a task (0: no deadline). */
static void run_tasks(workers_job *job, int worker, double deadline_ms)
{
    size_t i;
    while (take_task(job, worker, &i)) {
        job->fn(job->user, i, worker);
        if (deadline_ms > 0.0 && glcollide_now_ms() >= deadline_ms)
            return;
    }
}

/* One turn of a bounded spin: 0 once SPIN_MS have passed since the first
 * turn (*deadline 0 before it); every 64 turns the clock is read and the
 * core offered to any other thread (sched_yield). */
static int spin_on(unsigned *turn, double *deadline)
{
    if ((++*turn & 63) == 0) {
        double now = glcollide_now_ms();
        if (*deadline == 0.0)
            *deadline = now + SPIN_MS;
        else if (now >= *deadline)
            return 0;
        sched_yield();
    }
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
    return 1;
}

/* Is worker one the last rouse asked for, and its time not over
 * (pool.lock held)? */
static int rouse_holds(int worker)
{
    return worker < pool.roused && glcollide_now_ms() < pool.rouse_until;
}

static void *worker_main(void *arg)
{
    int worker = (int)(intptr_t)arg; /* 1 .. thread_count; the caller is 0 */
    uint64_t seen = 0, rouse = 0;
    int linger = 0; /* the job just left was one of a chain, or a job is near */
    pthread_mutex_lock(&pool.lock);
    for (;;) {
        if (linger && !pool.stop && pool.job_id == seen) { /* the next job may be near */
            pthread_mutex_unlock(&pool.lock);
            unsigned turn = 0;
            double deadline = 0.0;
            while (atomic_load_explicit(&pool.job_id, memory_order_acquire) == seen &&
                   spin_on(&turn, &deadline))
                ;
            pthread_mutex_lock(&pool.lock);
        }
        while (!pool.stop && (pool.job_id == seen || !pool.open) && pool.rouse == rouse)
            pthread_cond_wait(&pool.wake, &pool.lock);
        if (pool.stop)
            break;
        if (pool.job_id == seen || !pool.open) { /* roused: a job is near */
            rouse = pool.rouse;
            linger = rouse_holds(worker);
            continue;
        }
        seen = pool.job_id;
        linger = pool.job.linger;
        if (worker >= pool.job.participants)
            continue;
        pool.active++;
        pthread_mutex_unlock(&pool.lock);
        run_tasks(&pool.job, worker, 0.0);
        pthread_mutex_lock(&pool.lock);
        if (--pool.active == 0)
            pthread_cond_broadcast(&pool.idle);
        linger = linger || rouse_holds(worker); /* roused for a job after this one */
    }
    pthread_mutex_unlock(&pool.lock);
    return NULL;
}

/* Joins every worker (pool.lock not held). */
static void stop_workers(void)
{
    pthread_mutex_lock(&pool.lock);
    pool.stop = 1;
    pthread_cond_broadcast(&pool.wake);
    pthread_mutex_unlock(&pool.lock);
    for (int i = 0; i < pool.thread_count; i++)
        pthread_join(pool.threads[i], NULL);
    pthread_mutex_lock(&pool.lock);
    free(pool.threads);
    pool.threads = NULL;
    pool.thread_count = 0;
    pool.stop = 0;
    pthread_mutex_unlock(&pool.lock);
}

static void fork_prepare(void)
{
    pthread_mutex_lock(&pool.submit);
    pthread_mutex_lock(&pool.lock);
}

static void fork_parent(void)
{
    pthread_mutex_unlock(&pool.lock);
    pthread_mutex_unlock(&pool.submit);
}

/* The child has only the thread that forked: no worker, and the pool's
 * locks made anew (they were held by that thread at the fork). */
static void fork_child(void)
{
    pool.threads = NULL; /* the parent's array: its threads are not here */
    pool.thread_count = 0;
    pool.open = pool.active = pool.stop = 0;
    pthread_mutex_init(&pool.submit, NULL);
    pthread_mutex_init(&pool.lock, NULL);
    pthread_cond_init(&pool.wake, NULL);
    pthread_cond_init(&pool.idle, NULL);
}

/* The library unloaded (dlclose) or the process ending: no worker may be
 * left running code that is about to go. */
__attribute__((destructor)) static void workers_unload(void)
{
    if (pool.thread_count)
        stop_workers();
}

/* Starts workers up to want - 1 (pool.submit held); fewer where threads
 * cannot be made (logged once): the job runs with those there are. */
static void grow(int want)
{
    if (!pool.atfork_done) {
        pthread_atfork(fork_prepare, fork_parent, fork_child);
        pool.atfork_done = 1;
    }
    if (want - 1 <= pool.thread_count)
        return;
    pthread_t *threads = realloc(pool.threads, (size_t)(want - 1) * sizeof *threads);
    if (!threads)
        return;
    pool.threads = threads;
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    while (pool.thread_count < want - 1) {
        int worker = pool.thread_count + 1;
        int error = pthread_create(&pool.threads[pool.thread_count], NULL, worker_main,
                                   (void *)(intptr_t)worker);
        if (error) {
            static atomic_int told;
            if (!atomic_exchange(&told, 1))
                glcollide_log_warning("threads: cannot start worker %d: %s; running with %d",
                                      worker, strerror(error), pool.thread_count + 1);
            break;
        }
        pthread_mutex_lock(&pool.lock);
        pool.thread_count++;
        pthread_mutex_unlock(&pool.lock);
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
}

/* ------------------------------------------------------------- jobs */

/* The threads a caller asking for max_threads (0: the count) may have. */
static int threads_for(int max_threads)
{
    int threads = max_threads > 0 ? max_threads : glcollide_workers_count();
    return threads < GLCOLLIDE_WORKERS_MAX ? threads : GLCOLLIDE_WORKERS_MAX;
}

void glcollide_workers_rouse(int max_threads)
{
    int threads = threads_for(max_threads);
    if (threads <= 1 || pthread_mutex_trylock(&pool.submit) != 0)
        return; /* no worker wanted, or the pool busy with another caller's job */
    grow(threads);
    pthread_mutex_lock(&pool.lock);
    pool.rouse++;
    pool.roused = threads;
    pool.rouse_until = glcollide_now_ms() + SPIN_MS;
    pthread_cond_broadcast(&pool.wake);
    pthread_mutex_unlock(&pool.lock);
    pthread_mutex_unlock(&pool.submit);
}

/* Tasks base .. base + count - 1 of the job (count at most PART_TASKS):
 * the caller alone for up to serial_ms first (0: no such start), then the
 * workers woken for the rest (pool.submit held, no job open). */
static void run_part(size_t base, size_t count, int threads, double serial_ms)
{
    size_t first = 0;
    pool.job.base = base;
    if (serial_ms > 0.0) {
        share_out(&pool.job, 0, count, 1, 1);
        run_tasks(&pool.job, 0, glcollide_now_ms() + serial_ms);
        first = atomic_load_explicit(&pool.job.blocks[0].range, memory_order_relaxed) >> 32;
        if (first >= count)
            return; /* every task done: no worker woken */
    }
    grow(threads);
    pthread_mutex_lock(&pool.lock);
    int participants = threads < pool.thread_count + 1 ? threads : pool.thread_count + 1;
    share_out(&pool.job, first, count, participants, pool.job.linger ? participants : 1);
    pool.job_id++;
    pool.open = 1;
    pthread_cond_broadcast(&pool.wake);
    pthread_mutex_unlock(&pool.lock);

    run_tasks(&pool.job, 0, 0.0);

    /* Every task is handed out; wait for those still running (briefly
     * spinning: the last is usually near its end), and let no late worker
     * join. */
    unsigned turn = 0;
    double deadline = 0.0;
    while (atomic_load_explicit(&pool.active, memory_order_acquire) > 0 &&
           spin_on(&turn, &deadline))
        ;
    pthread_mutex_lock(&pool.lock);
    pool.open = 0;
    while (pool.active > 0)
        pthread_cond_wait(&pool.idle, &pool.lock);
    pthread_mutex_unlock(&pool.lock);
}

/* The job of count tasks: the caller alone for up to serial_ms first (0: no
 * such start), then the workers woken for the rest; lingering, they look
 * for the next job for SPIN_MS before they park. */
static int run_job(size_t count, int max_threads, double serial_ms, int linger,
                   glcollide_task_fn fn, void *user)
{
    if (!fn && count)
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT, "threads: run with no task");
    int threads = threads_for(max_threads);
    if ((size_t)threads > count)
        threads = (int)count;
    /* One thread, or the pool busy with another caller's job: this thread
     * does it all (worker 0, as the caller always is). */
    if (threads <= 1 || pthread_mutex_trylock(&pool.submit) != 0) {
        for (size_t i = 0; i < count; i++)
            fn(user, i, 0);
        return GLCOLLIDE_OK;
    }
    /* The workers are between jobs (pool.submit held, no job open): the
     * job's fields are this thread's until it is handed out. */
    pool.job.fn = fn;
    pool.job.linger = linger;
    pool.job.user = user;
    for (size_t base = 0; base < count; base += PART_TASKS)
        run_part(base, count - base < PART_TASKS ? count - base : PART_TASKS, threads,
                 base == 0 ? serial_ms : 0.0);
    pthread_mutex_unlock(&pool.submit);
    return GLCOLLIDE_OK;
}

int glcollide_workers_run_after(size_t count, int max_threads, double serial_ms,
                                glcollide_task_fn fn, void *user)
{
    return run_job(count, max_threads, serial_ms, 0, fn, user);
}

int glcollide_workers_run_chain(size_t count, int max_threads, double serial_ms,
                                glcollide_task_fn fn, void *user)
{
    return run_job(count, max_threads, serial_ms, 1, fn, user);
}

int glcollide_workers_run(size_t count, int max_threads, glcollide_task_fn fn, void *user)
{
    return glcollide_workers_run_after(count, max_threads, 0.0, fn, user);
}
