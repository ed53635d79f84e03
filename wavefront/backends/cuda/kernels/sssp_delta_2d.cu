// Delta-stepping over seed 000's 2-D process grid, each rank's block on its
// GPU: the phases of wavefront/distributed/gpu_sssp.py. One column (R x 1,
// P = 1 included) is the default of GPU runs; the kernels below serve it
// whole, and a wider grid adds accept_offers (see the end of this list).
//
// The method is the CPU ranks' (wavefront/distributed/sssp2d.py: Meyer &
// Sanders' buckets of width delta, light arcs w <= delta relaxed in phases
// until the bucket's near set is empty, then the heavy arcs of every vertex
// the bucket relaxed, once; Davidson et al.'s near set and far pile). On one
// column a rank's block holds every arc into the rank's own vertices, sources
// by global id and targets by owner-local id, so a rank's relaxations lower
// its own distances directly (atomicMin) and nothing folds back to an owner:
//   pack_frontier    the owner's near list (a light phase) or the vertices the
//                    bucket relaxed (the heavy phase) as (global id, distance
//                    bits) words for the column all-gather; starts the phase's
//                    counters;
//   relax_frontier   the gathered frontier's light or heavy out-arcs into this
//                    rank's vertices: an improved vertex joins the next near
//                    list (its bucket is the current one or below, once per
//                    phase by a stamp) or the far pile (once, by a flag);
//                    out-lists of OC_CHUNK arcs or more become chunk tasks ...
//   relax_chunks     ... a warp each (Kronecker hubs);
//   far_min_bucket   the lowest bucket above the current one in the far pile;
//   split_far        that bucket's far vertices to the near list, later ones
//                    kept, stale ones (lowered into a bucket already done) dropped.
// On a grid of more than one column (R x C, C > 1) the block's targets are
// the row block's, shared by the C owners of a grid row: relax_frontier then
// lowers the distances this rank has offered each target (its near and far
// lists are just the targets it improved), the improved targets go to their
// owners in one all-to-all-v over the row:
//   fold_offers      the improved targets, each once, as (owner-local id,
//                    distance bits) entries in each owner's part of a buffer,
//                    counted per owner on the device (one host read a phase);
//   accept_offers    lowers the owner's distances from the entries it
//                    received, filing each lowered vertex near or far exactly
//                    as relax_frontier does.
// Distances are fl(d[u] + w) in the distance type (sssp_common.cuh), and a
// vertex's bucket is trunc(double(d) / delta), both exactly as the CPU steps
// compute them, so the buckets and the distances are the CPU search's.
// The parents come from the final distances with sssp_parents.cu's kernels.
#include "sssp_common.cuh"

#ifndef OC_BLOCK
#define OC_BLOCK 256
#endif
// Out-lists this long or longer are relaxed as chunk tasks of this many arcs, a warp each.
#ifndef OC_CHUNK
#define OC_CHUNK 2048
#endif
// Counters (one array of OC_CTL_WORDS uint64): uint32 list tails in the first
// OC_TAIL_WORDS / 2 words, then uint64 totals.
#ifndef OC_NEAR
#define OC_NEAR 0      // next near list (owner-local ids)
#endif
#ifndef OC_FAR
#define OC_FAR 1       // far pile
#endif
#ifndef OC_SETTLED
#define OC_SETTLED 2   // vertices the bucket's light phases relaxed (their heavy arcs are due)
#endif
#ifndef OC_CHUNKS
#define OC_CHUNKS 3    // chunk tasks of the phase
#endif
#ifndef OC_KEPT
#define OC_KEPT 4      // far vertices a split keeps
#endif
#ifndef OC_TAIL_WORDS
#define OC_TAIL_WORDS 8
#endif
#ifndef OC_EXAMINED
#define OC_EXAMINED 0  // arcs of the phase's class examined
#endif
#ifndef OC_LOWERED
#define OC_LOWERED 1   // distances lowered
#endif
#ifndef OC_FAR_BUCKET
#define OC_FAR_BUCKET 2  // far_min_bucket's answer (int64; OC_NO_BUCKET: none)
#endif
#ifndef OC_CTL_WORDS
#define OC_CTL_WORDS 8
#endif
#ifndef OC_NO_BUCKET
#define OC_NO_BUCKET 0x7fffffffffffffffLL
#endif

// A frontier entry is one word (id << 32 | distance bits) where both fit,
// float32 distances and 32-bit ids, else two words (id, distance bits).
#define OC_PACKED (SSSP_WEIGHT == SSSP_WEIGHT_FLOAT32 && !WF_INDEX64)

__device__ __forceinline__ unsigned int* oc_tails(unsigned long long* ctl) {
    return reinterpret_cast<unsigned int*>(ctl);
}

__device__ __forceinline__ unsigned long long* oc_totals(unsigned long long* ctl) {
    return ctl + OC_TAIL_WORDS / 2;
}

__device__ __forceinline__ unsigned long long dist_to_bits(dist_t d) {
#if SSSP_WEIGHT == SSSP_WEIGHT_FLOAT32
    return (unsigned long long)__float_as_uint(d);
#elif SSSP_WEIGHT == SSSP_WEIGHT_FLOAT64
    return (unsigned long long)__double_as_longlong(d);
#else
    return (unsigned long long)d;
#endif
}

__device__ __forceinline__ dist_t dist_from_bits(unsigned long long bits) {
#if SSSP_WEIGHT == SSSP_WEIGHT_FLOAT32
    return __uint_as_float((unsigned int)bits);
#elif SSSP_WEIGHT == SSSP_WEIGHT_FLOAT64
    return __longlong_as_double((long long)bits);
#else
    return (dist_t)(long long)bits;
#endif
}

// The CPU steps' bucket: np.int64(d / delta), the division in float64.
__device__ __forceinline__ long long bucket_of(dist_t d, double delta) {
    return (long long)((double)d / delta);
}

__device__ __forceinline__ void read_entry(const long long* __restrict__ frontier, long long x, vid_t* u,
                                           dist_t* d) {
#if OC_PACKED
    const unsigned long long word = (unsigned long long)frontier[x];
    *u = (vid_t)(word >> 32);
    *d = dist_from_bits(word & 0xffffffffULL);
#else
    *u = (vid_t)frontier[2 * x];
    *d = dist_from_bits((unsigned long long)frontier[2 * x + 1]);
#endif
}

// Entry x of `out`: (id, d) in read_entry's layout.
__device__ __forceinline__ void write_entry(long long* out, long long x, unsigned long long id, dist_t d) {
    const unsigned long long bits = dist_to_bits(d);
#if OC_PACKED
    out[x] = (long long)((id << 32) | bits);
#else
    out[2 * x] = (long long)id;
    out[2 * x + 1] = (long long)bits;
#endif
}

// The sum over the warp, added to *total by lane 0 (all 32 lanes together).
__device__ __forceinline__ void add_warp_total(unsigned long long* total, unsigned long long mine) {
    mine = warp_sum(mine);
    if (lane_id() == 0 && mine) atomicAdd(total, mine);
}

// Writes the first `count` vertices of `list` (owner-local) with their
// distances as frontier entries. A light phase (`light`) also files each
// vertex the bucket relaxes for the first time in `settled`; the heavy phase
// (its list is `settled`) clears their flags, and the list starts over. Also
// zeroes the counters the phase's relax fills.
extern "C" __global__ void __launch_bounds__(OC_BLOCK)
pack_frontier(long long count, const vid_t* __restrict__ list, const dist_t* __restrict__ dist,
              long long first_vertex, long long* out, int light, unsigned char* settled_flag,
              vid_t* settled, unsigned long long* ctl) {
    unsigned int* tails = oc_tails(ctl);
    const long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (tid == 0) {
        tails[OC_NEAR] = 0u;  // this kernel reads the near list by `count`, not by its tail
        tails[OC_CHUNKS] = 0u;
        if (!light) tails[OC_SETTLED] = 0u;
        oc_totals(ctl)[OC_EXAMINED] = 0ull;
        oc_totals(ctl)[OC_LOWERED] = 0ull;
    }
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long base = (long long)blockIdx.x * blockDim.x; base < count; base += stride) {
        const long long x = base + threadIdx.x;
        vid_t v = 0;
        bool first = false;
        if (x < count) {
            v = list[x];
            write_entry(out, x, (unsigned long long)(first_vertex + (long long)v), dist[v]);
            // A list holds each vertex once, so no two threads touch one flag.
            if (light) {
                first = settled_flag[v] == 0;
                if (first) settled_flag[v] = 1;
            } else {
                settled_flag[v] = 0;
            }
        }
        if (light) warp_append(settled, tails + OC_SETTLED, v, first);
    }
}

// Lowers dist[v] to nd where that is smaller (valid false: nothing); a lowered
// vertex joins the near list (its bucket is the current one or below, once per
// phase by `near_tag`) or the far pile (once, by its flag). All 32 lanes
// together. Returns whether it lowered.
__device__ __forceinline__ bool lower_and_file(bool valid, vid_t v, dist_t nd, dist_t* dist, int* near_stamp,
                                               int near_tag, vid_t* near, int* far_flag, vid_t* far,
                                               unsigned int* tails, double delta, long long bucket) {
    bool to_near = false, to_far = false, lowered = false;
    if (valid && nd < __ldcg(dist + v) && nd < atomic_min_dist(dist + v, nd)) {
        lowered = true;
        if (bucket_of(nd, delta) <= bucket)
            to_near = atomicExch(near_stamp + v, near_tag) != near_tag;
        else
            to_far = __ldcg(far_flag + v) == 0 && atomicExch(far_flag + v, 1) == 0;
    }
    warp_append(near, tails + OC_NEAR, v, to_near);
    warp_append(far, tails + OC_FAR, v, to_far);
    return lowered;
}

struct Relax {
    const vid_t* __restrict__ indices;
    const weight_t* __restrict__ weights;
    dist_t* dist;
    int* near_stamp;
    int near_tag;
    vid_t* near;
    int* far_flag;
    vid_t* far;
    unsigned int* tails;
    double delta;
    long long bucket;
    bool light;

    // Arc i from a vertex at distance d (all 32 lanes together; valid false:
    // padding). Returns whether the arc is of the phase's class.
    __device__ __forceinline__ bool arc(bool valid, dist_t d, eid_t i, unsigned long long* lowered) const {
        bool examined = false;
        vid_t v = 0;
        dist_t nd = 0;
        if (valid) {
            const dist_t w = arc_weight(weights, i);
            examined = ((double)w <= delta) == light;
            if (examined) {
                nd = d + w;
                v = indices[i];
            }
        }
        if (lower_and_file(examined, v, nd, dist, near_stamp, near_tag, near, far_flag, far, tails, delta, bucket))
            ++*lowered;
        return examined;
    }
};

// The phase's relaxation over the `count` gathered frontier entries: lists
// shorter than SSSP_WARP_COOP_DEGREE by their lane, longer ones by the warp,
// and those of OC_CHUNK arcs or more left to relax_chunks as tasks (entry,
// first arc).
extern "C" __global__ void __launch_bounds__(OC_BLOCK)
relax_frontier(long long count, const long long* __restrict__ frontier, const eid_t* __restrict__ indptr,
               const vid_t* __restrict__ indices, const weight_t* __restrict__ weights, int light,
               double delta, long long bucket, dist_t* dist, int* near_stamp, int near_tag, vid_t* near,
               int* far_flag, vid_t* far, long long* chunk_entry, eid_t* chunk_begin,
               unsigned long long* ctl) {
    const Relax r{indices, weights, dist, near_stamp, near_tag, near, far_flag, far, oc_tails(ctl),
                  delta, bucket, light != 0};
    unsigned long long examined = 0, lowered = 0;
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long base = (long long)blockIdx.x * blockDim.x; base < count; base += stride) {
        const long long x = base + threadIdx.x;
        bool active = x < count;
        eid_t b = 0, e = 0;
        dist_t d = 0;
        if (active) {
            vid_t u;
            read_entry(frontier, x, &u, &d);
            b = indptr[u];
            e = indptr[u + 1];
            if (e - b >= OC_CHUNK) {
                const eid_t pieces = (e - b + OC_CHUNK - 1) / OC_CHUNK;
                const unsigned int at = atomicAdd(r.tails + OC_CHUNKS, (unsigned int)pieces);
                for (eid_t k = 0; k < pieces; ++k) {
                    chunk_entry[at + k] = x;
                    chunk_begin[at + k] = b + k * OC_CHUNK;
                }
                active = false;
            }
        }
        for_each_arc(active, b, e, d, [&](bool valid, dist_t from, eid_t i) {
            examined += r.arc(valid, from, i, &lowered) ? 1ull : 0ull;
        });
    }
    add_warp_total(oc_totals(ctl) + OC_EXAMINED, examined);
    add_warp_total(oc_totals(ctl) + OC_LOWERED, lowered);
}

// The chunk tasks relax_frontier filed (their number is on the device: a
// fixed grid strides over them), a warp each.
extern "C" __global__ void __launch_bounds__(OC_BLOCK)
relax_chunks(const long long* __restrict__ frontier, const eid_t* __restrict__ indptr,
             const vid_t* __restrict__ indices, const weight_t* __restrict__ weights, int light,
             double delta, long long bucket, dist_t* dist, int* near_stamp, int near_tag, vid_t* near,
             int* far_flag, vid_t* far, const long long* __restrict__ chunk_entry,
             const eid_t* __restrict__ chunk_begin, unsigned long long* ctl) {
    const Relax r{indices, weights, dist, near_stamp, near_tag, near, far_flag, far, oc_tails(ctl),
                  delta, bucket, light != 0};
    const long long chunks = __ldcg(r.tails + OC_CHUNKS);
    const long long warps = ((long long)gridDim.x * blockDim.x) >> 5;
    unsigned long long examined = 0, lowered = 0;
    for (long long c = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5; c < chunks; c += warps) {
        vid_t u;
        dist_t d;
        read_entry(frontier, chunk_entry[c], &u, &d);
        const eid_t b = chunk_begin[c];
        const eid_t end = indptr[u + 1];
        const eid_t e = b + (eid_t)OC_CHUNK < end ? b + (eid_t)OC_CHUNK : end;
        for (eid_t at = b; at < e; at += 32) {
            const eid_t i = at + lane_id();
            examined += r.arc(i < e, d, i, &lowered) ? 1ull : 0ull;
        }
    }
    add_warp_total(oc_totals(ctl) + OC_EXAMINED, examined);
    add_warp_total(oc_totals(ctl) + OC_LOWERED, lowered);
}

// The lowest bucket above `bucket` among the far pile's distances, into the
// OC_FAR_BUCKET total (the host sets it to OC_NO_BUCKET first). Also zeroes
// the tails split_far fills.
extern "C" __global__ void __launch_bounds__(OC_BLOCK)
far_min_bucket(long long count, const vid_t* __restrict__ far, const dist_t* __restrict__ dist, double delta,
               long long bucket, unsigned long long* ctl) {
    const long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (tid == 0) {
        oc_tails(ctl)[OC_NEAR] = 0u;
        oc_tails(ctl)[OC_KEPT] = 0u;
    }
    long long lowest = OC_NO_BUCKET;
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long x = tid; x < count; x += stride) {
        const long long b = bucket_of(dist[far[x]], delta);
        if (b > bucket && b < lowest) lowest = b;
    }
    for (int offset = 16; offset > 0; offset >>= 1) {
        const long long other = __shfl_xor_sync(SSSP_FULL_MASK, lowest, offset);
        lowest = other < lowest ? other : lowest;
    }
    if (lane_id() == 0 && lowest != OC_NO_BUCKET)
        atomicMin(reinterpret_cast<long long*>(oc_totals(ctl) + OC_FAR_BUCKET), lowest);
}

// The far pile after the bucket `stale_bucket`: vertices of buckets up to
// `bucket` (the next one) go to the near list, those of later buckets to
// `far_keep`; vertices at or below `stale_bucket` were lowered into a bucket
// that relaxed them, and are dropped. Leaving vertices lose their far flag.
extern "C" __global__ void __launch_bounds__(OC_BLOCK)
split_far(long long count, const vid_t* __restrict__ far, const dist_t* __restrict__ dist, double delta,
          long long stale_bucket, long long bucket, vid_t* near, vid_t* far_keep, int* far_flag,
          unsigned long long* ctl) {
    unsigned int* tails = oc_tails(ctl);
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long base = (long long)blockIdx.x * blockDim.x; base < count; base += stride) {
        const long long x = base + threadIdx.x;
        vid_t v = 0;
        bool keep = false, to_near = false;
        if (x < count) {
            v = far[x];
            const long long b = bucket_of(dist[v], delta);
            keep = b > bucket;
            to_near = !keep && b > stale_bucket;
            if (!keep) far_flag[v] = 0;
        }
        warp_append(far_keep, tails + OC_KEPT, v, keep);
        warp_append(near, tails + OC_NEAR, v, to_near);
    }
}

// The relaxing side's improved targets (relax_frontier's near and far lists
// over the row block; their lengths are in `ctl`'s tails, so a fixed grid
// strides over them) as entries for their owners: owner o = v / piece gets
// (v - o * piece, offered[v]) in its part of `out`, which starts at entry
// o * piece, at the next slot of its counter owner_counts[o] (zeroed by the
// caller). A far target loses its flag (the relaxing side keeps no far
// pile); one also in this phase's near list (stamped `near_tag`) is sent
// once, from the near list, so no owner's part holds more than `piece`.
extern "C" __global__ void __launch_bounds__(OC_BLOCK)
fold_offers(const vid_t* __restrict__ near, const vid_t* __restrict__ far, const dist_t* __restrict__ offered,
            const int* __restrict__ near_stamp, int near_tag, long long piece, int* far_flag, long long* out,
            unsigned long long* owner_counts, const unsigned long long* __restrict__ ctl) {
    const unsigned int* tails = reinterpret_cast<const unsigned int*>(ctl);
    const long long near_count = tails[OC_NEAR];
    const long long total = near_count + (long long)tails[OC_FAR];
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long x = (long long)blockIdx.x * blockDim.x + threadIdx.x; x < total; x += stride) {
        const bool from_far = x >= near_count;
        const vid_t v = from_far ? far[x - near_count] : near[x];
        if (from_far) {
            far_flag[v] = 0;
            if (near_stamp[v] == near_tag) continue;
        }
        const long long owner = (long long)v / piece;
        const long long at = owner * piece + (long long)atomicAdd(owner_counts + owner, 1ull);
        write_entry(out, at, (unsigned long long)((long long)v - owner * piece), offered[v]);
    }
}

// The owner's side of a phase on a grid of more than one column: `count`
// entries (owner-local id, offered distance; the frontier entries' layout)
// from the ranks of the grid row; a lowered vertex joins the near list (its
// bucket is the current one or below, once per phase by `near_tag`) or the
// far pile (once, by its flag), and counts in the OC_LOWERED total.
extern "C" __global__ void __launch_bounds__(OC_BLOCK)
accept_offers(long long count, const long long* __restrict__ offers, double delta, long long bucket, dist_t* dist,
              int* near_stamp, int near_tag, vid_t* near, int* far_flag, vid_t* far, unsigned long long* ctl) {
    unsigned int* tails = oc_tails(ctl);
    unsigned long long lowered = 0;
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long base = (long long)blockIdx.x * blockDim.x; base < count; base += stride) {
        const long long x = base + threadIdx.x;
        vid_t v = 0;
        dist_t d = 0;
        if (x < count) read_entry(offers, x, &v, &d);
        if (lower_and_file(x < count, v, d, dist, near_stamp, near_tag, near, far_flag, far, tails, delta, bucket))
            ++lowered;
    }
    add_warp_total(oc_totals(ctl) + OC_LOWERED, lowered);
}
