// tt_embedding (core/README.md; layout in core's TtGeometry): the selected core slices are
// contracted per output element, never the V x D table. One work item per output element (the
// r1 r2 triple products of its slices) and one per core-gradient element (its running sum over
// the batch rows in order, so repeated ids add up the same way every run, and every element is
// written). No buffer beyond the output or the gradient.
//   geo = (v1, v2, v3, batch), dims = (d1, d2, d3, 0), ranks = (r1, r2, 0, 0)

inline int tt_g1(int4 d, int4 r, int i1, int j1, int a) { return (i1 * d.x + j1) * r.x + a; }
inline int tt_g2(int4 d, int4 r, int i2, int a, int j2, int c) { return ((i2 * r.x + a) * d.y + j2) * r.y + c; }
inline int tt_g3(int4 d, int4 r, int i3, int c, int j3) { return (i3 * r.y + c) * d.z + j3; }
inline int tt_out(int4 d, int b, int j1, int j2, int j3) { return b * d.x * d.y * d.z + (j1 * d.y + j2) * d.z + j3; }

// The mixed-radix digits (i1, i2, i3) of row b's id, w = 0; w = -1 for an id outside the
// vocabulary (the row then contributes nothing, and its output row is NaN).
inline int4 tt_digits(__global const int* ids, int4 geo, int b) {
  const int id = ids[b];
  if (id < 0 || id >= geo.x * geo.y * geo.z) return (int4)(0, 0, 0, -1);
  return (int4)(id / (geo.y * geo.z), id / geo.z % geo.y, id % geo.z, 0);
}

__kernel void tt_embedding_fwd(__global const int* ids, __global const store_t* g1, __global const store_t* g2,
                               __global const store_t* g3, __global store_t* y, int4 geo, int4 d, int4 r) {
  const int n = get_global_id(0), dim = d.x * d.y * d.z;
  if (n >= geo.w * dim) return;
  const int b = n / dim, j = n % dim;
  const int j1 = j / (d.y * d.z), j2 = j / d.z % d.y, j3 = j % d.z;
  const int4 i = tt_digits(ids, geo, b);
  real acc = i.w < 0 ? NAN : R(0);
  for (int a = 0; a < r.x && i.w == 0; ++a) {
    const real x1 = LOAD(g1, tt_g1(d, r, i.x, j1, a));
    for (int c = 0; c < r.y; ++c)
      acc += x1 * LOAD(g2, tt_g2(d, r, i.y, a, j2, c)) * LOAD(g3, tt_g3(d, r, i.z, c, j3));
  }
  STORE(y, n, acc);
}

// Element n of core `core` (1, 2 or 3): its slice s and position in the slice, then the running
// sum over the rows whose id has digit s there.
__kernel void tt_embedding_bwd(__global const int* ids, __global const store_t* g1, __global const store_t* g2,
                               __global const store_t* g3, __global const store_t* dy, __global store_t* dcore,
                               int core, int4 geo, int4 d, int4 r) {
  const int n = get_global_id(0);
  const int slice = core == 1 ? d.x * r.x : core == 2 ? r.x * d.y * r.y : r.y * d.z;
  const int slices = core == 1 ? geo.x : core == 2 ? geo.y : geo.z;
  if (n >= slices * slice) return;
  const int s = n / slice, p = n % slice;
  real acc = R(0);
  for (int b = 0; b < geo.w; ++b) {
    const int4 i = tt_digits(ids, geo, b);
    if (i.w < 0 || (core == 1 ? i.x : core == 2 ? i.y : i.z) != s) continue;
    if (core == 1) {  // dG1[i1, 0, j1, a]: p = j1 r1 + a
      const int j1 = p / r.x, a = p % r.x;
      for (int j2 = 0; j2 < d.y; ++j2)
        for (int j3 = 0; j3 < d.z; ++j3)
          for (int c = 0; c < r.y; ++c)
            acc += LOAD(dy, tt_out(d, b, j1, j2, j3)) * LOAD(g2, tt_g2(d, r, i.y, a, j2, c)) *
                   LOAD(g3, tt_g3(d, r, i.z, c, j3));
    } else if (core == 2) {  // dG2[i2, a, j2, c]: p = (a d2 + j2) r2 + c
      const int c = p % r.y, j2 = p / r.y % d.y, a = p / (r.y * d.y);
      for (int j1 = 0; j1 < d.x; ++j1)
        for (int j3 = 0; j3 < d.z; ++j3)
          acc += LOAD(dy, tt_out(d, b, j1, j2, j3)) * LOAD(g1, tt_g1(d, r, i.x, j1, a)) *
                 LOAD(g3, tt_g3(d, r, i.z, c, j3));
    } else {  // dG3[i3, c, j3, 0]: p = c d3 + j3
      const int c = p / d.z, j3 = p % d.z;
      for (int j1 = 0; j1 < d.x; ++j1)
        for (int j2 = 0; j2 < d.y; ++j2)
          for (int a = 0; a < r.x; ++a)
            acc += LOAD(dy, tt_out(d, b, j1, j2, j3)) * LOAD(g1, tt_g1(d, r, i.x, j1, a)) *
                   LOAD(g2, tt_g2(d, r, i.y, a, j2, c));
    }
  }
  STORE(dcore, n, acc);
}
