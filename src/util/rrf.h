/* rrf.h — reciprocal rank fusion: one list's share of a fused score,
 * weight / (k + rank), rank from 1. Hybrid search (search/hybrid.c) and the
 * fusion of external providers' hits (tools/ext.c) both use it. */
#ifndef MG_RRF_H
#define MG_RRF_H

static inline double mg_rrf(double weight, int k, double rank)
{
    return weight / ((double)k + rank);
}

#endif
