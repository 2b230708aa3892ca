/* SPDX-License-Identifier: MIT */
/*
 * The ODE plugin's GPU path against its CPU twin (containment, new meshes
 * uploaded alone, no allocation once warm, the automatic choice), and the
 * plugin's life: the GL context made only when needed, init and shutdown
 * counted, calls before init.
 */
#define _GNU_SOURCE
#include "helpers/tests.h"
#include "ode/ode_tests.h"

#include "programs/ode_demo.h"

#include <glcollide/geometry.h>
#include <glcollide/ode.h>

#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * A solid wholly inside another (no surfaces meet) is pushed out with the
 * GPU culling on exactly as on the CPU: GPU culling finds no candidate
 * triangle pair for it, and must not drop the pair. Cases: a sphere inside
 * a box; a sphere turned 45 degrees inside a slightly larger sphere, whose
 * rotated box is not inside the outer one's (a box test alone misses it);
 * the same with the outer one turned.
 */
START_TEST(test_contained_gpu_equals_cpu)
{
    const char *skip = getenv("GLCOLLIDE_TEST_SKIP_GL");
    if (skip && strcmp(skip, "1") == 0)
        return;
    glcollide_mesh *box = NULL, *small = NULL, *inner = NULL, *outer = NULL;
    ck_assert_int_eq(glcollide_mesh_generate_box(0.4, 0.4, 0.4, &box), GLCOLLIDE_OK);
    ck_assert_int_eq(glcollide_mesh_generate_sphere(0.05, 12, 6, &small), GLCOLLIDE_OK);
    ck_assert_int_eq(glcollide_mesh_generate_sphere(0.3, 24, 12, &inner), GLCOLLIDE_OK);
    ck_assert_int_eq(glcollide_mesh_generate_sphere(0.35, 24, 12, &outer), GLCOLLIDE_OK);
    static const struct {
        const char *what;
        int pair; /* 0: box and small sphere, 1: the two spheres */
        double offset[3], yaw_inner, yaw_outer;
    } cases[] = {{"small sphere in a box", 0, {0.13, 0.02, -0.05}, 0.3, 0},
                 {"turned sphere in a sphere", 1, {0.005, -0.004, 0.003}, 0.25 * M_PI, 0},
                 {"sphere in a turned sphere", 1, {0.003, 0.002, -0.004}, 0, 0.25 * M_PI}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        mesh_data md_outer, md_inner;
        mesh_data_build(&md_outer, cases[c].pair ? outer : box);
        mesh_data_build(&md_inner, cases[c].pair ? inner : small);
        dSpaceID space = dSimpleSpaceCreate(NULL);
        dGeomID go = dCreateTriMesh(space, md_outer.data, NULL, NULL, NULL);
        dGeomID gi = dCreateTriMesh(space, md_inner.data, NULL, NULL, NULL);
        dMatrix3 r;
        dRFromAxisAndAngle(r, 0, 0, 1, cases[c].yaw_outer);
        dGeomSetRotation(go, r);
        dRFromAxisAndAngle(r, 0, 0, 1, cases[c].yaw_inner);
        dGeomSetRotation(gi, r);
        dGeomSetPosition(gi, cases[c].offset[0], cases[c].offset[1], cases[c].offset[2]);
        /* CPU; GPU culling; GPU culling with the stencil flags pass */
        step_contacts got[3];
        unsigned long long contained[3];
        for (int gpu = 0; gpu < 3; gpu++) {
            glcollide_ode_set_gpu(gpu ? GLCOLLIDE_ODE_GPU_ALWAYS : GLCOLLIDE_ODE_GPU_NEVER);
            glcollide_ode_set_stencil_flags(gpu == 2 ? GLCOLLIDE_ODE_STENCIL_RESOLUTION : 0);
            glcollide_ode_stats before, after;
            glcollide_ode_get_stats(&before);
            got[gpu].count = 0;
            glcollide_ode_space_collide(space, &got[gpu], collide_pair);
            glcollide_ode_get_stats(&after);
            contained[gpu] = after.contained - before.contained;
            if (gpu)
                ck_assert_msg(after.gpu_queries > before.gpu_queries, "%s: no GPU culling ran",
                              cases[c].what);
            if (gpu == 2) {
                ck_assert_msg(after.stencil_passes == before.stencil_passes + 1,
                              "%s: no stencil pass ran", cases[c].what);
                /* deep inside at 256 pixels: flagged */
                ck_assert_msg(after.stencil_flagged == before.stencil_flagged + 1 &&
                                  after.stencil_missed == before.stencil_missed,
                              "%s: the stencil did not flag the contained pair", cases[c].what);
            }
        }
        glcollide_ode_set_stencil_flags(0);
        ck_assert_msg(got[0].count > 0 && contained[0] == 1,
                      "%s: CPU path: %d contacts, %llu pairs pushed out", cases[c].what,
                      got[0].count, contained[0]);
        for (int gpu = 1; gpu < 3; gpu++)
            ck_assert_msg(got[gpu].count == got[0].count && contained[gpu] == contained[0],
                          "%s: GPU path %d: %d contacts (%llu contained), CPU path %d",
                          cases[c].what, gpu, got[gpu].count, contained[gpu], got[0].count);
        for (int i = 0; i < 2 * got[0].count; i++) {
            const dContactGeom *x = &got[0].contacts[i / 2], *y = &got[1 + i % 2].contacts[i / 2];
            ck_assert_msg(x->depth == y->depth && memcmp(x->pos, y->pos, sizeof x->pos) == 0 &&
                              memcmp(x->normal, y->normal, sizeof x->normal) == 0 &&
                              x->g1 == y->g1 && x->side1 == y->side1 && x->side2 == y->side2,
                          "%s: contact %d differs between the GPU and CPU paths", cases[c].what, i);
        }
        dSpaceDestroy(space);
        mesh_data_free(&md_outer);
        mesh_data_free(&md_inner);
    }
    glcollide_ode_set_gpu(GLCOLLIDE_ODE_GPU_AUTO);
    glcollide_mesh_destroy(&box);
    glcollide_mesh_destroy(&small);
    glcollide_mesh_destroy(&inner);
    glcollide_mesh_destroy(&outer);
}
END_TEST

/*
 * Geoms that cannot meet anything, or only each other, with GPU culling
 * forced: two at NaN (ODE's box is NaN: no pair), one alone at 1e300, two
 * at 1e300 touching each other, beside a finite stack of three boxes. The
 * finite pairs and the far pair get the contacts of the CPU path, bit for
 * bit; the far pair is kept (its candidates from the CPU's BVHs, not the
 * views, which keep the finite boxes' pixels); the GPU ran.
 */
START_TEST(test_far_geoms_gpu_equals_cpu)
{
    const char *skip = getenv("GLCOLLIDE_TEST_SKIP_GL");
    if (skip && strcmp(skip, "1") == 0)
        return;
    glcollide_mesh *box = NULL;
    ck_assert_int_eq(glcollide_mesh_generate_box(0.5, 0.5, 0.5, &box), GLCOLLIDE_OK);
    mesh_data md;
    mesh_data_build(&md, box);
    dSpaceID space = dSimpleSpaceCreate(NULL);
    static const double places[][3] = {{0, 0, 0},       {0.02, 0, 0.99}, {0.04, 0, 1.98},
                                       {NAN, 0, 0},     {0, NAN, 1},     {1e300, 0, 0},
                                       {1e300, 0.9, 0}, {-1e300, 0, 0}};
    for (size_t i = 0; i < sizeof places / sizeof places[0]; i++) {
        dGeomID g = dCreateTriMesh(space, md.data, NULL, NULL, NULL);
        dGeomSetPosition(g, places[i][0], places[i][1], places[i][2]);
    }
    step_contacts got[2];
    for (int gpu = 0; gpu < 2; gpu++) {
        glcollide_ode_set_gpu(gpu ? GLCOLLIDE_ODE_GPU_ALWAYS : GLCOLLIDE_ODE_GPU_NEVER);
        glcollide_ode_stats before, after;
        glcollide_ode_get_stats(&before);
        got[gpu].count = 0;
        glcollide_ode_space_collide(space, &got[gpu], collide_pair);
        glcollide_ode_get_stats(&after);
        /* the stack's two pairs and the far pair */
        ck_assert_uint_eq(after.callbacks - before.callbacks, 3);
        if (gpu)
            ck_assert_msg(after.gpu_queries == before.gpu_queries + 1 &&
                              after.culled_pairs == before.culled_pairs,
                          "GPU culling did not run, or culled a touching pair");
    }
    ck_assert_msg(got[0].count > 0 && got[1].count == got[0].count,
                  "%d contacts on the CPU path, %d with GPU culling", got[0].count, got[1].count);
    int far = 0;
    for (int i = 0; i < got[0].count; i++) {
        const dContactGeom *x = &got[0].contacts[i], *y = &got[1].contacts[i];
        far += x->pos[0] > 1e299;
        ck_assert_msg(x->depth == y->depth && memcmp(x->pos, y->pos, sizeof x->pos) == 0 &&
                          memcmp(x->normal, y->normal, sizeof x->normal) == 0 && x->g1 == y->g1 &&
                          x->g2 == y->g2 && x->side1 == y->side1 && x->side2 == y->side2,
                      "contact %d differs between the GPU and CPU paths", i);
    }
    ck_assert_msg(far > 0, "no contact of the pair at 1e300");
    glcollide_ode_set_gpu(GLCOLLIDE_ODE_GPU_AUTO);
    dSpaceDestroy(space);
    mesh_data_free(&md);
    glcollide_mesh_destroy(&box);
}
END_TEST

/*
 * A trimesh data met for the first time while GPU culling runs uploads that
 * mesh alone: the thread's culling world (which borrows the captures and
 * their BVHs) is kept when a capture is added, and made again only when
 * one is freed or rewritten. Two spheres of 4,608 triangles overlapping,
 * 3 steps; then a box joins them: its step uploads the box (its vertices
 * and 12 triangles), the poses and the mesh table, not the sphere again;
 * then the box deforms in place: its vertices alone travel again.
 */
START_TEST(test_gpu_new_mesh_uploads_alone)
{
    const char *skip = getenv("GLCOLLIDE_TEST_SKIP_GL");
    if (skip && strcmp(skip, "1") == 0)
        return;
    glcollide_mesh *sphere = NULL, *box = NULL;
    ck_assert_int_eq(glcollide_mesh_generate_sphere(0.3, 96, 24, &sphere), GLCOLLIDE_OK);
    ck_assert_int_eq(glcollide_mesh_generate_box(0.2, 0.2, 0.2, &box), GLCOLLIDE_OK);
    mesh_data md_sphere, md_box;
    mesh_data_build(&md_sphere, sphere);
    mesh_data_build(&md_box, box);
    dSpaceID space = glcollide_ode_space_create(NULL);
    dGeomID a = dCreateTriMesh(space, md_sphere.data, NULL, NULL, NULL);
    dGeomID b = dCreateTriMesh(space, md_sphere.data, NULL, NULL, NULL);
    dGeomSetPosition(a, 0, 0, 0);
    dGeomSetPosition(b, 0.5, 0, 0);
    glcollide_ode_set_gpu(GLCOLLIDE_ODE_GPU_ALWAYS);
    static step_contacts got;
    glcollide_ode_stats before, after;
    for (int step = 0; step < 3; step++) {
        got.count = 0;
        glcollide_ode_space_collide(space, &got, collide_pair);
    }
    dGeomID c = dCreateTriMesh(space, md_box.data, NULL, NULL, NULL);
    dGeomSetPosition(c, 0.25, 0.2, 0);
    glcollide_ode_get_stats(&before);
    got.count = 0;
    glcollide_ode_space_collide(space, &got, collide_pair);
    glcollide_ode_get_stats(&after);
    unsigned long long uploaded = after.upload_bytes - before.upload_bytes;
    size_t sphere_bytes = (16 * 3 + 12) * sphere->triangle_count;
    printf("a box joins two culled spheres: %llu bytes uploaded (the sphere: %zu)\n", uploaded,
           sphere_bytes);
    ck_assert_msg(after.gpu_queries == before.gpu_queries + 1, "no GPU culling ran");
    ck_assert_msg(got.count > 0, "no contacts");
    ck_assert_msg(uploaded > (16 * 3 + 12) * box->triangle_count && uploaded < 4096,
                  "%llu bytes uploaded for a box joining", uploaded);
    /* The box deforms in place (its arrays rewritten, glcollide told): its
     * vertices travel again, nothing else of the meshes. */
    for (size_t i = 0; i < 3 * box->vertex_count; i++)
        md_box.vertices[i] *= (dReal)1.1;
    glcollide_ode_trimesh_data_changed(md_box.data);
    glcollide_ode_get_stats(&before);
    got.count = 0;
    glcollide_ode_space_collide(space, &got, collide_pair);
    glcollide_ode_get_stats(&after);
    uploaded = after.upload_bytes - before.upload_bytes;
    printf("the box deforms: %llu bytes uploaded\n", uploaded);
    ck_assert_msg(after.gpu_queries == before.gpu_queries + 1 && got.count > 0,
                  "no GPU culling or no contacts after the deformation");
    ck_assert_msg(uploaded >= 16 * box->vertex_count && uploaded < 4096,
                  "%llu bytes uploaded for the box's deformation", uploaded);
    glcollide_ode_set_gpu(GLCOLLIDE_ODE_GPU_AUTO);
    dSpaceDestroy(space);
    mesh_data_free(&md_sphere);
    mesh_data_free(&md_box);
    glcollide_mesh_destroy(&sphere);
    glcollide_mesh_destroy(&box);
}
END_TEST

/*
 * Warm steps of the GPU path allocate nothing of ours. Run with
 * tests/alloc_count preloaded (tests/programs/pile.sh does), which charges each
 * allocation to its caller and tells the GL driver's (Mesa's, not ours to
 * remove) from the rest: this case is only registered where the counter
 * is found. A row of 6 trimesh spheres, each overlapping the next, GPU
 * culling forced, moved a little every step (so every step culls, draws
 * and reads back); 6 steps to warm, then 12 counted (a step is about 4 s
 * of llvmpipe under the allocation counter).
 */
static unsigned long *counter_total, *counter_driver;

START_TEST(test_gpu_warm_allocations)
{
    glcollide_mesh *sphere = NULL;
    ck_assert_int_eq(glcollide_mesh_generate_sphere(0.3, 16, 8, &sphere), GLCOLLIDE_OK);
    mesh_data md;
    mesh_data_build(&md, sphere);
    dSpaceID space = glcollide_ode_space_create(NULL);
    dGeomID geoms[6];
    for (int i = 0; i < 6; i++)
        geoms[i] = dCreateTriMesh(space, md.data, NULL, NULL, NULL);
    glcollide_ode_set_gpu(GLCOLLIDE_ODE_GPU_ALWAYS);
    /* The case counts the GPU path's allocations (cull, draw, read back).
     * With worker threads, the pairs computed ahead are claimed by
     * whichever worker is free, so a worker's scratch may first grow in a
     * late step (tests/programs/pile.sh's CPU check allows a few such
     * growths): one thread here. */
    int threads = glcollide_ode_threads();
    glcollide_ode_set_threads(1);
    static step_contacts got;
    glcollide_ode_stats before, after;
    unsigned long total = 0, driver = 0;
    int empty_step = -1;
    for (int step = 0; step < 18; step++) {
        for (int i = 0; i < 6; i++)
            dGeomSetPosition(geoms[i], 0.55 * i + 0.002 * sin(0.7 * step + i), 0,
                             0.001 * cos(0.3 * step));
        if (step == 6) {
            glcollide_ode_get_stats(&before);
            total = *counter_total;
            driver = *counter_driver;
        }
        got.count = 0;
        glcollide_ode_space_collide(space, &got, collide_pair);
        if (got.count == 0 && empty_step < 0) /* asserted after: Check allocates */
            empty_step = step;
    }
    unsigned long ours = (*counter_total - total) - (*counter_driver - driver);
    unsigned long theirs = *counter_driver - driver;
    glcollide_ode_set_threads(threads);
    ck_assert_msg(empty_step < 0, "step %d: no contacts", empty_step);
    glcollide_ode_get_stats(&after);
    printf("GPU path, 12 warm steps of 6 spheres: %llu culling queries, %llu draw calls; "
           "allocations: %lu ours, %lu the driver's\n",
           after.gpu_queries - before.gpu_queries, after.draw_calls - before.draw_calls, ours,
           theirs);
    ck_assert_msg(after.gpu_queries - before.gpu_queries == 12 &&
                      after.draw_calls > before.draw_calls,
                  "the GPU path did not run every step (%llu queries)",
                  after.gpu_queries - before.gpu_queries);
    ck_assert_msg(ours == 0, "%lu allocations of ours in 12 warm GPU steps", ours);
    glcollide_ode_set_gpu(GLCOLLIDE_ODE_GPU_AUTO);
    dSpaceDestroy(space);
    mesh_data_free(&md);
    glcollide_mesh_destroy(&sphere);
}
END_TEST

typedef struct log_capture {
    char line[512];
    int count;
} log_capture;

static void capture_auto_line(glcollide_log_level level, const char *message, void *user)
{
    (void)level;
    log_capture *capture = user;
    if (strstr(message, "ODE plugin: auto:")) {
        snprintf(capture->line, sizeof capture->line, "%s", message);
        capture->count++;
    }
}

/*
 * AUTO measures both paths on the program's first steps with trimesh pairs
 * (here on llvmpipe, allowed by glcollide_ode_set_calibrate_software), picks
 * one, logs one line with both figures, and every step's contacts equal
 * those of the CPU path (7 steps measuring, then 3 on the choice), for a
 * row of 6 overlapping spheres.
 */
START_TEST(test_auto_calibration)
{
    const char *skip = getenv("GLCOLLIDE_TEST_SKIP_GL");
    if (skip && strcmp(skip, "1") == 0)
        return;
    glcollide_mesh *sphere = NULL;
    ck_assert_int_eq(glcollide_mesh_generate_sphere(0.3, 24, 12, &sphere), GLCOLLIDE_OK);
    mesh_data md;
    mesh_data_build(&md, sphere);
    dSpaceID space = dSimpleSpaceCreate(NULL);
    for (int i = 0; i < 6; i++) {
        dGeomID g = dCreateTriMesh(space, md.data, NULL, NULL, NULL);
        dGeomSetPosition(g, 0.5 * i, 0.01 * i, 0.02 * (i % 2));
    }
    enum { STEPS = 10 };
    static step_contacts cpu[STEPS], chosen[STEPS];
    glcollide_ode_set_gpu(GLCOLLIDE_ODE_GPU_NEVER);
    for (int s = 0; s < STEPS; s++)
        glcollide_ode_space_collide(space, &cpu[s], collide_pair);
    log_capture capture = {{0}, 0};
    glcollide_set_log_callback(capture_auto_line, &capture);
    glcollide_set_log_level(GLCOLLIDE_LOG_INFO);
    glcollide_ode_set_calibrate_software(1);
    glcollide_ode_set_gpu(GLCOLLIDE_ODE_GPU_AUTO);
    ck_assert_int_eq(glcollide_ode_auto_choice(), GLCOLLIDE_ODE_AUTO_UNDECIDED);
    for (int s = 0; s < STEPS; s++) {
        glcollide_ode_space_collide(space, &chosen[s], collide_pair);
        ck_assert_msg((s < 6) == (glcollide_ode_auto_choice() == GLCOLLIDE_ODE_AUTO_UNDECIDED),
                      "step %d: choice %d", s, glcollide_ode_auto_choice());
    }
    glcollide_set_log_callback(NULL, NULL);
    glcollide_set_log_level(GLCOLLIDE_LOG_WARNING);
    printf("auto calibration: %s\n", capture.line);
    ck_assert_int_eq(capture.count, 1);
    ck_assert_ptr_nonnull(strstr(capture.line, "ms with GPU culling"));
    ck_assert_int_eq(glcollide_ode_has_gpu(),
                     glcollide_ode_auto_choice() == GLCOLLIDE_ODE_AUTO_GPU);
    for (int s = 0; s < STEPS; s++) {
        ck_assert_msg(chosen[s].count == cpu[s].count && cpu[s].count > 0,
                      "step %d: %d contacts, CPU path %d", s, chosen[s].count, cpu[s].count);
        for (int i = 0; i < cpu[s].count; i++)
            ck_assert_msg(memcmp(cpu[s].contacts[i].pos, chosen[s].contacts[i].pos,
                                 sizeof cpu[s].contacts[i].pos) == 0 &&
                              cpu[s].contacts[i].depth == chosen[s].contacts[i].depth,
                          "step %d: contact %d differs from the CPU path's", s, i);
    }
    glcollide_ode_set_calibrate_software(0);
    glcollide_ode_set_gpu(GLCOLLIDE_ODE_GPU_AUTO);
    dSpaceDestroy(space);
    mesh_data_free(&md);
    glcollide_mesh_destroy(&sphere);
}
END_TEST

static unsigned long long contexts_made(void)
{
    glcollide_ode_stats stats;
    glcollide_ode_get_stats(&stats);
    return stats.gl_contexts;
}

/*
 * The GL context is made only when a trimesh pair first needs GPU culling:
 * not at init, not for a space without trimesh pairs, not with NEVER.
 * NEVER gives it back; AUTO makes none on a software renderer or a machine
 * without a GPU device (this one in CI: llvmpipe); the last shutdown
 * releases it.
 */
START_TEST(test_gpu_context_lazy)
{
    const char *skip = getenv("GLCOLLIDE_TEST_SKIP_GL");
    if (skip && strcmp(skip, "1") == 0)
        return;
    cube_data cube;
    cube_build(&cube, 0.4);
    dSpaceID pair = overlapping_cubes(&cube), apart = dSimpleSpaceCreate(NULL);
    dCreateSphere(apart, 0.5);
    dCreateBox(apart, 1, 1, 1);
    dCreateTriMesh(apart, cube.data, NULL, NULL, NULL);
    pair_set seen = {0};
    ck_assert_int_eq(glcollide_ode_has_gpu(), 0); /* init made none */
    glcollide_ode_set_gpu(GLCOLLIDE_ODE_GPU_ALWAYS);
    glcollide_ode_space_collide(apart, &seen, record);
    ck_assert_int_eq(glcollide_ode_has_gpu(), 0); /* no trimesh pair: none needed */
    glcollide_ode_set_gpu(GLCOLLIDE_ODE_GPU_NEVER);
    glcollide_ode_space_collide(pair, &seen, record);
    ck_assert_uint_eq(contexts_made(), 0);
    glcollide_ode_set_gpu(GLCOLLIDE_ODE_GPU_ALWAYS);
    glcollide_ode_space_collide(pair, &seen, record);
    ck_assert_int_eq(glcollide_ode_has_gpu(), 1);
    ck_assert_uint_eq(contexts_made(), 1);
    glcollide_ode_space_collide(pair, &seen, record); /* the same one serves */
    ck_assert_uint_eq(contexts_made(), 1);
    glcollide_ode_set_gpu(GLCOLLIDE_ODE_GPU_NEVER); /* gives it back */
    ck_assert_int_eq(glcollide_ode_has_gpu(), 0);
    glcollide_ode_set_gpu(GLCOLLIDE_ODE_GPU_AUTO);
    glcollide_ode_space_collide(pair, &seen, record);
    ck_assert_int_eq(glcollide_ode_has_gpu(), 0); /* llvmpipe: the CPU serves */
    glcollide_ode_set_gpu(GLCOLLIDE_ODE_GPU_ALWAYS);
    glcollide_ode_space_collide(pair, &seen, record);
    ck_assert_int_eq(glcollide_ode_has_gpu(), 1);
    glcollide_ode_shutdown(); /* the fixture's init: the last user */
    ck_assert_int_eq(glcollide_ode_has_gpu(), 0);
    ck_assert_int_eq(glcollide_ode_init(), 0);
    glcollide_ode_set_gpu(GLCOLLIDE_ODE_GPU_AUTO);
    free(seen.pairs);
    destroy_scene(pair);
    destroy_scene(apart);
    dGeomTriMeshDataDestroy(cube.data);
}
END_TEST

/*
 * Init and shutdown are counted, as ODE counts dInitODE2 and dCloseODE:
 * glcollide serves trimesh pairs through dCollide until the last shutdown,
 * then ODE's own collider does again.
 */
START_TEST(test_init_counted)
{
    cube_data cube;
    cube_build(&cube, 0.4);
    dSpaceID space = overlapping_cubes(&cube);
    dGeomID a = dSpaceGetGeom(space, 0), b = dSpaceGetGeom(space, 1);
    dContactGeom contacts[8];
    glcollide_ode_stats before, after;
    ck_assert_int_eq(glcollide_ode_init(), 0); /* a second user */
    glcollide_ode_shutdown();
    glcollide_ode_get_stats(&before);
    ck_assert_int_gt(dCollide(a, b, 8, contacts, sizeof contacts[0]), 0);
    glcollide_ode_get_stats(&after);
    ck_assert_uint_eq(after.trimesh_collides, before.trimesh_collides + 1);
    glcollide_ode_shutdown();                                             /* the last */
    ck_assert_int_gt(dCollide(a, b, 8, contacts, sizeof contacts[0]), 0); /* ODE's own */
    glcollide_ode_get_stats(&after);
    ck_assert_uint_eq(after.trimesh_collides, before.trimesh_collides + 1);
    ck_assert_int_eq(glcollide_ode_init(), 0); /* for the fixture's shutdown */
    destroy_scene(space);
    dGeomTriMeshDataDestroy(cube.data);
}

/*
 * Before glcollide_ode_init (or after the last shutdown) glcollide_ode_collide
 * and glcollide_ode_space_collide work, on the CPU: init adds the collider
 * override for dCollide and the GPU path.
 */
START_TEST(test_before_init)
{
    dInitODE2(0);
    cube_data cube;
    cube_build(&cube, 0.4);
    dSpaceID space = overlapping_cubes(&cube);
    pair_set seen = {0};
    glcollide_ode_set_gpu(GLCOLLIDE_ODE_GPU_ALWAYS);
    glcollide_ode_space_collide(space, &seen, record);
    ck_assert_uint_eq(seen.count, 1);
    dContactGeom contacts[8];
    int n =
        glcollide_ode_collide(seen.pairs[0][0], seen.pairs[0][1], 8, contacts, sizeof contacts[0]);
    ck_assert_int_gt(n, 0);
    ck_assert(contacts[0].g1 == seen.pairs[0][0] && contacts[0].g2 == seen.pairs[0][1]);
    ck_assert_int_eq(glcollide_ode_has_gpu(), 0);
    /* The same contacts once started. */
    ck_assert_int_eq(glcollide_ode_init(), 0);
    dContactGeom again[8];
    ck_assert_int_eq(
        glcollide_ode_collide(seen.pairs[0][0], seen.pairs[0][1], 8, again, sizeof again[0]), n);
    for (int i = 0; i < n; i++)
        ck_assert(again[i].depth == contacts[i].depth &&
                  memcmp(again[i].pos, contacts[i].pos, sizeof again[i].pos) == 0);
    glcollide_ode_shutdown();
    glcollide_ode_set_gpu(GLCOLLIDE_ODE_GPU_AUTO);
    free(seen.pairs);
    destroy_scene(space);
    dGeomTriMeshDataDestroy(cube.data);
    glcollide_ode_shutdown(); /* no user left: nothing happens */
    dCloseODE();
}

Suite *suite_ode_gpu(void)
{
    Suite *suite = suite_create("ode");
    TCase *tc = tcase_create("plugin");
    tcase_set_timeout(tc, 300);
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_gpu_context_lazy);
    tcase_add_test(tc, test_init_counted);
    suite_add_tcase(suite, tc);
    /* The GPU paths against the CPU twin (CK_RUN_CASE=gpu runs them alone). */
    TCase *gpu = tcase_create("gpu");
    tcase_set_timeout(gpu, 300);
    tcase_add_checked_fixture(gpu, setup, teardown);
    tcase_add_test(gpu, test_contained_gpu_equals_cpu);
    tcase_add_test(gpu, test_far_geoms_gpu_equals_cpu);
    tcase_add_test(gpu, test_auto_calibration);
    tcase_add_test(gpu, test_gpu_new_mesh_uploads_alone);
    suite_add_tcase(suite, gpu);
    /* Only under the allocation counter (CK_RUN_CASE=gpu_allocations). */
    counter_total = dlsym(RTLD_DEFAULT, "glcollide_test_allocations");
    counter_driver = dlsym(RTLD_DEFAULT, "glcollide_test_driver_allocations");
    const char *skip = getenv("GLCOLLIDE_TEST_SKIP_GL");
    if (counter_total && counter_driver && !(skip && strcmp(skip, "1") == 0)) {
        TCase *allocations = tcase_create("gpu_allocations");
        tcase_set_timeout(allocations, 300);
        tcase_add_checked_fixture(allocations, setup, teardown);
        tcase_add_test(allocations, test_gpu_warm_allocations);
        suite_add_tcase(suite, allocations);
    }
    TCase *unstarted = tcase_create("unstarted");
    tcase_add_test(unstarted, test_before_init);
    suite_add_tcase(suite, unstarted);
    return suite;
}
