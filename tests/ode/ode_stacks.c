/* SPDX-License-Identifier: MIT */
/*
 * tests/ode-stacks: runs the stability scenes (tests/ode/ode_scenes.c) and prints
 * their figures, each scene built from ODE primitives, from trimeshes with
 * glcollide, and from trimeshes with ODE's own collider, in one process.
 *
 *   tests/ode-stacks [--world] [--approx1] [--mu M] [--contacts N] [--steps N]
 *                    [--dt S] [--seed N] [--bodies] [--hash] [--flavours pgo] [SCENE...]
 * (no SCENE: all of them; flavours: p primitives, g glcollide, o ODE trimesh;
 * --seed: ODE's random numbers, which dWorldQuickStep reorders with;
 * --bodies: each body's figures too; --hash: a line "contact-hash LABEL H"
 * with every contact of the run hashed bit for bit; a gripper scene also prints its lift
 * and slip, a vehicle scene where its car went)
 */
#include "ode/ode_scene.h"

#include <glcollide/ode.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int print_bodies, print_hash;

static void run_scene(const char *name, const scene_params *base, const char *flavours)
{
    scene_desc scene;
    if (scene_by_name(name, &scene) != 0) {
        fprintf(stderr, "ode-stacks: unknown scene or missing mesh '%s'\n", name);
        exit(1);
    }
    static const struct {
        char letter;
        scene_flavour flavour;
        const char *label;
    } kinds[] = {{'p', SCENE_PRIMITIVES, "primitives"},
                 {'g', SCENE_GLCOLLIDE, "glcollide"},
                 {'o', SCENE_ODE_TRIMESH, "ode-trimesh"}};
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        if (!strchr(flavours, kinds[k].letter))
            continue;
        scene_params p = *base;
        p.flavour = kinds[k].flavour;
        scene_figures f;
        char label[128];
        snprintf(label, sizeof label, "%s %s", name, kinds[k].label);
        if (scene_run(&scene, &p, &f) == 0) {
            scene_print(label, &f);
            if (print_hash)
                printf("contact-hash %s %016llx\n", label, (unsigned long long)f.contact_hash);
            for (size_t b = 0; print_bodies && b < f.body_count; b++)
                printf("  body %zu: drift %.4f mm sink %.4f mm tilt %.4f deg rise %.3f mm at "
                       "(%.4f, %.4f, %.4f)\n",
                       b, 1e3 * f.bodies[b].drift, 1e3 * f.bodies[b].sink,
                       f.bodies[b].tilt * 57.29577951308232, 1e3 * f.bodies[b].rise,
                       f.bodies[b].final[0], f.bodies[b].final[1], f.bodies[b].final[2]);
            scene_print_details(&scene, &f);
        }
        fflush(stdout);
    }
}

int main(int argc, char **argv)
{
    dInitODE2(0);
    scene_params params = scene_default_params(SCENE_PRIMITIVES);
    const char *flavours = "pgo";
    int first_scene = argc;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--world") == 0)
            params.world_step = 1;
        else if (strcmp(argv[i], "--approx1") == 0)
            params.approx1 = 1;
        else if (strcmp(argv[i], "--mu") == 0 && i + 1 < argc)
            params.mu = atof(argv[++i]);
        else if (strcmp(argv[i], "--contacts") == 0 && i + 1 < argc)
            params.max_contacts = atoi(argv[++i]);
        else if (strcmp(argv[i], "--steps") == 0 && i + 1 < argc)
            params.steps = atoi(argv[++i]);
        else if (strcmp(argv[i], "--dt") == 0 && i + 1 < argc)
            params.dt = atof(argv[++i]);
        else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc)
            params.seed = strtoul(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--max-vel") == 0 && i + 1 < argc)
            params.max_correcting_vel = atof(argv[++i]);
        else if (strcmp(argv[i], "--hash") == 0)
            print_hash = 1;
        else if (strcmp(argv[i], "--bodies") == 0)
            print_bodies = 1;
        else if (strcmp(argv[i], "--flavours") == 0 && i + 1 < argc)
            flavours = argv[++i];
        else if (argv[i][0] == '-') {
            fprintf(stderr, "usage: ode-stacks [--world] [--approx1] [--mu M] [--contacts N] "
                            "[--steps N] [--dt S] [--seed N] [--bodies] [--hash] "
                            "[--flavours pgo] [SCENE...]\n");
            return 2;
        } else {
            first_scene = i;
            break;
        }
    }
    if (first_scene == argc)
        for (const char *const *n = scene_names(); *n; n++)
            run_scene(*n, &params, flavours);
    for (int i = first_scene; i < argc; i++)
        run_scene(argv[i], &params, flavours);
    glcollide_ode_shutdown();
    scene_meshes_release();
    dCloseODE();
    return 0;
}
