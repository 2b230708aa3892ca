/* SPDX-License-Identifier: MIT */
/* The one random sequence of the demos, benchmarks and tests: splitmix64
 * (Steele, Lea, Flood 2014), fixed seeds, so that every scene is reproducible
 * and a benchmark's scene is the demo's. */
#ifndef GLCOLLIDE_SPLITMIX64_H
#define GLCOLLIDE_SPLITMIX64_H

#include <stdint.h>

static inline uint64_t splitmix64_next(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Uniform in [lo, hi), from the top 53 bits. */
static inline double splitmix64_uniform(uint64_t *state, double lo, double hi)
{
    return lo + (hi - lo) * (double)(splitmix64_next(state) >> 11) * (1.0 / 9007199254740992.0);
}

#endif
