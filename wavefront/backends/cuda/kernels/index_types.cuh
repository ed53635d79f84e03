// Vertex and edge index types shared by every kernel file (BFS and SSSP).
//
// Vertex ids are 32-bit while n < 2^31 and 64-bit beyond (WF_INDEX64=1),
// matching Graph.indices; CSR offsets are always 64-bit.
#pragma once

#ifndef WF_INDEX64
#define WF_INDEX64 0
#endif

#if WF_INDEX64
typedef long long vid_t;
#else
typedef int vid_t;
#endif
typedef long long eid_t;
