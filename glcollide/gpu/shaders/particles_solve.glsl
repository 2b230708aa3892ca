// SPDX-License-Identifier: MIT
// particles: the solve shader (see particles.c).
//
// The same algorithm as particles.c describes, in float (times in double only for the
// generation bookkeeping, so that late times keep their precision).
layout(local_size_x = 64) in;
struct particle_t { vec4 x0; vec4 v0; vec4 acc; dvec2 birth_life; };
// m0 = (Mxx Myy Mzz Mxy), m1 = (Mxz Myz gx gy), m2 = (gz J bounce k),
// bmin.w = radius^2 (< 0: none), cmin.w = cull, map = (lo0 1/size0 lo1
// 1/size1), origin.w = kind (0 plane, 1 quadric).
struct collider_t { vec4 origin; vec4 u; vec4 v; vec4 w; vec4 m0; vec4 m1; vec4 m2;
                    vec4 bmin; vec4 bmax; vec4 cmin; vec4 cmax; vec4 map; };
layout(std430, binding = 0) readonly buffer particle_block { particle_t particles[]; };
layout(std140, binding = 1) uniform collider_block { collider_t colliders[COLLIDER_CAPACITY]; };
layout(std430, binding = 2) buffer record_block { uint record_count; uint instances; uint first;
                                                   uint base; uvec4 records[]; };
layout(std430, binding = 3) writeonly buffer position_block { vec4 positions[]; };
uniform double window_a, window_b, time_t;
uniform uint particle_count, collider_count, capacity;
uniform int max_bounces;
uniform vec3 position_jitter, velocity_jitter;
uint hash32(uint x) {
    x ^= x >> 16; x *= 0x7feb352du; x ^= x >> 15; x *= 0x846ca68bu; x ^= x >> 16;
    return x;
}
float jitter_unit(uint i, uint g, uint k) {
    uint h = hash32(hash32(i) ^ (g * 0x9E3779B9u + k * 0x85EBCA6Bu));
    return float(h >> 8) * (1.0 / 8388608.0) - 1.0;
}
// A polynomial is c (c0..c3) and c4: no local arrays (llvmpipe turns
// their dynamic indexing into scratch memory or select ladders).
float poly_eval(vec4 c, float c4, float s) {
    return (((c4 * s + c.w) * s + c.z) * s + c.y) * s + c.x;
}
bool crosses(float fl, float fr) { return (fl < 0.0 && fr >= 0.0) || (fl > 0.0 && fr <= 0.0); }
float bisect(vec4 c, float c4, float l, float r) {
    float sl = sign(poly_eval(c, c4, l));
    for (int i = 0; i < 100; i++) {
        float m = 0.5 * (l + r);
        if (m <= l || m >= r) break;
        float fm = poly_eval(c, c4, m);
        if (fm != 0.0 && sign(fm) == sl) l = m; else r = m;
    }
    return r;
}
int degree_of(vec4 c, float c4) {
    return c4 != 0.0 ? 4 : c.w != 0.0 ? 3 : c.z != 0.0 ? 2 : c.y != 0.0 ? 1 : 0;
}
void push(inout vec4 r, inout int n, float x) {
    if (n == 0) r.x = x; else if (n == 1) r.y = x; else if (n == 2) r.z = x; else r.w = x;
    n++;
}
int roots_quadratic(vec4 c, int degree, float lo, float hi, out vec4 roots) {
    float r0 = 0.0, r1 = 0.0; int n = 0;
    if (degree == 1) { r0 = -c.x / c.y; n = 1; }
    else if (degree == 2) {
        float disc = c.y * c.y - 4.0 * c.z * c.x;
        if (disc >= 0.0) {
            float q = -0.5 * (c.y + (c.y >= 0.0 ? sqrt(disc) : -sqrt(disc)));
            if (q == 0.0) { r0 = 0.0; n = 1; }
            else { float a = q / c.z, b = c.x / q; r0 = min(a, b); r1 = max(a, b); n = 2; }
        }
    }
    int kept = 0; roots = vec4(0.0);
    if (n >= 1 && r0 > lo && r0 <= hi) push(roots, kept, r0);
    if (n >= 2 && r1 > lo && r1 <= hi) push(roots, kept, r1);
    return kept;
}
// Roots from critical points: the monotone pieces, bisected.
int roots_pieces(vec4 c, float c4, float lo, float hi, vec4 critical, int nc, out vec4 roots) {
    int n = 0; float l = lo, fl = poly_eval(c, c4, lo); roots = vec4(0.0);
    for (int i = 0; i < 4; i++) {
        if (i > nc) break;
        float r = i < nc ? critical[i] : hi;
        if (r <= l) continue;
        float fr = poly_eval(c, c4, r);
        if (crosses(fl, fr)) push(roots, n, bisect(c, c4, l, r));
        l = r; fl = fr;
    }
    return n;
}
// degree <= 3 (the C version's recursion, one level unrolled)
int roots_low(vec4 c, float lo, float hi, out vec4 roots) {
    int degree = degree_of(c, 0.0);
    roots = vec4(0.0);
    if (degree <= 0) return 0;
    if (degree <= 2) return roots_quadratic(c, degree, lo, hi, roots);
    vec4 d = vec4(c.y, 2.0 * c.z, 3.0 * c.w, 0.0), critical;
    int nc = roots_quadratic(d, degree_of(d, 0.0), lo, hi, critical);
    return roots_pieces(c, 0.0, lo, hi, critical, nc, roots);
}
int roots_in(vec4 c, float c4, float lo, float hi, out vec4 roots) {
    if (c4 == 0.0) return roots_low(c, lo, hi, roots);
    vec4 d = vec4(c.y, 2.0 * c.z, 3.0 * c.w, 4.0 * c4), critical;
    int nc = roots_low(d, lo, hi, critical);
    return roots_pieces(c, c4, lo, hi, critical, nc, roots);
}
mat3 quadric_m(collider_t k) {
    return mat3(k.m0.x, k.m0.w, k.m1.x, k.m0.w, k.m0.y, k.m1.y, k.m1.x, k.m1.y, k.m0.z);
}
vec3 to_local(collider_t k, vec3 x) { vec3 d = x - k.origin.xyz; return vec3(dot(k.u.xyz, d), dot(k.v.xyz, d), dot(k.w.xyz, d)); }
vec3 rotate_local(collider_t k, vec3 d) { return vec3(dot(k.u.xyz, d), dot(k.v.xyz, d), dot(k.w.xyz, d)); }
bool inside_bounds(collider_t k, vec3 l) {
    if (!all(greaterThanEqual(l, k.bmin.xyz)) || !all(lessThanEqual(l, k.bmax.xyz))) return false;
    return k.bmin.w < 0.0 || l.x * l.x + l.y * l.y <= k.bmin.w;
}
bool path_meets_box(vec4 cmin, vec4 cmax, vec3 x, vec3 v, vec3 b, float S) {
    if (cmin.w == 0.0) return true;
    vec3 e = x + S * (v + S * b);
    vec3 lo = min(x, e), hi = max(x, e);
    vec3 s = -v / (2.0 * b); // the apex, where b != 0 and it lies inside (0, S)
    bvec3 apex = bvec3(b.x != 0.0 && s.x > 0.0 && s.x < S, b.y != 0.0 && s.y > 0.0 && s.y < S,
                       b.z != 0.0 && s.z > 0.0 && s.z < S);
    vec3 m = x + s * (v + s * b);
    lo = mix(lo, min(lo, m), apex); hi = mix(hi, max(hi, m), apex);
    return all(greaterThanEqual(hi, cmin.xyz)) && all(lessThanEqual(lo, cmax.xyz));
}
// The cull box first: the whole collider is loaded only when needed.
float first_hit(uint ci, vec3 x, vec3 v, vec3 b, float S, bool deflate) {
    if (!path_meets_box(colliders[ci].cmin, colliders[ci].cmax, x, v, b, S)) return -1.0;
    collider_t k = colliders[ci];
    vec3 xl = to_local(k, x), vl = rotate_local(k, v), bl = rotate_local(k, b);
    mat3 m = quadric_m(k); vec3 g = vec3(k.m1.z, k.m1.w, k.m2.x);
    vec3 mx = m * xl, mv = m * vl, mb = m * bl;
    float c4 = dot(bl, mb);
    vec4 c = vec4(dot(xl, mx) + 2.0 * dot(g, xl) + k.m2.y,
                  2.0 * dot(xl, mv) + 2.0 * dot(g, vl),
                  dot(vl, mv) + 2.0 * dot(xl, mb) + 2.0 * dot(g, bl),
                  2.0 * dot(vl, mb));
    if (deflate) { c = vec4(c.yzw, c4); c4 = 0.0; }
    vec4 roots;
    int n = roots_in(c, c4, 0.0, S, roots);
    for (int i = 0; i < 4; i++) {
        if (i >= n) break;
        float s = roots[i];
        if (inside_bounds(k, xl + s * (vl + s * bl))) return s;
    }
    return -1.0;
}
void emit(uint i, uint g, uint hit, uint bounce, bool eliminated, float tau, vec3 p, vec3 vel,
          vec3 n) {
    collider_t k = colliders[hit];
    vec3 l = to_local(k, p);
    float a = k.origin.w == 0.0 ? l.x : (l.x == 0.0 && l.y == 0.0 ? 0.0 : atan(l.y, l.x));
    float b = k.origin.w == 0.0 ? l.y : l.z;
    float u = clamp((a - k.map.x) * k.map.y, 0.0, 1.0), v = clamp((b - k.map.z) * k.map.w, 0.0, 1.0);
    uint slot = atomicAdd(record_count, 1u);
    if (slot >= capacity) return;
    records[3u * slot] = uvec4(i, hit | bounce << 16, g, eliminated ? 1u : 0u);
    records[3u * slot + 1u] = uvec4(floatBitsToUint(p), floatBitsToUint(tau));
    records[3u * slot + 2u] = uvec4(floatBitsToUint(u), floatBitsToUint(v),
                                    floatBitsToUint(length(vel)), floatBitsToUint(abs(dot(vel, n))));
}
// Returns alive at until; position there in *position.
bool replay(uint i, uint g, double tg, vec3 x0, vec3 v0, vec3 acc, float until, float wa,
            float wb, bool emitting, out vec3 position) {
    vec3 x = x0, v = v0, b = 0.5 * acc;
    float s0 = 0.0; int last = -1; int bounces = 0;
    position = vec3(0.0);
    for (;;) {
        float best = until - s0; int hit = -1;
        for (uint c = 0u; c < collider_count; c++) {
            float s = first_hit(c, x, v, b, best, int(c) == last);
            if (s >= 0.0 && (hit < 0 || s < best)) { best = s; hit = int(c); }
        }
        if (hit < 0) break;
        vec3 p = x + best * (v + best * b), vel = v + best * acc;
        collider_t k = colliders[hit];
        vec3 grad = quadric_m(k) * to_local(k, p) + vec3(k.m1.z, k.m1.w, k.m2.x);
        vec3 n = normalize(k.u.xyz * grad.x + k.v.xyz * grad.y + k.w.xyz * grad.z);
        float th = s0 + best;
        bool eliminated = k.m2.z == 0.0 || bounces >= max_bounces;
        if (emitting && th > wa && th <= wb) {
            float tau = float((tg - window_a + double(th)) / (window_b - window_a));
            emit(i, g, uint(hit), uint(bounces), eliminated, tau, p, vel, n);
        }
        if (eliminated) return false;
        float vn = dot(vel, n);
        x = p; v = vel - (1.0 + k.m2.w) * vn * n;
        s0 = th; last = hit; bounces++;
    }
    float s = until - s0;
    position = x + s * (v + s * b);
    return true;
}
double generation_of(double birth, double life, double t) {
    return life <= 0.0lf ? 0.0lf : floor((t - birth) / life);
}
void generation_start(particle_t q, uint i, uint g, out vec3 x0, out vec3 v0) {
    for (int k = 0; k < 3; k++) {
        x0[k] = q.x0[k] + position_jitter[k] * jitter_unit(i, g, uint(k));
        v0[k] = q.v0[k] + velocity_jitter[k] * jitter_unit(i, g, uint(k) + 3u);
    }
}
void main() {
    uint i = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * 64u;
    if (i >= particle_count) return;
    particle_t q = particles[i];
    double birth = q.birth_life.x, life = q.birth_life.y;
    vec3 x0, v0, p;
    vec4 out_position = vec4(0.0);
    bool have_position = false;
    if (window_b > birth) {
        double gb = generation_of(birth, life, window_b);
        double ga = window_a > birth ? generation_of(birth, life, window_a) : 0.0lf;
        if (gb - ga >= 4.0lf) ga = gb - 3.0lf;
        for (double g = ga; g <= gb; g += 1.0lf) {
            double tg = birth + g * life;
            double until = life > 0.0lf ? min(window_b - tg, life) : window_b - tg;
            generation_start(q, i, uint(g), x0, v0);
            bool alive = replay(i, uint(g), tg, x0, v0, q.acc.xyz, float(until),
                                float(window_a - tg), float(window_b - tg), true, p);
            // Without look-ahead the last replay ends at t1: its position is the one asked for.
            if (g == gb && time_t == window_b) {
                out_position = vec4(alive ? p : vec3(0.0), alive ? 1.0 : 0.0);
                have_position = true;
            }
        }
    }
    if (!have_position && time_t >= birth) {
        double g = generation_of(birth, life, time_t), tg = birth + g * life;
        generation_start(q, i, uint(g), x0, v0);
        bool alive = replay(i, uint(g), tg, x0, v0, q.acc.xyz, float(time_t - tg), 0.0, 0.0, false, p);
        out_position = vec4(alive ? p : vec3(0.0), alive ? 1.0 : 0.0);
    }
    positions[i] = out_position;
}
