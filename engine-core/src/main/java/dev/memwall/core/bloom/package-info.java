/**
 * Bloom filters over off-heap memory, for keys the caller has already hashed to 64 bits: a
 * split-block filter whose every key lives in one 32-byte block (one cache miss per test, the
 * semi-join reducer in front of a join), a register-blocked filter whose every key lives in one
 * 64-bit word (one load and a compare per test, in front of a pipelined join's hash table), a
 * classic filter with k hash functions, and the
 * inspector join's vertical (bit-sliced) layout of up to 64 such filters, where testing a key
 * against all of them costs k loads (seed 002, chapter 5).
 *
 * <p>Filters never give false negatives; their false-positive rate follows from the bits per key
 * (see each class's sizing method). They are built by one thread, then may be tested from any
 * number of threads.
 */
package dev.memwall.core.bloom;
