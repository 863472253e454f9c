/**
 * Frequent elements and top-k over a stream: Space-Saving (Metwally, Agrawal and El Abbadi 2005)
 * with its Stream Summary, in the cache-conscious form of Das, Agrawal and El Abbadi's CAM conscious
 * Space Saving with Stream Summary (DaMoN 2008, seed 001), answering both queries at any time on the
 * same stream.
 *
 * <p><b>Algorithm.</b> A summary has m counters. A monitored key's counter goes up by one; an
 * unmonitored key takes over a counter with the smallest count c, which goes up to c + 1 with error
 * c (the evicted key occurred at most c times, so the newcomer at most c times before). The
 * counters sit in buckets of equal count, linked in increasing order ({@link
 * dev.memwall.core.frequent.StreamSummary}), so an increment moves a counter one bucket up and the
 * minimum is the first bucket's: constant work per key; a top-k or frequent-elements query walks the
 * buckets from the largest down and stops as soon as it has its answer.
 *
 * <p><b>Bounds</b>, for N keys: every monitored key's true count lies in [count - error, count];
 * every error, and the count of any unmonitored key, is at most N / m; so every key occurring more
 * than N / m times is monitored, and {@code m = ceil(1 / epsilon)} bounds every error by
 * {@code epsilon N}. A frequent-elements query with support {@code phi >= 1 / m} misses no key above
 * {@code phi N} and flags as guaranteed those whose lower bound exceeds it; a top-k query flags as
 * guaranteed the keys whose lower bound reaches the (k+1)-th count (Metwally et al.'s test). Summaries
 * of parts of a stream {@linkplain dev.memwall.core.frequent.SpaceSaving#merge merge} (Agarwal et al.
 * 2012) into one with the same bounds for the whole stream, which is how a parallel plan runs it:
 * one summary per worker, merged at the end.
 *
 * <p><b>Where the paper's CAM went.</b> The paper keeps the monitored elements in a content-addressable
 * memory, whose lookup is one hardware operation, and the buckets in SRAM. Here the lookup is an
 * open-addressing table of primitive longs, key and counter side by side in one cache line
 * ({@link dev.memwall.core.frequent.CounterIndex}), and the buckets and counters are flat
 * {@code int[]}/{@code long[]} arrays linked by index: no object per element, about 100 bytes per
 * counter ({@link dev.memwall.core.frequent.SpaceSaving#bytesFor}). {@link
 * dev.memwall.core.frequent.SummarySizing} fits the lookup to the smallest cache level of the machine
 * profile whose half holds it (L1d for the plans' default top-k, L2 for some thousands of counters),
 * spending what is left of that half on more counters or sparser slots; an error bound that needs
 * more counters than the fast levels hold gets them anyway, with a lookup that may miss to memory.
 *
 * <p><b>Continuous queries.</b> The paper answers queries two ways: at intervals, by a walk from the
 * largest bucket ({@link dev.memwall.core.frequent.SpaceSaving#topK}, {@link
 * dev.memwall.core.frequent.SpaceSaving#frequent} and their allocation-free {@code topKKeys},
 * {@code frequentKeys}), and continuously, with an answer kept up to date as each element arrives
 * ({@link dev.memwall.core.frequent.StandingTopK}, {@link dev.memwall.core.frequent.StandingFrequent},
 * its Algorithms 5 and 3): an element moves at most its own counter into the answer and the
 * answer's lowest counters out, so reading the answer walks no bucket.
 *
 * <p>Strings are counted under a 64-bit hash of their bytes, with the bytes kept only for the
 * monitored ones ({@link dev.memwall.core.frequent.StringSpaceSaving}). Plans run these summaries
 * through {@code Plan.approxTopK} and {@code Plan.frequent}. Memory: every summary charges its arrays
 * to an {@link dev.memwall.core.memory.EngineMemory}. Thread safety: one writer per summary.
 */
package dev.memwall.core.frequent;
