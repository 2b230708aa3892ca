/* SPDX-License-Identifier: MIT */
/*
 * The hail scene of demos/hail and tests/bench/bench-particles (Knott's
 * thesis, figure 3.7): a small outdoor scene of analytic colliders, a gable
 * roof (two planes), a gazebo dome (the top half of an ellipsoid), a picnic
 * table, a bin (cylinder wall and its lid, a disc) and the ground; hail as
 * second-order particles with a lifetime, reborn from a jittered start.
 */
#ifndef GLCOLLIDE_DEMOS_HAIL_SCENE_H
#define GLCOLLIDE_DEMOS_HAIL_SCENE_H

#include "splitmix64.h"

#include <glcollide/particles.h>

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

enum { HAIL_GROUND, HAIL_ROOF_SOUTH, HAIL_ROOF_NORTH, HAIL_DOME, HAIL_TABLE, HAIL_BIN_WALL,
       HAIL_BIN_LID, HAIL_COLLIDERS };

static const char *const hail_collider_names[HAIL_COLLIDERS] = {
    "ground", "roof-south", "roof-north", "dome", "table", "bin-wall", "bin-lid"};

/* Half extent of the ground and of the region the hail falls over. */
#define HAIL_AREA 6.0

static inline size_t hail_scene_colliders(glcollide_collider *c)
{
    const double ex[3] = {1, 0, 0}, ey[3] = {0, 1, 0}, ez[3] = {0, 0, 1};
    const double ground[3] = {0, 0, 0};
    c[HAIL_GROUND] = glcollide_collider_rectangle(ground, ex, ey, HAIL_AREA, HAIL_AREA);
    c[HAIL_GROUND].response = GLCOLLIDE_RESPONSE_BOUNCE;
    c[HAIL_GROUND].restitution = 0.35;
    /* A gable roof over x in [-4.5, -1.5], ridge along x at y = -2, z = 3.5. */
    double slope = atan2(1.0, 1.6), cs = cos(slope), sn = sin(slope);
    const double south_v[3] = {0, cs, sn}, north_v[3] = {0, -cs, sn};
    const double south_c[3] = {-3, -2 - 0.8, 3.0}, north_c[3] = {-3, -2 + 0.8, 3.0};
    double half_v = 0.5 * sqrt(1.6 * 1.6 + 1.0);
    c[HAIL_ROOF_SOUTH] = glcollide_collider_rectangle(south_c, ex, south_v, 1.5, half_v);
    c[HAIL_ROOF_NORTH] = glcollide_collider_rectangle(north_c, ex, north_v, 1.5, half_v);
    for (int k = HAIL_ROOF_SOUTH; k <= HAIL_ROOF_NORTH; k++) {
        c[k].response = GLCOLLIDE_RESPONSE_BOUNCE;
        c[k].restitution = 0.5;
    }
    /* A gazebo dome: the upper half of an ellipsoid. */
    const double dome_c[3] = {2.5, 2.0, 2.2}, dome_r[3] = {1.3, 1.3, 0.8};
    c[HAIL_DOME] = glcollide_collider_ellipsoid(dome_c, ez, dome_r);
    c[HAIL_DOME].bound_min[2] = 0;
    c[HAIL_DOME].response = GLCOLLIDE_RESPONSE_BOUNCE;
    c[HAIL_DOME].restitution = 0.6;
    /* A picnic table top. */
    const double table_c[3] = {1.5, -2.0, 0.8};
    c[HAIL_TABLE] = glcollide_collider_rectangle(table_c, ex, ey, 1.0, 0.45);
    c[HAIL_TABLE].response = GLCOLLIDE_RESPONSE_BOUNCE;
    c[HAIL_TABLE].restitution = 0.45;
    /* A bin: its wall (a cylinder) and its lid (a disc; hail stops there). */
    const double bin_base[3] = {-1.0, 2.5, 0.0}, lid_c[3] = {-1.0, 2.5, 1.0};
    c[HAIL_BIN_WALL] = glcollide_collider_cylinder(bin_base, ez, 0.45, 1.0);
    c[HAIL_BIN_WALL].response = GLCOLLIDE_RESPONSE_BOUNCE;
    c[HAIL_BIN_WALL].restitution = 0.3;
    c[HAIL_BIN_LID] = glcollide_collider_disc(lid_c, ez, 0.45);
    return HAIL_COLLIDERS;
}

/* n hailstones over the area, falling from 6..9 m with a wind along x, born
 * over the first lifetime so that they arrive evenly; NULL if out of memory. */
static inline glcollide_particle *hail_scene_particles(size_t n, uint64_t seed)
{
    glcollide_particle *p = calloc(n ? n : 1, sizeof *p);
    if (!p)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        p[i].position[0] = splitmix64_uniform(&seed, -HAIL_AREA, HAIL_AREA);
        p[i].position[1] = splitmix64_uniform(&seed, -HAIL_AREA, HAIL_AREA);
        p[i].position[2] = splitmix64_uniform(&seed, 6.0, 9.0);
        p[i].velocity[0] = splitmix64_uniform(&seed, 1.5, 3.0);
        p[i].velocity[1] = splitmix64_uniform(&seed, -0.3, 0.3);
        p[i].velocity[2] = splitmix64_uniform(&seed, -6.0, -3.0);
        p[i].acceleration[2] = -9.81;
        p[i].lifetime = splitmix64_uniform(&seed, 1.6, 2.2);
        p[i].birth = -splitmix64_uniform(&seed, 0.0, p[i].lifetime);
    }
    return p;
}

/* Per-generation variation: the stones start up to 0.5 m apart and 0.5 m/s
 * faster or slower than their first generation. */
static inline glcollide_particles_settings hail_scene_settings(void)
{
    glcollide_particles_settings s = glcollide_particles_default_settings();
    s.position_jitter[0] = s.position_jitter[1] = 0.5;
    s.velocity_jitter[2] = 0.5;
    s.max_bounces = 8;
    return s;
}

#endif
