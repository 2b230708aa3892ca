/* SPDX-License-Identifier: MIT */
/*
 * Particles against analytic colliders, with impact feedback (Knott's CInDeR
 * thesis, chapter 3).
 *
 * Particles move in closed form, p(t) = x0 + v0 s + a s^2 / 2 with s the time
 * since the start of the particle's current generation (a = 0: first order).
 * A particle with a lifetime L > 0 is reborn every L seconds; its generation
 * count g varies the start conditions deterministically (a hash of particle
 * index and g, scaled by the system's jitter amplitudes). Colliders are
 * surfaces f(p) = 0, planes or general quadrics p^T Q p = 0 in a local frame,
 * bounded by constraints (a box and a radius in that frame: rectangles, discs,
 * caps). The earliest hit over all colliders wins. Colliders are two-sided:
 * a particle hits a plane from either side and a closed quadric from inside
 * as well as from outside. Response per collider: elimination, or a bounce
 * v' = v_p - k v_n (restitution k) after which the motion is solved again
 * from the impact, any number of times in one step up to max_bounces per
 * generation (the next impact after that eliminates the particle).
 *
 * Nothing about a particle is stored between steps: each step replays the
 * current generation from its start (the thesis's closed form), so any time
 * may be asked in any order, and look-ahead costs nothing but the replay.
 * A step reports the impacts of at most the 4 latest generations whose lives
 * meet it: steps longer than 3 lifetimes lose the older generations' impacts.
 *
 * Feedback to the CPU, per step, for the impacts in (t0 + lookahead, t1 + lookahead]:
 * - the impact map (thesis 3.4): one square tile per collider holding a 2D
 *   parameterisation of its surface (planes: the local x, y over the bounds;
 *   quadrics: the angle atan2(y, x) around the local z axis and z over the
 *   bounds); every impact is a point drawn into its collider's tile with
 *   additive blending, channels (count, collider id, time within the step
 *   quantised to time_bits, impact speed): coincident impacts add up, so a
 *   texel holds their count and sums. Its readback size is fixed (tiles *
 *   tile^2 * 16 bytes) whatever the number of impacts: use it for splats and
 *   sound energy per area, when impacts are many or when a fixed per-step
 *   cost matters.
 * - records (the thesis's 3.5.2 alternative, in an SSBO): one per impact with
 *   particle, generation, bounce, collider, full-precision time, position and
 *   speeds. No impact is lost: when more impacts than room are counted the
 *   buffer grows and the step runs again. Readback is 48 bytes per impact:
 *   use it when each impact drives an event (a sound per hailstone) or when
 *   impacts are fewer than the map's texels.
 * Both may be asked in one step. Look-ahead (thesis 3.5.1): feedback
 * reaches the CPU a step (or the readback's time) late; a step with
 * lookahead L reports the impacts L seconds ahead of the positions it
 * leaves, so that a consumer that lags by L (a sound engine, a second
 * thread reading the map) hears each impact when it is seen. Use 0 when
 * the step's own impacts are wanted, e.g. to draw splats in the same frame.
 *
 * GPU precision: positions are float relative to the system's origin (the
 * centre of the colliders' bounds unless set), times are float relative to
 * each generation's start (generation bookkeeping in double). The CPU
 * reference (glcollide_particles_reference_step) runs the same algorithm in
 * double; tests/gpu/test_particles_gpu.c bounds their agreement.
 */
/* The umbrella header first, outside the guard: it includes every public
 * header, this one too, in an order that puts each after those it needs,
 * whichever of them a program includes first. */
#include <glcollide/glcollide.h>

#ifndef GLCOLLIDE_PARTICLES_H
#define GLCOLLIDE_PARTICLES_H

#ifdef __cplusplus
extern "C" {
#endif

typedef struct glcollide_particle {
    double position[3];     /* x0, world */
    double velocity[3];     /* v0 */
    double acceleration[3]; /* a; zero for first-order motion */
    double birth;           /* start of generation 0 (not alive before) */
    double lifetime;        /* > 0: reborn every lifetime seconds; 0: one generation, forever */
} glcollide_particle;

typedef enum glcollide_collider_kind {
    GLCOLLIDE_COLLIDER_PLANE = 0,  /* local z = 0 */
    GLCOLLIDE_COLLIDER_QUADRIC = 1 /* quadric coefficients, local frame */
} glcollide_collider_kind;

typedef enum glcollide_collider_response {
    GLCOLLIDE_RESPONSE_ELIMINATE = 0,
    GLCOLLIDE_RESPONSE_BOUNCE = 1
} glcollide_collider_response;

/*
 * A collider in its local frame: origin, orthonormal axes u (local x) and
 * v (local y); local z is u x v (a plane's normal, a quadric's axis).
 * Constraints (c(p) > 0 of the thesis, closed here): bound_min <= p <=
 * bound_max per local coordinate (+-INFINITY where unbounded) and x^2 + y^2
 * <= bound_radius^2 (INFINITY: none). The impact map needs the mapped range
 * finite: a plane's x and y (from the box or the radius), a quadric's z.
 */
typedef struct glcollide_collider {
    glcollide_collider_kind kind;
    double origin[3];
    double axis_u[3], axis_v[3];
    /* QUADRIC: A B C D E F G H I J of f = Ax^2 + By^2 + Cz^2 + 2Dxy + 2Exz +
     * 2Fyz + 2Gx + 2Hy + 2Iz + J in local coordinates (the thesis's Q). */
    double quadric[10];
    double bound_min[3], bound_max[3];
    double bound_radius;
    glcollide_collider_response response;
    double restitution; /* k in [0, 1], for BOUNCE */
} glcollide_collider;

/* Constructors: bounded colliders in a frame built from an axis (w, made unit
 * length; u, v chosen perpendicular to it), response ELIMINATE, restitution
 * 0.5. Arguments are not checked here; glcollide_particles_set_colliders checks. */
/* A rectangle centred on centre with edges along unit vectors axis_u, axis_v (half sizes). */
GLCOLLIDE_API glcollide_collider glcollide_collider_rectangle(const double centre[3],
                                                              const double axis_u[3],
                                                              const double axis_v[3], double half_u,
                                                              double half_v);
GLCOLLIDE_API glcollide_collider glcollide_collider_disc(const double centre[3],
                                                         const double normal[3], double radius);
/* x^2/rx^2 + y^2/ry^2 + z^2/rz^2 = 1 in the frame of axis (radii[2] along it). */
GLCOLLIDE_API glcollide_collider glcollide_collider_ellipsoid(const double centre[3],
                                                              const double axis[3],
                                                              const double radii[3]);
/* x^2 + y^2 = r^2, 0 <= z <= height above base (open at both caps). */
GLCOLLIDE_API glcollide_collider glcollide_collider_cylinder(const double base[3],
                                                             const double axis[3], double radius,
                                                             double height);
/* x^2 + y^2 = (tan_half_angle z)^2, 0 <= z <= height: one nappe from the apex. */
GLCOLLIDE_API glcollide_collider glcollide_collider_cone(const double apex[3], const double axis[3],
                                                         double tan_half_angle, double height);
/* x^2 + y^2 = curvature z (a bowl opening along axis), 0 <= z <= height. */
GLCOLLIDE_API glcollide_collider glcollide_collider_paraboloid(const double vertex[3],
                                                               const double axis[3],
                                                               double curvature, double height);
/* One sheet: (x^2 + y^2)/waist^2 - z^2/c^2 = 1, -half_height <= z <= half_height. */
GLCOLLIDE_API glcollide_collider glcollide_collider_hyperboloid(const double centre[3],
                                                                const double axis[3], double waist,
                                                                double c, double half_height);

/* Per-generation variation of start conditions: x0 + position_jitter * r,
 * v0 + velocity_jitter * r', r and r' in [-1, 1)^3 from a hash of (particle,
 * generation), the same on the GPU and the CPU. */
typedef struct glcollide_particles_settings {
    double position_jitter[3];
    double velocity_jitter[3];
    int max_bounces; /* bounces per generation (0..65535); the next impact eliminates */
    int map_tile;    /* impact map pixels per tile side (per collider), 1..4096 */
    int time_bits;   /* quantisation of the time channel of the map, 1..23 (thesis: 8) */
    int use_origin;  /* 0: origin = centre of the colliders' bounds */
    double origin[3];
} glcollide_particles_settings;

/* No jitter, max_bounces 16, map_tile 128, time_bits 8, automatic origin. */
GLCOLLIDE_API glcollide_particles_settings glcollide_particles_default_settings(void);

enum {
    GLCOLLIDE_FEEDBACK_IMPACT_MAP = 1, /* the impact map */
    GLCOLLIDE_FEEDBACK_RECORDS = 2,    /* one record per impact */
    GLCOLLIDE_FEEDBACK_POSITIONS = 4   /* positions at t1 read back (else only on the GPU) */
};

typedef struct glcollide_particles_step_options {
    int feedback;     /* GLCOLLIDE_FEEDBACK_* bits; 0: only the counts */
    double lookahead; /* >= 0: impacts of (t0 + lookahead, t1 + lookahead] are reported */
} glcollide_particles_step_options;

typedef struct glcollide_impact {
    uint32_t particle, collider;
    uint32_t generation, bounce; /* bounce: 0 for the generation's first impact */
    double time;                 /* absolute */
    double position[3];          /* world */
    double map[2];               /* (u, v) in [0, 1]^2 of the collider's parameterisation */
    double speed;                /* |v| before the impact */
    double normal_speed;         /* |v . n| before the impact */
    int eliminated;              /* the particle ends here */
} glcollide_impact;

typedef struct glcollide_particles_stats {
    double time_ms;
    uint64_t impacts;    /* counted in the step window, whatever the feedback */
    uint64_t alive;      /* particles alive at t1 (POSITIONS only, else 0) */
    uint64_t draw_calls; /* draws and dispatches */
    uint64_t gpu_syncs;
    uint64_t readback_bytes;
    uint64_t reruns; /* steps run again because the records overflowed */
} glcollide_particles_stats;

typedef struct glcollide_particles_result {
    /* RECORDS: sorted by (particle, generation, bounce). */
    glcollide_impact *impacts;
    size_t impact_count;
    /* IMPACT_MAP: map_width x map_height texels (rows bottom to top) of 4
     * floats: count, sum of collider ids, sum of quantised times within the
     * step in [0, 1], sum of speeds. Collider c's tile: columns from
     * (c % map_columns) * map_tile, rows from (c / map_columns) * map_tile;
     * texel (i, j) of a tile covers u in [i, i+1) / map_tile, v likewise. */
    float *impact_map;
    int map_width, map_height, map_tile, map_columns;
    /* POSITIONS: 4 per particle at t1: world x y z, and 1 alive / 0 not
     * (not born yet, or eliminated). */
    double *positions;
    size_t position_count;
    glcollide_particles_stats stats;
    /* Capacities (kept between steps so that warm steps do not allocate). */
    size_t impact_capacity, map_capacity, position_capacity;
} glcollide_particles_result;

typedef struct glcollide_particles glcollide_particles;

/*
 * Makes a particle system. context NULL: everything runs on the CPU
 * reference (same results as glcollide_particles_reference_step), the CPU
 * twin of the library's other algorithms. With a context, its programs and
 * buffers belong to the system; the context must outlive it. Unlike the
 * other algorithms the system does not run on a glcollide_world: its
 * colliders are analytic surfaces (glcollide_particles_set_colliders), not
 * meshes, and its particles are its own; it runs on those (step). settings NULL: defaults. Errors:
 * INVALID_ARGUMENT (bad settings), OUT_OF_MEMORY, GL (shaders).
 */
GLCOLLIDE_API int glcollide_particles_create(glcollide_context *context,
                                             const glcollide_particles_settings *settings,
                                             glcollide_particles **out);

/* Copies particles (count 0 allowed). Errors: INVALID_ARGUMENT for a NaN or
 * infinite value (or one above 1e15 in magnitude, beyond what the GPU's
 * floats square) or a negative lifetime, naming the particle; LIMIT for 2^31
 * particles or more; the system keeps its previous particles then. */
GLCOLLIDE_API int glcollide_particles_set_particles(glcollide_particles *system,
                                                    const glcollide_particle *particles,
                                                    size_t count);

/* Copies colliders (count 0 allowed). Errors: INVALID_ARGUMENT naming the
 * collider (non-finite values, axes not orthonormal within 1e-6, restitution
 * outside [0, 1], empty bounds, a mapped range not finite, a quadric with all
 * coefficients zero); LIMIT above 65535 colliders, or with a context above
 * what one GL uniform block holds (GL_MAX_UNIFORM_BLOCK_SIZE / 192): every
 * invocation reads the same colliders, which a uniform block serves better
 * than a storage buffer. */
GLCOLLIDE_API int glcollide_particles_set_colliders(glcollide_particles *system,
                                                    const glcollide_collider *colliders,
                                                    size_t count);

/*
 * Advances from t0 to t1 (t0 <= t1, finite): reports the impacts with times
 * in (t0 + lookahead, t1 + lookahead] and leaves the positions at t1 in the
 * position buffer (and in result with FEEDBACK_POSITIONS). result is reused:
 * its arrays are kept and grown; release them with
 * glcollide_particles_result_clear. Draw calls: 1 dispatch, 1 point draw for
 * the map; syncs: 1 (the impact count) + 1 per readback asked for. Touches:
 * the GL state a wrapped context saves. Errors: INVALID_ARGUMENT,
 * OUT_OF_MEMORY, GL.
 */
GLCOLLIDE_API int glcollide_particles_step(glcollide_particles *system, double t0, double t1,
                                           const glcollide_particles_step_options *options,
                                           glcollide_particles_result *result);

/* The GL buffer of positions at the last step's t1: one vec4 per particle,
 * xyz relative to glcollide_particles_origin, w 1 alive / 0 not. 0 without a
 * context. Valid until the next set_particles or destroy. */
GLCOLLIDE_API unsigned int glcollide_particles_position_buffer(const glcollide_particles *system);
GLCOLLIDE_API void glcollide_particles_origin(const glcollide_particles *system, double origin[3]);

GLCOLLIDE_API void glcollide_particles_destroy(glcollide_particles **system);

GLCOLLIDE_API void glcollide_particles_result_clear(glcollide_particles_result *result);

/*
 * The exact CPU twin in double: the same replay, root isolation and map
 * quantisation as the GPU path, without a system. Arguments as for the
 * system (settings NULL: defaults; the origin only matters to the GPU).
 * Errors as set_particles / set_colliders / step.
 */
GLCOLLIDE_API int glcollide_particles_reference_step(
    const glcollide_particle *particles, size_t particle_count, const glcollide_collider *colliders,
    size_t collider_count, const glcollide_particles_settings *settings, double t0, double t1,
    const glcollide_particles_step_options *options, glcollide_particles_result *result);

/* Where an impact at local point p (collider frame) lands in the collider's
 * map, (u, v) in [0, 1]^2. For tests and for reading the map back. */
GLCOLLIDE_API void glcollide_collider_map_coordinates(const glcollide_collider *collider,
                                                      const double local[3], double uv[2]);

/* The inverse: the surface point (world) and unit normal (the gradient's
 * direction) of map coordinates (u, v), for splats and for drawing a
 * collider. Returns 1, or 0 where the map's (angle, z) meets no point of a
 * quadric (the nearest root along the angle's ray is used otherwise). */
GLCOLLIDE_API int glcollide_collider_map_point(const glcollide_collider *collider,
                                               const double uv[2], double point[3],
                                               double normal[3]);

#ifdef __cplusplus
}
#endif

#endif
