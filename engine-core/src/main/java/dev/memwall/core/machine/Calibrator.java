package dev.memwall.core.machine;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.HugePages;
import dev.memwall.core.memory.OffHeapBuffer;
import dev.memwall.core.memory.Placement;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * Measures this machine in the spirit of Manegold's calibrator (seed 000, section 2) and Chen's
 * T1/Tnext (seed 002, section 2.4.1): a dependent pointer chase over random cycles through working
 * sets from 4 KiB up gives the latency curve, the caches' hit latencies (cross-checked against the
 * sizes sysfs reports) and T1; interleaved independent chases give Tnext and the memory-level
 * parallelism; a chase with one line per page, on 4 KiB and on huge pages, gives the TLB's reach and
 * miss cost; pairs of dependent loads a growing distance apart give each level's line size; the
 * simple scan of seed 000 (one byte every {@code stride} bytes) gives the curve its three cost
 * models explain ({@link ScanCostModels}); sequential kernels give read, write and copy bandwidth
 * on one and all cores; a filter's data-dependent branch over random against sorted values gives
 * the cost of a mispredicted branch (the penalty seed 003's stall breakdown charges per branch miss).
 *
 * <p>All memory comes from the given {@link EngineMemory} and is freed before returning. Every
 * figure is the minimum over repeated runs, the usual defence against a noisy machine.
 *
 * <p>Thread safety: one measurement at a time per caller; it starts its own threads for the
 * all-core bandwidth.
 */
public final class Calibrator {
  private static final int LINE_STRIDE = 64;
  private static final long SMALLEST_WORKING_SET = 4L << 10;

  /**
   * How much to measure.
   *
   * @param largestWorkingSetBytes the last point of the latency curve; T1 is read there, so it
   *     should be well beyond the last-level cache
   * @param bandwidthBytes bytes streamed by each bandwidth kernel
   * @param repeats runs per figure, of which the minimum counts
   * @param accessesPerPoint dependent loads timed per working set and run
   * @param tlbPages the most pages the TLB sweep touches (16,384 x 4 KiB = 64 MiB of address space)
   */
  public record Settings(long largestWorkingSetBytes, long bandwidthBytes, int repeats, long accessesPerPoint,
      int tlbPages) {
    /** The full calibration: 256 MiB working sets, TLB up to 16,384 pages; about half a minute. */
    public static Settings full() {
      return new Settings(256L << 20, 256L << 20, 3, 1L << 21, 1 << 14);
    }

    /** A quick one for smoke runs and tests: 32 MiB, 2,048 pages, a few seconds. */
    public static Settings quick() {
      return new Settings(32L << 20, 32L << 20, 2, 1L << 17, 1 << 11);
    }
  }

  private Calibrator() {}

  /** Measures this machine; {@code progress} receives one line per phase. */
  public static MachineProfile measure(EngineMemory memory, Settings settings, Consumer<String> progress) {
    List<CacheLevel> caches = SysfsTopology.dataCaches(SysfsTopology.DEFAULT_ROOT);
    progress.accept("warming up the kernels (JIT compilation)");
    warmUp(memory);
    List<MachineProfile.LatencyPoint> curve = new ArrayList<>();
    double missLatency;
    double roundNanos;
    try (OffHeapBuffer buffer = memory.allocate(settings.largestWorkingSetBytes())) {
      MemorySegment ring = buffer.segment();
      progress.accept("latency versus working set, 4 KiB to " + (settings.largestWorkingSetBytes() >> 20) + " MiB");
      long[] starts = null;
      for (long workingSet = SMALLEST_WORKING_SET; workingSet <= settings.largestWorkingSetBytes(); workingSet *= 2) {
        starts = MemoryProbe.buildRing(ring, workingSet, LINE_STRIDE, workingSet);
        curve.add(new MachineProfile.LatencyPoint(workingSet,
            chaseNanos(ring, starts, settings.accessesPerPoint(), settings.repeats())));
      }
      missLatency = curve.getLast().nanosPerAccess();
      progress.accept("pipelined misses: " + MemoryProbe.CHAINS + " interleaved chases");
      long[] chains = starts;
      long rounds = settings.accessesPerPoint() / MemoryProbe.CHAINS;
      roundNanos = minimumNanos(settings.repeats(), () -> MemoryProbe.chaseParallel(ring, chains, rounds)) / rounds;
    }
    double pipelined = pipelinedMissNanos(missLatency, roundNanos);
    List<MachineProfile.MeasuredCache> measured = matchLevels(caches, plateaus(curve));
    progress.accept("line sizes: pairs of dependent loads 8 to " + LARGEST_PAIR_DISTANCE + " bytes apart");
    measured = withLineSizes(memory, measured, settings);
    progress.accept("the scan of seed 000: one byte every 1 to " + STRIDES[STRIDES.length - 1] + " bytes");
    List<MachineProfile.StridePoint> strideScan = strideScan(memory, settings, caches);
    progress.accept("TLB: one line per page, 4 KiB pages and huge pages, up to " + settings.tlbPages() + " pages");
    MachineProfile.Tlb tlb = tlb(memory, settings);
    progress.accept("sequential bandwidth, 1 and " + Runtime.getRuntime().availableProcessors() + " cores");
    MachineProfile.Bandwidth bandwidth = bandwidth(memory, settings);
    progress.accept("branch misprediction: a data-dependent branch over random and sorted values");
    double branchMiss = branchMissNanos(memory, settings);
    return new MachineProfile(cpuName(), Runtime.getRuntime().availableProcessors(), measured, missLatency,
        pipelined, missLatency / pipelined, curve, bandwidth, pageSize(), tlb, branchMiss, strideScan);
  }

  /**
   * Tnext from one round of {@link MemoryProbe#CHAINS} interleaved chases: the time per miss while
   * that many independent misses are in flight, {@code round / CHAINS}, which is what the cost
   * models charge an independent miss. Seed 002 models a burst of k misses as T1 + (k - 1) x Tnext;
   * a steady loop of chases instead takes max(T1, k x Tnext) per round, since each chase waits a
   * full T1 for its own miss while the others overlap it: with fewer chains than the core keeps in
   * flight a round takes about one T1 (the burst model would read that as a near-zero Tnext), with
   * more it is bound by their throughput, which is the per-miss cost a plain loop of random loads
   * into a table on huge pages measures (docs/calibration). An overlapped miss cannot cost more than a full one (a larger figure is a
   * disturbed run, seen under load from other processes), so Tnext is at most T1.
   */
  static double pipelinedMissNanos(double missLatency, double roundNanos) {
    return Math.min(missLatency, roundNanos / MemoryProbe.CHAINS);
  }

  private static final int PAIR_BLOCK_BYTES = 512;
  private static final int LARGEST_PAIR_DISTANCE = 256;
  /** The least step (slowest over fastest distances) that counts as crossing into the next line. */
  private static final double LINE_STEP = 1.2;

  /**
   * Each level's line size from the latency-versus-stride curve: a chase through random blocks
   * whose footprint is twice the level (so the first load of a block misses it), with a second,
   * dependent load {@code d} bytes before the first. While {@code d} stays within the line the
   * second load hits; from the line size on it misses too. A level keeps 0 when its footprint would
   * not fit the largest working set or the step stays under {@value #LINE_STEP}x.
   */
  private static List<MachineProfile.MeasuredCache> withLineSizes(EngineMemory memory,
      List<MachineProfile.MeasuredCache> caches, Settings settings) {
    List<MachineProfile.MeasuredCache> result = new ArrayList<>();
    long largestSpan = settings.largestWorkingSetBytes();
    try (OffHeapBuffer buffer = memory.allocate(largestSpan)) {
      MemorySegment ring = buffer.segment();
      for (MachineProfile.MeasuredCache level : caches) {
        // Twice the level, or twice what the latency curve found of it where sysfs's size needs too much memory.
        long footprint = 2 * level.cache().sizeBytes();
        if (footprint / level.cache().lineBytes() * PAIR_BLOCK_BYTES > largestSpan && level.effectiveBytes() > 0) {
          footprint = 2 * level.effectiveBytes();
        }
        long blocks = footprint / level.cache().lineBytes();
        if (blocks * PAIR_BLOCK_BYTES > largestSpan) {
          result.add(level);
          continue;
        }
        // Two sweeps over the distances, keeping the faster time of each: one disturbed run is not a step.
        double[] pairNanos = new double[Integer.numberOfTrailingZeros(LARGEST_PAIR_DISTANCE / Long.BYTES) + 1];
        Arrays.fill(pairNanos, Double.MAX_VALUE);
        for (int sweep = 0; sweep < 2; sweep++) {
          for (int i = 0; i < pairNanos.length; i++) {
            int distance = Long.BYTES << i;
            long[] starts = MemoryProbe.buildPairRing(ring, (int) blocks, PAIR_BLOCK_BYTES, distance, distance);
            pairNanos[i] = Math.min(pairNanos[i],
                2 * chaseNanos(ring, starts, Math.min(settings.accessesPerPoint(), 1L << 20), settings.repeats()));
          }
        }
        result.add(level.withMeasuredLineBytes(lineStep(pairNanos, Long.BYTES, LINE_STEP)));
      }
    }
    return result;
  }

  /**
   * The distance at which a pair of loads turns from one line into two: {@code pairNanos} holds the
   * times at distances {@code first, 2 first, 4 first, ...}; the answer is the distance that splits
   * them into a faster and a slower group with the widest gap (the slowest of the faster group to
   * the fastest of the slower), if that gap reaches {@code leastStep}; else 0.
   */
  static int lineStep(double[] pairNanos, int first, double leastStep) {
    int best = 0;
    double widest = leastStep;
    for (int split = 1; split < pairNanos.length; split++) {
      double faster = Arrays.stream(pairNanos, 0, split).max().orElseThrow();
      double slower = Arrays.stream(pairNanos, split, pairNanos.length).min().orElseThrow();
      if (slower / faster >= widest) {
        widest = slower / faster;
        best = first << split;
      }
    }
    return best;
  }

  /** The strides of the scan experiment, in bytes. */
  private static final int[] STRIDES = {1, 2, 4, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256};
  /** Iterations per run of the scan, as in the seed. */
  private static final int SCAN_ITERATIONS = 200_000;

  /**
   * The simple scan of seed 000: for each stride, the time per byte read from memory that starts out
   * in no cache, and of the same loop wrapped inside 16 KiB, which stays in L1 and gives T_CPU.
   *
   * <p>Each cold run reads a region of one buffer that no run has read before, in order from the
   * buffer's start; the buffer was written front to back once, with four last-level caches' worth
   * of bytes beyond the last region, so every region was evicted long before its run. Evicting a
   * reused buffer before each run instead would read four last-level caches per run (gigabytes on
   * a machine whose L3 is hundreds of megabytes) to time a scan of at most 51 MB.
   */
  private static List<MachineProfile.StridePoint> strideScan(EngineMemory memory, Settings settings,
      List<CacheLevel> caches) {
    long lastLevel = caches.isEmpty() ? 32L << 20 : caches.getLast().sizeBytes();
    int runs = settings.repeats() + 2;
    long regions = 0;
    for (int stride : STRIDES) {
      regions += (long) runs * SCAN_ITERATIONS * stride;
    }
    long beyond = Math.max(4 * lastLevel, settings.largestWorkingSetBytes());
    List<MachineProfile.StridePoint> points = new ArrayList<>();
    try (OffHeapBuffer buffer = memory.allocate(regions + beyond)) {
      MemorySegment all = buffer.segment();
      MemoryProbe.write(all, 1); // touch the pages before timing, the regions first
      MemorySegment warm = all.asSlice(regions, 2L * SCAN_ITERATIONS); // read only by the untimed and the L1 runs
      long l1Mask = (16L << 10) - 1;
      // warmUp's short runs may leave the loop still queued for compilation (a busy JIT, as in a
      // parallel test run): the first strides were then timed interpreted, 50x too slow
      for (int run = 0; run < 20; run++) {
        SINK = SINK ^ MemoryProbe.strideScan(warm, 1 + run % 2, SCAN_ITERATIONS, run % 4 < 2 ? -1 : l1Mask);
      }
      long[] next = {0}; // the start of the next unread region
      for (int stride : STRIDES) {
        long length = (long) SCAN_ITERATIONS * stride;
        double cold = leastOfTimedRuns(runs, () -> {
          MemorySegment region = all.asSlice(next[0], length);
          next[0] += length;
          long t0 = System.nanoTime();
          SINK = SINK ^ MemoryProbe.strideScan(region, stride, SCAN_ITERATIONS, -1);
          return System.nanoTime() - t0;
        });
        MemoryProbe.strideScan(warm, stride, SCAN_ITERATIONS, l1Mask);
        double inL1 = minimumNanos(runs, () -> MemoryProbe.strideScan(warm, stride, SCAN_ITERATIONS, l1Mask));
        points.add(new MachineProfile.StridePoint(stride, cold / SCAN_ITERATIONS, inL1 / SCAN_ITERATIONS));
      }
    }
    return points;
  }

  /**
   * The cost of one mispredicted branch: {@link MemoryProbe#filterBelow} at the median over
   * random values (the predictor misses about half the outcomes, {@code min(kept, n - kept)} at
   * best) minus the same values sorted (one misprediction), divided by those mispredictions. Both
   * runs read, compare and store the same values, so only the mispredictions differ. NaN when the
   * random run is not slower (the branch was compiled away: nothing to measure).
   */
  static double branchMissNanos(EngineMemory memory, Settings settings) {
    int values = BRANCH_VALUES;
    long bytes = (long) values * Integer.BYTES;
    try (OffHeapBuffer random = memory.allocate(bytes);
        OffHeapBuffer sorted = memory.allocate(bytes);
        OffHeapBuffer scratch = memory.allocate(4L << 10)) {
      SplittableRandom generator = new SplittableRandom(values);
      int[] data = new int[values];
      for (int i = 0; i < values; i++) {
        data[i] = generator.nextInt(Integer.MAX_VALUE);
      }
      MemorySegment.copy(data, 0, random.segment(), ValueLayout.JAVA_INT, 0, values);
      Arrays.sort(data);
      MemorySegment.copy(data, 0, sorted.segment(), ValueLayout.JAVA_INT, 0, values);
      int threshold = data[values / 2];
      MemorySegment out = scratch.segment();
      for (int round = 0; round < 50; round++) { // let the JIT compile the kernel first (C2, not OSR)
        SINK = SINK ^ MemoryProbe.filterBelow(random.segment(), threshold, out)
            ^ MemoryProbe.filterBelow(sorted.segment(), threshold, out);
      }
      // one pass (about half a millisecond) per run and the minimum of many runs: on a shared machine
      // longer runs are more often interrupted, which inflated the penalty up to 3x when tried
      int repeats = Math.max(15, 5 * settings.repeats());
      double randomNanos = minimumNanos(repeats, () -> MemoryProbe.filterBelow(random.segment(), threshold, out));
      double sortedNanos = minimumNanos(repeats, () -> MemoryProbe.filterBelow(sorted.segment(), threshold, out));
      int kept = MemoryProbe.filterBelow(random.segment(), threshold, out);
      double mispredictions = Math.min(kept, values - kept);
      return randomNanos > sortedNanos && mispredictions > 0
          ? (randomNanos - sortedNanos) / mispredictions : Double.NaN;
    }
  }

  /**
   * Values of the branch measurement: 512 KiB of ints, in L2 on current CPUs so memory does not blur
   * it, and 131,072 random outcomes, far more than a branch predictor can learn.
   */
  private static final int BRANCH_VALUES = 1 << 17;

  /**
   * The TLB sweep: for 16, 32, ... pages, a chase with one line per 4 KiB page, the same layout on
   * huge pages, and a chase over as many contiguous lines. The TLB's cost is the 4 KiB layout minus
   * the same layout on huge pages (minus the contiguous lines where huge pages are unavailable);
   * its reach is the most pages at which that cost stays under a quarter of its final value (and
   * under 1 ns).
   */
  private static MachineProfile.Tlb tlb(EngineMemory memory, Settings settings) {
    long page = pageSize();
    long bytes = settings.tlbPages() * page;
    long accesses = Math.min(settings.accessesPerPoint(), 1L << 19);
    List<MachineProfile.TlbPoint> curve = new ArrayList<>();
    try (OffHeapBuffer small = memory.allocate(bytes);
        OffHeapBuffer huge = memory.allocate(bytes, Placement.HUGE_PAGES)) {
      for (int pages = 16; pages <= settings.tlbPages(); pages *= 2) {
        double onPages = chaseNanos(small.segment(), MemoryProbe.buildPageRing(small.segment(), pages, page, pages),
            accesses, settings.repeats());
        double onHugePages = huge.hugePages()
            ? chaseNanos(huge.segment(), MemoryProbe.buildPageRing(huge.segment(), pages, page, pages), accesses,
                settings.repeats())
            : Double.NaN;
        double contiguous = chaseNanos(small.segment(), MemoryProbe.buildRing(small.segment(), pages * 64L, 64, pages),
            accesses, settings.repeats());
        curve.add(new MachineProfile.TlbPoint(pages, onPages, onHugePages, contiguous));
      }
    }
    // Without TLB misses: the same layout on huge pages where there are some (it differs only in
    // page size), else contiguous lines (which also differ in how the lines share cache sets).
    java.util.function.ToDoubleFunction<MachineProfile.TlbPoint> baseline =
        point -> Double.isNaN(point.hugePageNanos()) ? point.contiguousNanos() : point.hugePageNanos();
    MachineProfile.TlbPoint last = curve.getLast();
    double missNanos = Math.max(0, last.pageNanos() - baseline.applyAsDouble(last));
    double hugeMissNanos = Math.max(0, last.hugePageNanos() - last.contiguousNanos());
    long entries = 0;
    for (MachineProfile.TlbPoint point : curve) {
      if (point.pageNanos() - baseline.applyAsDouble(point) < Math.min(1.0, missNanos / 4)) {
        entries = point.pages();
      } else {
        break;
      }
    }
    return new MachineProfile.Tlb(entries, missNanos, hugeMissNanos, curve);
  }

  /** The least time per step of a chase from {@code starts[0]}, after a quarter as many steps to warm the caches. */
  private static double chaseNanos(MemorySegment ring, long[] starts, long accesses, int repeats) {
    MemoryProbe.chase(ring, starts[0], accesses / 4);
    return minimumNanos(repeats, () -> MemoryProbe.chase(ring, starts[0], accesses)) / accesses;
  }

  /** Runs every kernel long enough on 1 MiB that the JIT compiles it before anything is timed. */
  private static void warmUp(EngineMemory memory) {
    try (OffHeapBuffer buffer = memory.allocate(1L << 20)) {
      MemorySegment ring = buffer.segment().asSlice(0, 1L << 19);
      MemorySegment stream = buffer.segment().asSlice(1L << 19);
      long[] starts = MemoryProbe.buildRing(ring, ring.byteSize(), LINE_STRIDE, 1);
      for (int round = 0; round < 30; round++) {
        SINK = SINK ^ MemoryProbe.chase(ring, 0, 1 << 15) ^ MemoryProbe.chaseParallel(ring, starts, 1 << 12);
        SINK = SINK ^ MemoryProbe.read(stream);
        SINK = SINK ^ MemoryProbe.strideScan(stream, 1 + round % 64, 1 << 12, (1L << 18) - 1);
        MemoryProbe.copy(stream);
        MemoryProbe.write(stream, round);
      }
    }
  }

  /** A run of the latency curve at one level of the hierarchy: its largest working set and typical latency. */
  record Plateau(long largestWorkingSetBytes, double nanos) {}

  /**
   * Splits the latency curve at its knees: a point is a knee when it and the next point both take
   * at least {@code 2x} the typical (median) latency of the plateau so far, so one noisy point is
   * not a knee and a gradual rise within a level (a set that half fits) is not either. The last
   * plateau is memory.
   */
  static List<Plateau> plateaus(List<MachineProfile.LatencyPoint> curve) {
    List<Plateau> plateaus = new ArrayList<>();
    List<Double> current = new ArrayList<>();
    for (int j = 0; j < curve.size(); j++) {
      double latency = curve.get(j).nanosPerAccess();
      if (!current.isEmpty()) {
        double typical = median(current);
        boolean next = j + 1 == curve.size() || curve.get(j + 1).nanosPerAccess() >= KNEE * typical;
        if (latency >= KNEE * typical && next) {
          plateaus.add(new Plateau(curve.get(j - 1).workingSetBytes(), typical));
          current.clear();
        }
      }
      current.add(latency);
    }
    if (!current.isEmpty()) {
      plateaus.add(new Plateau(curve.getLast().workingSetBytes(), median(current)));
    }
    return plateaus;
  }

  private static final double KNEE = 2.0;

  /**
   * Pairs the caches sysfs reports with the curve's plateaus, in order, when there is one plateau
   * per cache plus memory; otherwise each cache gets the latency at half its reported size and no
   * effective size, since the curve cannot be trusted to separate the levels.
   */
  static List<MachineProfile.MeasuredCache> matchLevels(List<CacheLevel> caches, List<Plateau> plateaus) {
    List<MachineProfile.MeasuredCache> measured = new ArrayList<>();
    boolean matched = plateaus.size() == caches.size() + 1;
    for (int i = 0; i < caches.size(); i++) {
      CacheLevel cache = caches.get(i);
      if (matched) {
        measured.add(new MachineProfile.MeasuredCache(cache, plateaus.get(i).largestWorkingSetBytes(),
            plateaus.get(i).nanos()));
      } else {
        measured.add(new MachineProfile.MeasuredCache(cache, 0, latencyAt(plateaus, cache.sizeBytes() / 2)));
      }
    }
    return measured;
  }

  private static double latencyAt(List<Plateau> plateaus, long workingSetBytes) {
    for (Plateau plateau : plateaus) {
      if (workingSetBytes <= plateau.largestWorkingSetBytes()) {
        return plateau.nanos();
      }
    }
    return Double.NaN;
  }

  private static double median(List<Double> values) {
    List<Double> sorted = values.stream().sorted().toList();
    int mid = sorted.size() / 2;
    return sorted.size() % 2 == 1 ? sorted.get(mid) : (sorted.get(mid - 1) + sorted.get(mid)) / 2;
  }

  /** Bytes each bandwidth figure streams at least, so thread start-up and timer resolution vanish in it. */
  private static final long BANDWIDTH_VOLUME = 1L << 30;

  private static MachineProfile.Bandwidth bandwidth(EngineMemory memory, Settings settings) {
    int cores = Runtime.getRuntime().availableProcessors();
    long bytes = settings.bandwidthBytes();
    int passes = (int) Math.max(1, BANDWIDTH_VOLUME / bytes);
    try (OffHeapBuffer buffer = memory.allocate(bytes)) {
      MemorySegment all = buffer.segment();
      MemoryProbe.write(all, 1); // touch every page before timing
      List<MemorySegment> slices = new ArrayList<>();
      long slice = (bytes / cores) & -Long.BYTES;
      for (int c = 0; c < cores; c++) {
        slices.add(all.asSlice(c * slice, slice));
      }
      java.util.function.ToLongFunction<MemorySegment> read = s -> {
        long sum = 0;
        for (int p = 0; p < passes; p++) {
          sum += MemoryProbe.read(s);
        }
        return sum;
      };
      java.util.function.ToLongFunction<MemorySegment> write = s -> {
        for (int p = 0; p < passes; p++) {
          MemoryProbe.write(s, p);
        }
        return 0;
      };
      java.util.function.ToLongFunction<MemorySegment> copy = s -> {
        for (int p = 0; p < passes; p++) {
          MemoryProbe.copy(s);
        }
        return 0;
      };
      int repeats = settings.repeats();
      long oneCore = bytes * passes;
      long allCores = slice * cores * passes;
      return new MachineProfile.Bandwidth(
          gigabytesPerSecond(oneCore, minimumNanos(repeats, () -> read.applyAsLong(all))),
          gigabytesPerSecond(oneCore, minimumNanos(repeats, () -> write.applyAsLong(all))),
          gigabytesPerSecond(oneCore, minimumNanos(repeats, () -> copy.applyAsLong(all))),
          gigabytesPerSecond(allCores, minimumNanos(repeats, () -> onAllCores(slices, read))),
          gigabytesPerSecond(allCores, minimumNanos(repeats, () -> onAllCores(slices, write))),
          gigabytesPerSecond(allCores, minimumNanos(repeats, () -> onAllCores(slices, copy))));
    }
  }

  /** Runs {@code kernel} on every slice at once, one thread each; returns a checksum. */
  private static long onAllCores(List<MemorySegment> slices, java.util.function.ToLongFunction<MemorySegment> kernel) {
    CountDownLatch start = new CountDownLatch(1);
    long[] sums = new long[slices.size()];
    List<Thread> threads = new ArrayList<>();
    for (int i = 0; i < slices.size(); i++) {
      int index = i;
      threads.add(Thread.ofPlatform().daemon().start(() -> {
        try {
          start.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
        sums[index] = kernel.applyAsLong(slices.get(index));
      }));
    }
    start.countDown();
    long checksum = 0;
    for (int i = 0; i < threads.size(); i++) {
      try {
        threads.get(i).join();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while measuring bandwidth", e);
      }
      checksum += sums[i];
    }
    return checksum;
  }

  /** The least wall time of {@code repeats} runs, in nanoseconds; the result feeds a sink so it is not optimized away. */
  private static double minimumNanos(int repeats, LongSupplier run) {
    long best = Long.MAX_VALUE;
    for (int r = 0; r < Math.max(1, repeats); r++) {
      long t0 = System.nanoTime();
      SINK = SINK ^ run.getAsLong();
      best = Math.min(best, System.nanoTime() - t0);
    }
    return Math.max(1, best);
  }

  /** The least of {@code repeats} results of {@code timedRun}, which times itself to leave its set-up out. */
  private static double leastOfTimedRuns(int repeats, LongSupplier timedRun) {
    long best = Long.MAX_VALUE;
    for (int r = 0; r < Math.max(1, repeats); r++) {
      best = Math.min(best, timedRun.getAsLong());
    }
    return Math.max(1, best);
  }

  private static volatile long SINK;

  private static double gigabytesPerSecond(long bytes, double nanos) {
    return bytes / nanos;
  }

  /** The CPU model as the operating system names it ({@code /proc/cpuinfo}), else the JVM's architecture. */
  public static String cpuName() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
        if (line.startsWith("model name")) {
          return line.substring(line.indexOf(':') + 1).strip();
        }
      }
    } catch (IOException | RuntimeException unavailable) {
      // fall through to the JVM's view
    }
    return System.getProperty("os.arch", "unknown");
  }

  private static long pageSize() {
    return HugePages.basePageBytes();
  }
}
