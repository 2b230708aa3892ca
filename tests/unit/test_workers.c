/* SPDX-License-Identifier: MIT */
/* The worker pool: every task once, workers within the count, a thread done
 * with its own block of a chain's job takes others' tasks, a job inside a
 * task or on a second thread runs on its caller, a forked child gets workers
 * of its own, roused workers park again, GLCOLLIDE_THREADS read as
 * documented. */
#define _POSIX_C_SOURCE 200809L
#include "core/internal.h" /* white box: glcollide_workers_run_after, _run_chain */
#include "helpers/tests.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

typedef struct tally {
    atomic_int *runs;   /* per task */
    atomic_uint workers; /* bit per worker seen (31: any beyond) */
} tally;

static void count_task(void *user, size_t index, int worker)
{
    tally *t = user;
    atomic_fetch_add(&t->runs[index], 1);
    atomic_fetch_or(&t->workers, worker < 31 ? 1u << worker : 1u << 31);
}

/* Runs count tasks on threads and checks each ran once, on workers below threads. */
static unsigned run_and_check(size_t count, int threads)
{
    atomic_int *runs = calloc(count ? count : 1, sizeof *runs);
    ck_assert_ptr_nonnull(runs);
    tally t = {runs, 0};
    ck_assert_int_eq(glcollide_workers_run(count, threads, count_task, &t), GLCOLLIDE_OK);
    for (size_t i = 0; i < count; i++)
        ck_assert_msg(atomic_load(&runs[i]) == 1, "task %zu of %zu ran %d times on %d threads", i,
                      count, atomic_load(&runs[i]), threads);
    unsigned seen = atomic_load(&t.workers);
    int limit = threads > 0 ? threads : glcollide_workers_count();
    for (int w = limit; w < 32; w++)
        ck_assert_msg(!(seen & (1u << w)), "a task ran on worker %d of %d threads", w, limit);
    free(runs);
    return atomic_load(&t.workers);
}

START_TEST(test_every_task_once)
{
    const size_t counts[] = {0, 1, 2, 7, 1000, 20000};
    const int threads[] = {1, 2, 3, 8, 0};
    for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++)
        for (size_t t = 0; t < sizeof threads / sizeof threads[0]; t++)
            run_and_check(counts[c], threads[t]);
    /* one thread: the caller alone, as worker 0 */
    ck_assert_int_eq(run_and_check(100, 1), 1);
}
END_TEST

/* Each of n tasks ran once (pass: the check's pass, for the message). */
static void check_each_once(atomic_int *runs, int n, int pass)
{
    for (int i = 0; i < n; i++)
        ck_assert_msg(atomic_load(&runs[i]) == 1, "pass %d: task %d ran %d times", pass, i,
                      atomic_load(&runs[i]));
}

/* A task that takes about a millisecond. */
static void slow_task(void *user, size_t index, int worker)
{
    count_task(user, index, worker);
    struct timespec pause = {0, 1000000};
    nanosleep(&pause, NULL);
}

/* The calling thread first runs tasks alone for serial_ms: a job done in
 * that time never wakes a worker; a longer one is shared with them; every
 * task runs once either way. */
START_TEST(test_serial_first)
{
    enum { TASKS = 100 };
    atomic_int runs[TASKS];
    for (int pass = 0; pass < 2; pass++) {
        for (int i = 0; i < TASKS; i++)
            atomic_store(&runs[i], 0);
        tally t = {runs, 0};
        /* pass 0: an hour is enough for every task; pass 1: 2 ms is not */
        double serial_ms = pass == 0 ? 3.6e6 : 2.0;
        ck_assert_int_eq(glcollide_workers_run_after(TASKS, 4, serial_ms, slow_task, &t),
                         GLCOLLIDE_OK);
        check_each_once(runs, TASKS, pass);
        unsigned seen = atomic_load(&t.workers);
        if (pass == 0)
            ck_assert_msg(seen == 1, "a job done within its serial time woke workers (0x%x)", seen);
        else
            ck_assert_msg(seen != 1, "a 100 ms job stayed on its caller past 2 ms (0x%x)", seen);
        ck_assert_msg(!(seen & ~0xfu), "a task ran beyond 4 threads (0x%x)", seen);
    }
    /* no task: nothing to run, no failure */
    ck_assert_int_eq(glcollide_workers_run_after(0, 4, 1.0, count_task, NULL), GLCOLLIDE_OK);
}
END_TEST

/* Tasks of the caller's block (the first half) wait until a worker has
 * taken one of them: a worker that has emptied its own block takes the
 * others' (from their back), or the caller would wait here forever. */
typedef struct block_job {
    atomic_int *runs;
    size_t count;
    atomic_int taken; /* a task of the caller's block ran on a worker */
    atomic_int waited_out;
} block_job;

static void block_task(void *user, size_t index, int worker)
{
    block_job *job = user;
    atomic_fetch_add(&job->runs[index], 1);
    if (index >= job->count / 2)
        return;
    if (worker != 0) {
        atomic_store(&job->taken, 1);
        return;
    }
    if (index == 0 || atomic_load(&job->waited_out))
        return;
    for (int i = 0; i < 10000 && !atomic_load(&job->taken); i++) { /* 10 s at most */
        struct timespec pause = {0, 1000000};
        nanosleep(&pause, NULL);
    }
    if (!atomic_load(&job->taken))
        atomic_store(&job->waited_out, 1);
}

/* A chain's jobs hand their tasks out in blocks, one a thread; a thread
 * that has run its own takes the others' that are left: every task once,
 * and the caller's block shared with a worker that is done with its own. */
START_TEST(test_blocks)
{
    enum { TASKS = 100 };
    atomic_int runs[TASKS];
    for (int pass = 0; pass < 3; pass++) {
        for (int i = 0; i < TASKS; i++)
            atomic_store(&runs[i], 0);
        block_job job = {runs, TASKS, 0, 0};
        ck_assert_int_eq(glcollide_workers_run_chain(TASKS, 2, 0.0, block_task, &job),
                         GLCOLLIDE_OK);
        check_each_once(runs, TASKS, pass);
        ck_assert_msg(!atomic_load(&job.waited_out),
                      "pass %d: no worker took a task of the caller's block in 10 s", pass);
    }
}
END_TEST

/* A task that runs a job of its own: the pool is busy, so that job runs on
 * the task's thread, and both finish. */
static void nested_task(void *user, size_t index, int worker)
{
    (void)index;
    (void)worker;
    atomic_int *done = user;
    atomic_int runs[10] = {0};
    tally t = {runs, 0};
    glcollide_workers_run(10, 4, count_task, &t);
    int all = 1;
    for (int i = 0; i < 10; i++)
        all &= atomic_load(&runs[i]) == 1;
    atomic_fetch_add(done, all);
}

START_TEST(test_nested_job)
{
    atomic_int done = 0;
    ck_assert_int_eq(glcollide_workers_run(16, 4, nested_task, &done), GLCOLLIDE_OK);
    ck_assert_int_eq(atomic_load(&done), 16);
}
END_TEST

static void *jobs_in_thread(void *arg)
{
    atomic_int *ok = arg;
    for (int i = 0; i < 200; i++) {
        atomic_int runs[64] = {0};
        tally t = {runs, 0};
        glcollide_workers_run(64, 4, count_task, &t);
        for (int k = 0; k < 64; k++)
            if (atomic_load(&runs[k]) != 1)
                return NULL;
    }
    atomic_fetch_add(ok, 1);
    return NULL;
}

/* Jobs from two threads at once: each completes, whichever gets the pool. */
START_TEST(test_two_callers)
{
    atomic_int ok = 0;
    pthread_t threads[2];
    for (int i = 0; i < 2; i++)
        ck_assert_int_eq(pthread_create(&threads[i], NULL, jobs_in_thread, &ok), 0);
    for (int i = 0; i < 2; i++)
        pthread_join(threads[i], NULL);
    ck_assert_int_eq(atomic_load(&ok), 2);
}
END_TEST

/* CPU time of the whole process, in ms. */
static double process_cpu_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return 1e3 * (double)t.tv_sec + 1e-6 * (double)t.tv_nsec;
}

/* A task that rouses the pool while it is running a job: nothing happens. */
static void rousing_task(void *user, size_t index, int worker)
{
    glcollide_workers_rouse(4);
    count_task(user, index, worker);
}

/* Rousing changes no job: every task still runs once, on workers within the
 * count, whether roused for fewer threads, more, or from inside a task; and
 * roused workers park again: a process left alone for 100 ms after rousing
 * (and after a job run while roused) spends at most a few ms of CPU time,
 * not the 300 ms of three workers that never park. */
START_TEST(test_rouse)
{
    glcollide_workers_rouse(1); /* no worker wanted: nothing */
    run_and_check(100, 1);
    glcollide_workers_rouse(4);
    run_and_check(1000, 4);
    glcollide_workers_rouse(2);
    run_and_check(1000, 4);
    glcollide_workers_rouse(8);
    run_and_check(1000, 3);
    glcollide_workers_rouse(0);
    run_and_check(1000, 0);
    atomic_int runs[64] = {0};
    tally t = {runs, 0};
    ck_assert_int_eq(glcollide_workers_run(64, 4, rousing_task, &t), GLCOLLIDE_OK);
    for (int i = 0; i < 64; i++)
        ck_assert_int_eq(atomic_load(&runs[i]), 1);

    for (int pass = 0; pass < 2; pass++) {
        run_and_check(1000, 4); /* the workers made */
        struct timespec settle = {0, 20000000};
        nanosleep(&settle, NULL); /* parked */
        glcollide_workers_rouse(4);
        if (pass)
            run_and_check(10, 4);
        double before = process_cpu_ms();
        struct timespec pause = {0, 100000000};
        nanosleep(&pause, NULL);
        double spent = process_cpu_ms() - before;
        ck_assert_msg(spent < 30.0, "pass %d: %.1f ms of CPU time in 100 ms after rousing", pass,
                      spent);
    }
}
END_TEST

/* After jobs made workers, a forked child runs jobs (on workers of its own)
 * and ends; the parent's pool still serves. */
START_TEST(test_fork)
{
    run_and_check(1000, 4);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        alarm(30); /* a hang ends the child with SIGALRM */
        glcollide_workers_rouse(4); /* no worker yet: made now */
        int workers = run_and_check(100000, 4);
        _exit(workers ? 0 : 1);
    }
    int status = 0;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
                  "the forked child did not finish its job (status %d)", status);
    run_and_check(1000, 4);
}
END_TEST

START_TEST(test_count_setting)
{
    int before = glcollide_workers_count();
    ck_assert_int_ge(before, 1);
    int cpus = glcollide_workers_default_count();
    ck_assert_int_ge(cpus, 1);
    ck_assert_int_le(cpus, 16);

    ck_assert_int_eq(glcollide_workers_set_count(5), GLCOLLIDE_OK);
    ck_assert_int_eq(glcollide_workers_count(), 5);
    setenv("GLCOLLIDE_THREADS", "3", 1);
    ck_assert_int_eq(glcollide_workers_set_count(0), GLCOLLIDE_OK);
    ck_assert_int_eq(glcollide_workers_count(), 3);

    setenv("GLCOLLIDE_THREADS", "three", 1);
    test_log_capture_start(GLCOLLIDE_LOG_WARNING);
    ck_assert_int_eq(glcollide_workers_set_count(0), GLCOLLIDE_OK);
    test_log_capture_stop();
    ck_assert_int_eq(test_log_count(), 1);
    char expected[256];
    snprintf(expected, sizeof expected,
             "threads: GLCOLLIDE_THREADS='three' is not a whole number from 1 to 256: using %d "
             "(the CPUs this process may run on, at most 16)",
             cpus);
    ck_assert_str_eq(test_log_last(), expected);
    ck_assert_int_eq(glcollide_workers_count(), cpus);

    test_log_capture_start(GLCOLLIDE_LOG_WARNING);
    TEST_ASSERT_FAILED(glcollide_workers_set_count(257), GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                       "threads: count 257 is not from 0 (the default) to 256");
    test_log_capture_stop();
    test_log_capture_start(GLCOLLIDE_LOG_WARNING);
    TEST_ASSERT_FAILED(glcollide_workers_run(3, 2, NULL, NULL), GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                       "threads: run with no task");
    test_log_capture_stop();
    unsetenv("GLCOLLIDE_THREADS");
    glcollide_workers_set_count(0);
}
END_TEST

Suite *suite_workers(void)
{
    Suite *suite = suite_create("workers");
    TCase *tc = tcase_create("pool");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_every_task_once);
    tcase_add_test(tc, test_serial_first);
    tcase_add_test(tc, test_blocks);
    tcase_add_test(tc, test_nested_job);
    tcase_add_test(tc, test_two_callers);
    tcase_add_test(tc, test_rouse);
    tcase_add_test(tc, test_count_setting);
    suite_add_tcase(suite, tc);
    /* Tagged: make tsan leaves it out (ThreadSanitizer does not follow a
     * child forked from a threaded process). */
    TCase *fork = tcase_create("fork");
    tcase_set_tags(fork, "fork");
    tcase_set_timeout(fork, 120);
    tcase_add_test(fork, test_fork);
    suite_add_tcase(suite, fork);
    return suite;
}
