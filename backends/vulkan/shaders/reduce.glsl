// Work-group reductions for shaders that #define WG (their local size) before including this:
// subgroupAdd / subgroupMax inside each subgroup, then every invocation combines the subgroup
// partials in subgroup order. Two barriers instead of a shared-memory tree's log2(WG) + 1, and a
// fixed order, so a result does not depend on timing (the stress runs compare bit for bit). The
// backend requires subgroup arithmetic in compute shaders of the device. Callers must be in
// uniform control flow: every invocation of the group reaches the barriers.
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require

#if defined(IS_F64)
#define C2 dvec2
#else
#define C2 vec2
#endif

shared C2 subgroup_partials[WG];  // one per subgroup (WG covers a subgroup size of 1), or per
                                  // invocation in column_tile_sum2

C2 group_sum2(C2 v) {
  v = subgroupAdd(v);
  if (subgroupElect()) subgroup_partials[gl_SubgroupID] = v;
  barrier();
  C2 r = subgroup_partials[0];
  for (uint k = 1u; k < gl_NumSubgroups; ++k) r += subgroup_partials[k];
  barrier();  // every invocation has read the partials before the next reduction writes them
  return r;
}

C group_sum(C v) { return group_sum2(C2(v, K(0.0))).x; }

C group_max(C v) {
  v = subgroupMax(v);
  if (subgroupElect()) subgroup_partials[gl_SubgroupID].x = v;
  barrier();
  C r = subgroup_partials[0].x;
  for (uint k = 1u; k < gl_NumSubgroups; ++k) r = max(r, subgroup_partials[k].x);
  barrier();
  return r;
}

// Column tiles (COLUMN_TILE from op_codes.h, host side ColumnTiles in dispatch.hpp): group g
// sums chunk g / tiles of the terms for tile g % tiles of the columns. Invocation
// lane * COLUMN_TILE + x takes column x of the tile and every COLUMN_LANES-th term of the chunk,
// from `lane` on. `chunk` is uniform per group.
const uint COLUMN_LANES = WG / COLUMN_TILE;
struct ColumnTile {
  uint chunk, column, lane;
};
ColumnTile column_tile(uint columns) {
  uint tiles = (columns + COLUMN_TILE - 1u) / COLUMN_TILE;
  uint x = gl_LocalInvocationID.x % COLUMN_TILE;
  return ColumnTile(group_linear() / tiles, (group_linear() % tiles) * COLUMN_TILE + x,
                    gl_LocalInvocationID.x / COLUMN_TILE);
}

// Each invocation holds a partial sum for its column of the group's tile. Returns the sum over
// the lanes, in order, to the invocations of lane 0 (the others get their own input back).
C2 column_tile_sum2(C2 v) {
  subgroup_partials[gl_LocalInvocationID.x] = v;
  barrier();
  if (gl_LocalInvocationID.x < COLUMN_TILE)
    for (uint y = 1u; y < WG / COLUMN_TILE; ++y) v += subgroup_partials[y * COLUMN_TILE + gl_LocalInvocationID.x];
  barrier();
  return v;
}
