/**
 * Hash functions for joins, partitioning and hash tables: cheap, well-mixing and, for keys that fit
 * 64 bits, bijective, so that equal hashes mean equal keys.
 */
package dev.memwall.core.hash;
