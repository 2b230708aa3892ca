/* SPDX-License-Identifier: MIT */
/*
 * Benchmark (not a test): particles against analytic colliders (Knott's
 * CInDeR ch. 3) on the hail scene of demos/hail (7 colliders: ground, two
 * roof planes, a dome (half ellipsoid: quartic solves), a table, a bin wall
 * (cylinder) and lid (disc)), for 10^4, 10^5 and 10^6 hailstones, steps of
 * 1/60 s, median of --repeat steps (5) after one warm-up step:
 *
 *   gpu-records: glcollide_particles_step, one record per impact read back;
 *   gpu-map:     the same with the impact map (7 tiles of 128^2 RGBA32F)
 *                read back instead of records;
 *   cpu:         glcollide_particles_reference_step (the double-precision
 *                twin, one thread), records.
 *
 * One CSV line per row: method,particles,ms_median,particles_per_s,
 * draw_calls,syncs,readback_bytes,impacts (per step).
 * --csv --size N: N particles only, rows of tests/bench/run.sh (bench.h):
 * contacts = impacts in the last step, peak memory per method.
 */
#define _POSIX_C_SOURCE 200809L
#include "bench.h"

#include "helpers/hail_scene.h"

#include <glcollide/glcollide.h>
#include <glcollide/particles.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_REPEAT 64

static int csv;
static const char *device = "";

static int run_row(const char *method, glcollide_particles *system, const glcollide_particle *particles,
                   size_t n, const glcollide_collider *colliders, size_t nc,
                   const glcollide_particles_settings *settings, int feedback, int repeat)
{
    glcollide_particles_step_options options = {feedback, 0};
    glcollide_particles_result result;
    memset(&result, 0, sizeof result);
    double times[MAX_REPEAT];
    glcollide_particles_stats last;
    memset(&last, 0, sizeof last);
    const double dt = 1.0 / 60;
    bench_peak_reset();
    for (int r = -1; r < repeat; r++) {
        double t0 = 3.0 + (r + 1) * dt, t1 = t0 + dt;
        double start = bench_now_ms();
        int status = system ? glcollide_particles_step(system, t0, t1, &options, &result)
                            : glcollide_particles_reference_step(particles, n, colliders, nc, settings,
                                                                 t0, t1, &options, &result);
        double ms = bench_now_ms() - start;
        if (status != GLCOLLIDE_OK) {
            fprintf(stderr, "bench-particles: %s failed: %s\n", method, glcollide_status_string(status));
            glcollide_particles_result_clear(&result);
            return 1;
        }
        if (r >= 0)
            times[r] = ms;
        last = result.stats;
    }
    if (csv) {
        bench_row row = bench_row_empty();
        bench_row_times(&row, times, repeat);
        row.device = device, row.bench = "particles", row.scene = "hail";
        row.method = method, row.size = (double)n, row.size_unit = "particles";
        row.contacts = (double)last.impacts;
        if (system) {
            row.draw_calls = (double)last.draw_calls, row.gpu_syncs = (double)last.gpu_syncs;
            row.readback_bytes = (double)last.readback_bytes;
            row.gpu_buffer_mb = BENCH_GPU_MB();
        }
        row.peak_rss_mb = bench_peak_rss_mb();
        bench_row_print(&row);
        glcollide_particles_result_clear(&result);
        return 0;
    }
    double median = bench_median(times, repeat);
    printf("%s,%zu,%.2f,%.0f,%llu,%llu,%llu,%llu\n", method, n, median, n / (median * 1e-3),
           (unsigned long long)last.draw_calls, (unsigned long long)last.gpu_syncs,
           (unsigned long long)last.readback_bytes, (unsigned long long)last.impacts);
    fflush(stdout);
    glcollide_particles_result_clear(&result);
    return 0;
}

int main(int argc, char **argv)
{
    int repeat = 5;
    size_t max_particles = 1000000, only = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--csv"))
            csv = 1;
        else if (!strcmp(argv[i], "--size") && i + 1 < argc)
            only = (size_t)strtoull(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--repeat") && i + 1 < argc)
            repeat = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--max-particles") && i + 1 < argc)
            max_particles = (size_t)strtoull(argv[++i], NULL, 10);
        else {
            fprintf(stderr, "usage: bench-particles [--repeat N] [--max-particles N] "
                            "[--csv --size N]\n");
            return 2;
        }
    }
    if (repeat < 1 || repeat > MAX_REPEAT) {
        fprintf(stderr, "bench-particles: --repeat between 1 and %d\n", MAX_REPEAT);
        return 2;
    }
    glcollide_context *context = NULL;
    if (glcollide_context_create_egl(&context) != GLCOLLIDE_OK)
        return 1;
    glcollide_collider colliders[HAIL_COLLIDERS];
    size_t nc = hail_scene_colliders(colliders);
    glcollide_particles_settings settings = hail_scene_settings();
    device = glcollide_context_caps(context)->renderer;
    if (!csv) {
        printf("renderer: %s; hail scene, %zu colliders, steps of 1/60 s, medians of %d steps; "
               "map %dx%d per collider\n",
               device, nc, repeat, settings.map_tile, settings.map_tile);
        printf("method,particles,ms_median,particles_per_s,draw_calls,syncs,readback_bytes,"
               "impacts\n");
    }
    int failed = 0;
    size_t first = only ? only : 10000, last = only ? only : max_particles;
    for (size_t n = first; n <= last && !failed; n *= 10) {
        glcollide_particle *particles = hail_scene_particles(n, 0x4A11u + n);
        glcollide_particles *system = NULL;
        if (!particles || glcollide_particles_create(context, &settings, &system) != GLCOLLIDE_OK ||
            glcollide_particles_set_colliders(system, colliders, nc) != GLCOLLIDE_OK ||
            glcollide_particles_set_particles(system, particles, n) != GLCOLLIDE_OK) {
            fprintf(stderr, "bench-particles: setup failed\n");
            failed = 1;
        }
        if (!failed)
            failed |= run_row("gpu-records", system, particles, n, colliders, nc, &settings,
                              GLCOLLIDE_FEEDBACK_RECORDS, repeat);
        if (!failed)
            failed |= run_row("gpu-map", system, particles, n, colliders, nc, &settings,
                              GLCOLLIDE_FEEDBACK_IMPACT_MAP, repeat);
        if (!failed)
            failed |= run_row("cpu", NULL, particles, n, colliders, nc, &settings,
                              GLCOLLIDE_FEEDBACK_RECORDS, repeat);
        glcollide_particles_destroy(&system);
        free(particles);
    }
    glcollide_context_destroy(&context);
    return failed;
}
