package dev.memwall.bench.bloom;

import dev.memwall.core.bloom.BlockedBloomFilter;
import dev.memwall.core.bloom.BloomFilter;
import dev.memwall.core.bloom.RegisterBlockedBloomFilter;
import dev.memwall.core.bloom.VerticalBloomFilters;
import dev.memwall.core.memory.EngineMemory;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
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
 * What one Bloom-filter test costs once the filter outgrows the caches: the split-block filter
 * (one 32-byte block per key, at most one miss), a classic filter with three positions per key (up
 * to three misses) at the same 1% false-positive rate, the inspector join's vertical set of 50
 * filters at 0.1% each (three misses for all 50), and the register-blocked filter the pipelined
 * joins use (one 64-bit word per key, 16 bits a key, about 1% too). The {@code ...Select} variants
 * test a chunk of 1024 hashes at a time into a selection vector, as a join's probe loop does.
 *
 * <p>{@code keys} added keys size the filters: 10^4 keys fit L1/L2, 10^6 the L2/L3, 10^7 keys
 * (12 MiB split-block, 96 MiB vertical) only memory. Each operation tests {@value #PROBES} random
 * hashes, about 1% of them added (a selective semi-join reducer); scores are ns per test.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(1)
@State(Scope.Benchmark)
public class BloomFilterBenchmark {
  static final int PROBES = 1 << 16;
  static final int FILTERS = 50;
  static final int CHUNK = 1024;

  @Param({"10000", "1000000", "10000000"})
  public int keys;

  private EngineMemory memory;
  private BlockedBloomFilter blocked;
  private BloomFilter classic;
  private VerticalBloomFilters vertical;
  private RegisterBlockedBloomFilter register;
  private long[] probes;
  private final int[] selection = new int[CHUNK];
  private final long[] chunk = new long[CHUNK];

  @Setup(Level.Trial)
  public void setUp() {
    memory = EngineMemory.create("bloom benchmark");
    blocked = BlockedBloomFilter.create(memory, keys, 0.01);
    classic = BloomFilter.create(memory, (long) Math.ceil(BloomFilter.bitsPerKey(0.01, 3) * keys), 3);
    register = RegisterBlockedBloomFilter.create(memory, keys, 16);
    SplittableRandom random = new SplittableRandom(7);
    long[] added = new long[keys];
    List<BloomFilter> perSubPartition = new ArrayList<>();
    long subPartitionBits = (long) Math.ceil(BloomFilter.bitsPerKey(0.001, 3) * keys / FILTERS);
    for (int s = 0; s < FILTERS; s++) {
      perSubPartition.add(BloomFilter.create(memory, subPartitionBits, 3));
    }
    for (int i = 0; i < keys; i++) {
      added[i] = random.nextLong();
      blocked.add(added[i]);
      classic.add(added[i]);
      register.add(added[i]);
      perSubPartition.get(i % FILTERS).add(added[i]);
    }
    vertical = VerticalBloomFilters.transpose(memory, perSubPartition);
    perSubPartition.forEach(BloomFilter::close);
    probes = new long[PROBES];
    for (int i = 0; i < PROBES; i++) {
      probes[i] = i % 100 == 0 ? added[random.nextInt(keys)] : random.nextLong();
    }
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    register.close();
    vertical.close();
    classic.close();
    blocked.close();
    memory.close();
  }

  @Benchmark
  @OperationsPerInvocation(PROBES)
  public int splitBlock() {
    int hits = 0;
    for (long hash : probes) {
      hits += blocked.mightContain(hash) ? 1 : 0;
    }
    return hits;
  }

  @Benchmark
  @OperationsPerInvocation(PROBES)
  public int classicThreeHashes() {
    int hits = 0;
    for (long hash : probes) {
      hits += classic.mightContain(hash) ? 1 : 0;
    }
    return hits;
  }

  @Benchmark
  @OperationsPerInvocation(PROBES)
  public long vertical50Filters() {
    long candidates = 0;
    for (long hash : probes) {
      candidates += Long.bitCount(vertical.candidates(hash));
    }
    return candidates;
  }

  @Benchmark
  @OperationsPerInvocation(PROBES)
  public int registerBlocked() {
    int hits = 0;
    for (long hash : probes) {
      hits += register.mightContain(hash) ? 1 : 0;
    }
    return hits;
  }

  @Benchmark
  @OperationsPerInvocation(PROBES)
  public int splitBlockSelect() {
    int hits = 0;
    for (int from = 0; from < PROBES; from += CHUNK) {
      System.arraycopy(probes, from, chunk, 0, CHUNK);
      hits += blocked.select(chunk, CHUNK, selection);
    }
    return hits;
  }

  @Benchmark
  @OperationsPerInvocation(PROBES)
  public int registerBlockedSelect() {
    int hits = 0;
    for (int from = 0; from < PROBES; from += CHUNK) {
      System.arraycopy(probes, from, chunk, 0, CHUNK);
      hits += register.select(chunk, CHUNK, selection);
    }
    return hits;
  }
}
