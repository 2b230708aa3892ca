/* SPDX-License-Identifier: MIT */
/* Helpers shared by the benchmark programs: a monotonic clock, medians, peak
 * memory, and the one CSV row format of tests/bench/run.sh. */
#ifndef GLCOLLIDE_BENCH_H
#define GLCOLLIDE_BENCH_H

#include "helpers/splitmix64.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static inline double bench_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

/* CPU time of the calling thread in milliseconds: what a call costs
 * whatever else the machine runs meanwhile. */
static inline double bench_thread_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static inline int bench_compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median of v[0..n) (sorts v). */
static inline double bench_median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, bench_compare_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* A field of /proc/self/status in kB (VmHWM: peak resident memory), 0 if absent. */
static inline double bench_status_kib(const char *field)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    double kib = 0;
    size_t len = strlen(field);
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, field, len) && line[len] == ':')
            kib = atof(line + len + 1);
    if (f)
        fclose(f);
    return kib;
}

/* Starts a new peak-memory window: VmHWM drops to the current RSS (Linux
 * clear_refs "5"), so a row's peak is what was resident while it ran (its
 * scene's data and the GL driver included), not an earlier row's peak. */
static inline void bench_peak_reset(void)
{
    FILE *f = fopen("/proc/self/clear_refs", "w");
    if (f) {
        fputs("5", f);
        fclose(f);
    }
}

static inline double bench_peak_rss_mb(void) { return bench_status_kib("VmHWM") / 1024.0; }

/* glcollide's GL storage so far in this process, MiB (see
 * glcollide_gl_storage_allocated: a high-water mark, no releases counted). */
#define BENCH_GPU_MB() ((double)glcollide_gl_storage_allocated() / 1048576.0)

/* One row of the benchmark CSV (tests/bench/run.sh writes the header):
 * device,bench,scene,method,size,size_unit,triangles,repeats,median_ms,min_ms,
 * max_ms,candidates,contacts,pairs,draw_calls,gpu_syncs,readback_bytes,
 * triangles_rasterized,peak_rss_mb,gpu_buffer_mb
 * Counters that do not apply are BENCH_NONE and print empty. */
#define BENCH_NONE (-1.0)
typedef struct bench_row {
    const char *device, *bench, *scene, *method, *size_unit;
    double size, triangles;
    int repeats;
    double median_ms, min_ms, max_ms;
    double candidates, contacts, pairs, draw_calls, gpu_syncs, readback_bytes,
        triangles_rasterized, peak_rss_mb, gpu_buffer_mb;
} bench_row;

/* A row with every counter empty. */
static inline bench_row bench_row_empty(void)
{
    bench_row r = {0};
    r.triangles = r.candidates = r.contacts = r.pairs = r.draw_calls = r.gpu_syncs =
        r.readback_bytes = r.triangles_rasterized = r.peak_rss_mb = r.gpu_buffer_mb = BENCH_NONE;
    return r;
}

/* Fills median, min and max from times[0..n) (sorts it). */
static inline void bench_row_times(bench_row *r, double *times, int n)
{
    r->repeats = n;
    r->median_ms = bench_median(times, n);
    r->min_ms = times[0];
    r->max_ms = times[n - 1];
}

static inline void bench_csv_field(double v, int decimals)
{
    if (v >= 0)
        printf(",%.*f", decimals, v);
    else
        printf(",");
}

/* Device names may hold commas and parentheses: commas become semicolons. */
static inline void bench_csv_text(const char *s)
{
    for (; s && *s; s++)
        putchar(*s == ',' || *s == '"' || *s == '\n' ? ';' : *s);
}

static inline void bench_row_print(const bench_row *r)
{
    bench_csv_text(r->device);
    printf(",%s,%s,%s,%.0f,%s", r->bench, r->scene, r->method, r->size, r->size_unit);
    bench_csv_field(r->triangles, 0);
    printf(",%d,%.4f,%.4f,%.4f", r->repeats, r->median_ms, r->min_ms, r->max_ms);
    bench_csv_field(r->candidates, 0);
    bench_csv_field(r->contacts, 0);
    bench_csv_field(r->pairs, 0);
    bench_csv_field(r->draw_calls, 0);
    bench_csv_field(r->gpu_syncs, 0);
    bench_csv_field(r->readback_bytes, 0);
    bench_csv_field(r->triangles_rasterized, 0);
    bench_csv_field(r->peak_rss_mb, 1);
    bench_csv_field(r->gpu_buffer_mb, 3);
    putchar('\n');
    fflush(stdout);
}

#endif
