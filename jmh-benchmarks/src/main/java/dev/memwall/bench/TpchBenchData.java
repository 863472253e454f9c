package dev.memwall.bench;

import dev.memwall.core.plan.ExecutionContext;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.hw.CalibratedProfile;
import dev.memwall.tpch.data.TpchDataGenerator;
import dev.memwall.tpch.data.TpchDatabase;
import java.io.IOException;

/**
 * What the TPC-H benchmarks set up alike: the database of a scale factor from the launcher's
 * cache directory ({@code ~/.cache/memwall/sf<N>}, generated there with every core on first use)
 * and an execution context on the calibrated machine profile.
 *
 * <p>Ownership: the caller owns the database and the context's memory and closes them in its
 * tear-down. Thread safety: stateless. Bad input: as {@link TpchDatabase#load} (a scale factor
 * that is not positive, an unusable cache directory).
 */
public final class TpchBenchData {
  private TpchBenchData() {}

  /**
   * The TPC-H database of {@code scaleFactor}, its batches charged to {@code memory}.
   *
   * @throws IOException if the cache directory cannot be read or written
   */
  public static TpchDatabase load(double scaleFactor, EngineMemory memory) throws IOException {
    return TpchDatabase.load(TpchDataGenerator.defaultCacheDirectory(), scaleFactor,
        new TpchDataGenerator(Runtime.getRuntime().availableProcessors(), true), memory);
  }

  /** A context of {@code threads} threads over {@code memory}, on the calibrated machine profile. */
  public static ExecutionContext context(EngineMemory memory, int threads) {
    return ExecutionContext.builder(memory).threads(threads).machine(CalibratedProfile.install(null)).build();
  }
}
