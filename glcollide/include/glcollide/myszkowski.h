/* SPDX-License-Identifier: MIT */
/*
 * Myszkowski, Okunev and Kunii's depth/stencil interference test for a pair
 * of closed solids (The Visual Computer 11, 1995), and its distance map of
 * the contact zone. Included by <glcollide/glcollide.h>.
 *
 * One orthographic view is chosen from the intersection of the two objects'
 * bounding boxes (each object's box in its own frame, as in the paper's
 * section 7), fitted to that zone. Per pixel the test counts, in the stencil
 * buffer, the depth-test passes of B's unsorted surfaces against A's farthest
 * depth (test 2) and, where that cannot decide, against A's nearest depth
 * (test 3); where A is not convex along the view at a pixel (it has more than
 * two surfaces there: the paper's pi-convexity check, a by-product of the
 * second rendering) the pixel goes to the concave algorithm: every surface of
 * A and B at that pixel in a per-pixel fragment list, sorted by depth, with
 * the parity of each solid along the ray.
 *
 * Tolerance (glcollide_myszkowski_result.tolerance, checked by the tests):
 * - a pair reported as interfering is never farther apart than tolerance:
 *   1e-5 of the pair's extent (the largest coordinate of either object
 *   relative to the view's origin, or the depth range if larger: float
 *   positions and 32-bit float depths) plus 2 sqrt(2) pixel_size /
 *   2^GL_SUBPIXEL_BITS (the rasterizer may snap vertices to its subpixel
 *   grid); ties in depth count as
 *   touching. Decisions are made along the rays through pixel centres, so
 *   solids a fraction of a pixel apart are not reported as touching;
 * - an interference is always found when A and B overlap in a region that
 *   contains a ball of radius pixel_size (the ball's shadow then holds a
 *   pixel centre whose ray crosses both solids' interiors); thinner overlaps
 *   can fall between the rays and be missed (tests/gpu/test_myszkowski.c
 *   counts the misses on random pairs).
 */
/* The umbrella header first, outside the guard: it includes every public
 * header, this one too, in an order that puts each after those it needs,
 * whichever of them a program includes first. */
#include <glcollide/glcollide.h>

#ifndef GLCOLLIDE_MYSZKOWSKI_H
#define GLCOLLIDE_MYSZKOWSKI_H

#ifdef __cplusplus
extern "C" {
#endif

/* The GL objects of the method (programs, buffers, a depth/stencil target),
 * made once and reused by every test. Bound to one context: destroy it before
 * that context, with the context current (owned contexts are made current).
 * Made without a context, it is the CPU twin (below), bound to nothing. */
typedef struct glcollide_myszkowski glcollide_myszkowski;

/*
 * context NULL: the CPU twin, which answers every entry on the CPU with no
 * GL at all:
 * - the test answers interference exactly: the answer of the world's exact
 *   method (GLCOLLIDE_METHOD_EXACT at objects level) for that pair, the
 *   surfaces meeting (exact predicates) or one solid containing a part of
 *   the other (nonzero winding). result->interference is that answer;
 *   passes, the pixel counters, tolerance and swapped's effect are 0 (no
 *   pass runs); direction, width, height, pixel_size and depth_range are
 *   those of the view the GPU would choose (refine is ignored: the
 *   direction is the automatic one or options->direction);
 *   stats.triangle_tests counts the exact triangle tests;
 * - the distance map casts, in double, the ray through each pixel centre
 *   of that same view (exact orient2d on the projected triangles; a centre
 *   on a projected edge or vertex belongs to the triangles whose edge there
 *   is a top or left one, the rasterizers' rule), and gives each pixel the
 *   map's definition computed from the sorted crossings; position_step is
 *   0, listed_pixels and unresolved_pixels 0. It is the reference the GPU's
 *   map is tested against.
 * Errors: INVALID_ARGUMENT (out NULL), OUT_OF_MEMORY, GL (a shader that
 * does not build, with the driver's message). Touches: with a context, the
 * GL state of glcollide_context_wrap_current, restored on return.
 */
GLCOLLIDE_API int glcollide_myszkowski_create(glcollide_context *context,
                                              glcollide_myszkowski **out);
/* Accepts NULL or a pointer to NULL; clears the handle. */
GLCOLLIDE_API void glcollide_myszkowski_destroy(glcollide_myszkowski **tester);

typedef struct glcollide_myszkowski_options {
    int resolution;      /* largest side of the viewport in pixels, 16..4096 (pixels are square) */
    double direction[3]; /* projection direction; all zero: chosen from the bounding boxes */
    int full_map;        /* 0: stop at the first pass that decides; 1: classify every pixel */
    int check_solids;    /* 1: reject meshes that are not closed, and find those that pass
                            through themselves (solids by their winding number, counted so);
                            0: every mesh is taken as a closed solid not through itself */
    double margin;       /* distance map: the zone grown by this (world units, >= 0) */
    int refine;          /* 1: refine the automatic direction from the contact zone's polygons */
} glcollide_myszkowski_options;

/*
 * Defaults: resolution 512 (the paper's), direction automatic, full_map 0,
 * check_solids 1, margin 0, refine 0.
 *
 * The automatic direction is the paper's initial guess: the average normal
 * of the largest walls of the two bounding-box intersections. With refine,
 * A and B are drawn once more into an item buffer (triangle index of each
 * object's nearest and farthest surface per pixel); where both are convex
 * along the ray and the gap is below max(margin, 4 pixels), the two surfaces
 * facing each other (or bounding the overlap) are the contact zone's
 * polygons; their normals, weighted by area, averaged as lines (the
 * dominant eigenvector of sum(area n n^T)), give the direction the test or
 * map then runs along (section 7: depth is most accurate on surfaces facing
 * the view). Costs 4 draws, 1 dispatch and 1 sync (a bitset of the
 * triangles) more.
 */
GLCOLLIDE_API glcollide_myszkowski_options glcollide_myszkowski_default_options(void);

/* Pixels by what decided them; counts of the passes that ran. */
typedef struct glcollide_myszkowski_result {
    int interference;    /* 1: the solids interfere (surfaces meet, or one contains the other) */
    int passes;          /* renderings: 0 (boxes apart), 1, 2, or 3 (concave pixels) */
    int swapped;         /* 1: object j was A (the convex one, or the nearer along the view) */
    int refined;         /* 1: the direction came from the contact zone's polygons */
    int width, height;   /* viewport in pixels */
    double direction[3]; /* unit projection direction used */
    double pixel_size;   /* world side of a pixel */
    double depth_range;  /* world length the [0, 1] depth range spans */
    double tolerance;    /* world units; see the header comment */
    uint64_t covered_pixels;     /* pixels of A (mask SA) */
    uint64_t collision_pass1;    /* odd count of B's surfaces behind-or-at A's Zmax */
    uint64_t second_pass;        /* even, non-zero counts: sent to the second rendering */
    uint64_t collision_pass2;    /* decided by test 3 (A pi-convex there, or odd count) */
    uint64_t not_pi_convex;      /* second-pass pixels where A has other than 2 surfaces */
    uint64_t concave_pixels;     /* sent to the fragment lists */
    uint64_t collision_concave;  /* interference found by the sorted lists */
    uint64_t unresolved_pixels;  /* more than 256 surfaces at a pixel: counted as interference */
    glcollide_query_stats stats; /* draw_calls (dispatches too), gpu_syncs, ... */
} glcollide_myszkowski_result;

/*
 * Do objects i and j of world interfere, with their meshes and current
 * poses? The world keeps what it derives from each mesh (the check_solids
 * verdict, the CPU twin's BVH) until the mesh changes; the tester keeps its
 * world-position buffers, so a warm GPU test allocates only its upload
 * arrays (the CPU twin's map also builds a BVH of the projected meshes per
 * map). The world is not changed but for its cached derivations. Errors:
 * INVALID_ARGUMENT (NULL tester, world or options, i == j, an index out of
 * range: "myszkowski: objects 0 and 7: need two distinct objects of 2", bad
 * options), INVALID_MESH (with check_solids: a mesh that is not a closed
 * solid, named; non-finite world positions), LIMIT (resolution beyond the
 * context's GL limits or memory budget), OUT_OF_MEMORY, GL. Inside a solid
 * means a nonzero winding number, as for glcollide_point_in_mesh (a closed
 * mesh that passes through itself is inside where it winds twice or -1
 * times). Without check_solids an open mesh gives meaningless answers. At
 * most 4 GPU->CPU syncs (16-word counter reads) and 12 draw calls and
 * dispatches per test (5 and 17 with refine).
 */
GLCOLLIDE_API int glcollide_myszkowski_test(glcollide_myszkowski *tester, glcollide_world *world,
                                            uint32_t i, uint32_t j,
                                            const glcollide_myszkowski_options *options,
                                            glcollide_myszkowski_result *result);

/* Coverage bits of a distance-map pixel. */
enum {
    GLCOLLIDE_MYSZKOWSKI_COVER_A = 1,   /* the ray crosses A */
    GLCOLLIDE_MYSZKOWSKI_COVER_B = 2,   /* the ray crosses B */
    GLCOLLIDE_MYSZKOWSKI_LISTED = 4,    /* resolved by sorted lists (not pi-convex) */
    GLCOLLIDE_MYSZKOWSKI_UNRESOLVED = 8 /* more than 256 surfaces: distance is NaN */
};

/*
 * The distance map of the contact zone (the paper's jaw figure): per pixel,
 * along the ray through its centre in the projection direction, the gap
 * between A and B (> 0: the smallest distance along the ray between a point
 * of A and a point of B) or, where they overlap, minus the length of the ray
 * inside both (<= 0). NaN where the ray misses either solid.
 * Pixel (x, y), row y = 0 first, has its ray through
 *   corner + (x + 0.5) * pixel_size * axis_u + (y + 0.5) * pixel_size * axis_v
 * along direction, depth t in [0, depth_range] from there.
 * Precision (tested against CPU ray casting through the same centres): at a
 * pixel whose centre is more than 2 position_step from every projected edge,
 * coverage is exact and the distance is within n * 4 * (depth_step + s *
 * position_step) of the exact one, n the surfaces on the ray and s the
 * largest |grad depth| among them (steep surfaces lose depth to vertex
 * snapping).
 */
typedef struct glcollide_myszkowski_map {
    int width, height;
    float *distance;         /* width * height, world units */
    unsigned char *coverage; /* width * height, GLCOLLIDE_MYSZKOWSKI_COVER_... bits */
    double corner[3], axis_u[3], axis_v[3], direction[3];
    double pixel_size, depth_range;
    double depth_step;    /* world size of one float ulp at depth 1: depth_range * 2^-24 */
    double position_step; /* how far the rasterizer may move a vertex across the view:
                             pixel_size * 2^-GL_SUBPIXEL_BITS, at least 4 float ulps */
    double min_distance;  /* smallest finite distance (most negative: deepest overlap) */
    int refined;          /* 1: the direction came from the contact zone's polygons */
    uint64_t listed_pixels, unresolved_pixels;
    glcollide_query_stats stats;
} glcollide_myszkowski_map;

/*
 * Computes the distance map of objects i and j of world over the zone where
 * their bounding boxes (grown by options->margin) intersect, seen along the
 * direction glcollide_myszkowski_test would choose (or options->direction).
 * An empty zone gives a 0 x 0 map. map is zeroed first; release it with
 * glcollide_myszkowski_map_clear (it is cleared on error). Errors as
 * glcollide_myszkowski_test. Object i is A here (no swap). Two syncs (16
 * counters, then the map: 8 bytes per pixel), three when the lists outgrow
 * their buffer, one more with refine; 6 draw calls and dispatches (10 with
 * the rerun, +5 refine).
 */
GLCOLLIDE_API int glcollide_myszkowski_distance_map(glcollide_myszkowski *tester,
                                                    glcollide_world *world, uint32_t i,
                                                    uint32_t j,
                                                    const glcollide_myszkowski_options *options,
                                                    glcollide_myszkowski_map *map);

GLCOLLIDE_API void glcollide_myszkowski_map_clear(glcollide_myszkowski_map *map);

#ifdef __cplusplus
}
#endif

#endif /* GLCOLLIDE_MYSZKOWSKI_H */
