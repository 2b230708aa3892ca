/* SPDX-License-Identifier: MIT */
/* The particle tests' context and scene (particles_scene.h). */
#include "gpu/particles_scene.h"
#include "helpers/tests.h"

#include <stdlib.h>
#include <string.h>

glcollide_context *particles_context;

void context_setup(void)
{
    if (!particles_context)
        ck_assert_msg(glcollide_context_create_egl(&particles_context) == GLCOLLIDE_OK,
                      "no headless EGL context: the particle tests need one");
}

void context_teardown(void)
{
    glcollide_context_destroy(&particles_context);
}

/* Every collider type: ground, tilted roof (rectangles), disc, ellipsoid,
 * cylinder, cone, paraboloid, hyperboloid; bounce and elimination mixed. */
size_t scene_colliders(glcollide_collider *c)
{
    size_t n = 0;
    double o[3] = {0, 0, 0}, ex[3] = {1, 0, 0}, ey[3] = {0, 1, 0}, ez[3] = {0, 0, 1};
    c[n] = glcollide_collider_rectangle(o, ex, ey, 5, 5);
    c[n].response = GLCOLLIDE_RESPONSE_BOUNCE;
    c[n++].restitution = 0.5;
    double roof_c[3] = {-2, -2, 3}, a = 0.5, roof_v[3] = {0, cos(a), sin(a)};
    c[n] = glcollide_collider_rectangle(roof_c, ex, roof_v, 1.5, 1.0);
    c[n].response = GLCOLLIDE_RESPONSE_BOUNCE;
    c[n++].restitution = 0.7;
    double disc_c[3] = {2, -2, 2}, disc_n[3] = {0, 0.3, 1};
    c[n++] = glcollide_collider_disc(disc_c, disc_n, 1.0);
    double ell_c[3] = {-2, 2, 2.5}, ell_a[3] = {0.2, 0, 1}, radii[3] = {1, 0.7, 0.5};
    c[n] = glcollide_collider_ellipsoid(ell_c, ell_a, radii);
    c[n].response = GLCOLLIDE_RESPONSE_BOUNCE;
    c[n++].restitution = 0.8;
    double cyl_b[3] = {2, 2, 0.5};
    c[n] = glcollide_collider_cylinder(cyl_b, ez, 0.6, 2.0);
    c[n].response = GLCOLLIDE_RESPONSE_BOUNCE;
    c[n++].restitution = 0.6;
    double apex[3] = {0, 0, 4}, down[3] = {0, 0, -1};
    c[n++] = glcollide_collider_cone(apex, down, 0.5, 2.0);
    double par_v[3] = {0, 3.5, 1};
    c[n] = glcollide_collider_paraboloid(par_v, ez, 1.0, 1.5);
    c[n].response = GLCOLLIDE_RESPONSE_BOUNCE;
    c[n++].restitution = 0.9;
    double hyp_c[3] = {3.5, 0, 2}, hyp_a[3] = {0.1, 0.2, 1};
    c[n] = glcollide_collider_hyperboloid(hyp_c, hyp_a, 0.4, 0.6, 1.0);
    c[n].response = GLCOLLIDE_RESPONSE_BOUNCE;
    c[n++].restitution = 0.4;
    return n;
}

/* Rain over the scene: half second order (gravity), half first order. */
glcollide_particle *scene_particles(uint64_t seed, size_t n)
{
    glcollide_particle *p = calloc(n, sizeof *p);
    ck_assert_ptr_nonnull(p);
    test_rng rng = {seed};
    for (size_t i = 0; i < n; i++) {
        p[i].position[0] = test_rng_uniform(&rng, -5, 5);
        p[i].position[1] = test_rng_uniform(&rng, -5, 5);
        p[i].position[2] = test_rng_uniform(&rng, 4, 8);
        p[i].velocity[0] = test_rng_uniform(&rng, -2, 2);
        p[i].velocity[1] = test_rng_uniform(&rng, -2, 2);
        p[i].velocity[2] = test_rng_uniform(&rng, -8, -1);
        if (i % 2 == 0)
            memcpy(p[i].acceleration, gravity, sizeof gravity);
        else
            p[i].velocity[2] -= 6;
        p[i].birth = test_rng_uniform(&rng, -1.5, 0);
        p[i].lifetime = test_rng_uniform(&rng, 1.2, 2.5);
    }
    return p;
}

double local_coordinate(const glcollide_collider *c, const double p[3], int k)
{
    double d[3] = {p[0] - c->origin[0], p[1] - c->origin[1], p[2] - c->origin[2]}, w[3];
    if (k == 0)
        return d[0] * c->axis_u[0] + d[1] * c->axis_u[1] + d[2] * c->axis_u[2];
    if (k == 1)
        return d[0] * c->axis_v[0] + d[1] * c->axis_v[1] + d[2] * c->axis_v[2];
    w[0] = c->axis_u[1] * c->axis_v[2] - c->axis_u[2] * c->axis_v[1];
    w[1] = c->axis_u[2] * c->axis_v[0] - c->axis_u[0] * c->axis_v[2];
    w[2] = c->axis_u[0] * c->axis_v[1] - c->axis_u[1] * c->axis_v[0];
    return d[0] * w[0] + d[1] * w[1] + d[2] * w[2];
}
