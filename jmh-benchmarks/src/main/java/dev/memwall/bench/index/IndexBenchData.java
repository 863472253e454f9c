package dev.memwall.bench.index;

import dev.memwall.core.CacheDirectory;
import dev.memwall.core.machine.MachineProfile;
import dev.memwall.index.SortedEntries;
import java.nio.file.Path;
import java.util.SplittableRandom;

/** Shared data for the index benchmarks: the machine profile, key sets and probe keys. */
final class IndexBenchData {
  private IndexBenchData() {}

  /**
   * The calibrated profile from the memwall cache directory ({@code $XDG_CACHE_HOME/memwall} or
   * {@code ~/.cache/memwall}).
   *
   * @throws IllegalStateException if none was measured yet
   */
  static MachineProfile profile() {
    Path dir = CacheDirectory.root();
    return MachineProfile.load(dir).orElseThrow(() -> new IllegalStateException(
        "no machine profile in " + dir + ": run ./memwall calibrate first"));
  }

  /** Entries {@code (2i, i)} for {@code i < count}: even keys, so odd keys are absent. */
  static SortedEntries evenKeys(long count) {
    return new SortedEntries() {
      @Override
      public long size() {
        return count;
      }

      @Override
      public long key(long i) {
        return 2 * i;
      }

      @Override
      public long rowId(long i) {
        return i;
      }
    };
  }

  /** {@code count} present keys (even keys below {@code 2 * keys}) drawn uniformly at random. */
  static long[] probes(long keys, int count, long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    long[] probes = new long[count];
    for (int i = 0; i < count; i++) {
      probes[i] = 2 * random.nextLong(keys);
    }
    return probes;
  }

  /** A random permutation of {@code 0 .. n - 1}. */
  static int[] permutation(int n, long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    int[] p = new int[n];
    for (int i = 0; i < n; i++) {
      p[i] = i;
    }
    for (int i = n - 1; i > 0; i--) {
      int j = random.nextInt(i + 1);
      int t = p[i];
      p[i] = p[j];
      p[j] = t;
    }
    return p;
  }
}
