package dev.memwall.index.fpb;

/**
 * What the cache-first tree's writer publishes to its lock-free readers: the current {@link View}
 * (replaced as a whole by one volatile store when an update is installed), the install counter
 * (a seqlock: installs begun plus installs ended, odd while the writer changes what readers can
 * see) and the test probe.
 *
 * <p>Why a class of its own: the writer ({@link WorkingTree}) and every reader ({@link Reader},
 * {@link CacheFirstScan}) hold it, and none of them holds the others. The writer thread alone
 * stores into {@link #view} and {@link #installs}; readers only read them, from any thread. The
 * probe is set before the threads that reach its points start (tests only).
 */
final class Publication {
  /** The published state; one volatile store publishes an update. */
  volatile View view = new View(PageMap.EMPTY, 0, 0, new JumpArray(new int[0], new int[0]), 0);

  /** Installs begun plus installs ended: odd while the writer changes what readers can see (seqlock). */
  volatile long installs;

  /** Test-only pause points, {@code null} outside tests; see {@link CacheFirstTree.Probe}. */
  CacheFirstTree.Probe probe;
}
