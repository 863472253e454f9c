package dev.memwall.bench.index;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.index.IndexScan;
import dev.memwall.index.KeyType;
import dev.memwall.index.RowIds;
import dev.memwall.index.disk.DiskIndex;
import dev.memwall.index.disk.DiskTreeConfig;
import dev.memwall.index.disk.DiskTreeType;
import dev.memwall.index.disktrees.DiskIndexes;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Seed 002 chapter 3's comparison with the file cached in memory: the disk-first and cache-first
 * fpB+-trees against the slotted-page B+-tree and micro-indexing, at page sizes 4-32 KiB. Each tree is
 * bulkloaded 100% full with int64 keys {@code 0, 2, 4, ...} into a page file, and the buffer pool
 * holds every page (warmed by a full scan), so the benchmark measures the in-page search and the
 * pool's page lookup, not the device. In-page widths (the cache-first node width) come from the
 * machine profile by goal G.
 *
 * <p>{@code search}: {@value #BATCH} random present keys per invocation, score per key.
 * {@code scan}: one range scan of {@code rangeEntries} entries from a random present key, score per
 * scan.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xmx4g"})
@State(Scope.Benchmark)
public class DiskTreeBenchmark {
  static final int BATCH = 1024;
  private static final int PROBES = 1 << 20;

  @Param({"1000000"})
  public long keys;

  @Param({"4096", "8192", "16384", "32768"})
  public int pageBytes;

  @Param({"FPB_DISK_FIRST", "FPB_CACHE_FIRST", "SLOTTED", "MICRO_INDEX"})
  public DiskTreeType treeType;

  /** Entries per range scan. */
  @Param({"1000"})
  public int rangeEntries;

  private EngineMemory memory;
  private Path dir;
  private DiskIndex tree;
  private long[] probes;
  private int next;
  private final RowIds out = new RowIds(2 * BATCH);
  private long[] scanRows;

  @Setup(Level.Trial)
  public void setUp() throws IOException {
    memory = EngineMemory.create("disk-tree-bench");
    dir = Files.createTempDirectory("memwall-disktree");
    int frames = (int) (keys / (pageBytes / 32) + 256);
    DiskTreeConfig config = DiskIndexes.configFromProfile(IndexBenchData.profile(), KeyType.INT64, treeType, pageBytes)
        .withPoolFrames(frames);
    tree = DiskIndexes.bulkload(dir.resolve("tree.pages"), config, memory, IndexBenchData.evenKeys(keys), 1.0);
    long[] rows = new long[4096];
    IndexScan all = tree.scan(Long.MIN_VALUE, Long.MAX_VALUE);
    long seen = 0;
    for (int n; (n = all.next(rows)) > 0; ) {
      seen += n;
    }
    if (seen != keys) {
      throw new IllegalStateException("scan saw " + seen + " of " + keys + " entries");
    }
    System.out.println("# " + tree + ", " + tree.filePages() + " pages, " + tree.pool().misses()
        + " pool misses after warm-up, pool of " + frames + " frames");
    probes = IndexBenchData.probes(keys, PROBES, 3);
    scanRows = new long[rangeEntries];
  }

  @TearDown(Level.Trial)
  public void tearDown() throws IOException {
    Path file = dir.resolve("tree.pages");
    tree.close();
    memory.close();
    Files.deleteIfExists(file);
    Files.deleteIfExists(dir);
  }

  @Benchmark
  @OperationsPerInvocation(BATCH)
  public long search() {
    out.clear();
    int at = next;
    for (int i = 0; i < BATCH; i++) {
      tree.search(probes[(at + i) & (PROBES - 1)], out);
    }
    next = (at + BATCH) & (PROBES - 1);
    return out.size() + out.get(out.size() - 1);
  }

  @Benchmark
  public long scan() {
    long lo = probes[next];
    next = (next + 1) & (PROBES - 1);
    IndexScan scan = tree.scan(lo, lo + 2L * (rangeEntries - 1));
    long sum = 0;
    for (int n; (n = scan.next(scanRows)) > 0; ) {
      sum += n + scanRows[n - 1];
    }
    return sum;
  }
}
