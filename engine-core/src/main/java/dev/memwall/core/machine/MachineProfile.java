package dev.memwall.core.machine;

import dev.memwall.core.memory.EngineMemory;
import java.io.IOException;
import java.io.Reader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Properties;

/**
 * What the calibrator measured on this machine: the constants every cost model reads instead of
 * hard-coding them.
 *
 * @param cpu the CPU model as the OS names it
 * @param cores available processors
 * @param caches the data caches (sizes and lines from sysfs) with their measured hit latencies
 * @param missLatencyNanos T1: a full miss to memory, dependent pointer chase, minimum of runs
 * @param pipelinedMissNanos Tnext: the time per miss while many independent misses are in flight (a
 *     round of {@link MemoryProbe#CHAINS} interleaved chases over that many)
 * @param memoryLevelParallelism misses the core overlaps: T1 / Tnext
 * @param curve latency versus working set, the measurement behind the numbers above
 * @param bandwidth sequential read, write and copy bandwidth, one and all cores
 * @param pageBytes the base page size
 * @param tlb what one access per page costs once the pages outnumber the TLB
 * @param branchMissNanos what one mispredicted branch costs: a filter's data-dependent branch over
 *     random data minus the same over sorted data, per expected misprediction (NaN when unmeasured)
 * @param strideScan the simple scan of seed 000 (time per iteration versus stride), which
 *     {@link ScanCostModels} explains with the seed's three cost models; empty when not measured
 */
public record MachineProfile(String cpu, int cores, List<MeasuredCache> caches, double missLatencyNanos,
    double pipelinedMissNanos, double memoryLevelParallelism, List<LatencyPoint> curve, Bandwidth bandwidth,
    long pageBytes, Tlb tlb, double branchMissNanos, List<StridePoint> strideScan) {

  /** Version of the file format; a file of another version is measured anew, not trusted. */
  public static final int FORMAT_VERSION = 5;
  /** The profile's file name in the cache directory. */
  public static final String FILE_NAME = "machine-profile.properties";

  public MachineProfile {
    caches = List.copyOf(caches);
    curve = List.copyOf(curve);
    strideScan = List.copyOf(strideScan);
  }

  /**
   * A profile without a measured branch-misprediction penalty ({@link #branchMissNanos()} NaN) or
   * the stride experiment (which only {@link ScanCostModels} reads): what synthetic profiles in
   * tests and cost-model studies need.
   */
  public MachineProfile(String cpu, int cores, List<MeasuredCache> caches, double missLatencyNanos,
      double pipelinedMissNanos, double memoryLevelParallelism, List<LatencyPoint> curve, Bandwidth bandwidth,
      long pageBytes, Tlb tlb) {
    this(cpu, cores, caches, missLatencyNanos, pipelinedMissNanos, memoryLevelParallelism, curve, bandwidth,
        pageBytes, tlb, Double.NaN, List.of());
  }

  /**
   * A cache level as sysfs describes it, with what the latency curve says about it.
   *
   * @param effectiveBytes the largest working set measured at this level's latency: on a shared or
   *     virtualized machine it can be well below the size sysfs reports (0 when unknown)
   * @param hitLatencyNanos the latency of a dependent access that hits this level (NaN when unknown)
   * @param measuredLineBytes the line size the latency-versus-stride curve shows for this level,
   *     to cross-check the one sysfs reports; 0 where the curve shows no clear step (prefetchers
   *     that fetch neighbouring lines hide it, typically for the last level)
   */
  public record MeasuredCache(CacheLevel cache, long effectiveBytes, double hitLatencyNanos, int measuredLineBytes) {
    /** A level whose line size was not measured. */
    public MeasuredCache(CacheLevel cache, long effectiveBytes, double hitLatencyNanos) {
      this(cache, effectiveBytes, hitLatencyNanos, 0);
    }

    /** The bytes a structure can count on at this level: the measured effective size where known, else the size. */
    public long usableBytes() {
      return effectiveBytes > 0 ? effectiveBytes : cache.sizeBytes();
    }

    MeasuredCache withMeasuredLineBytes(int lineBytes) {
      return new MeasuredCache(cache, effectiveBytes, hitLatencyNanos, lineBytes);
    }
  }

  /**
   * One stride of the scan experiment.
   *
   * @param strideBytes the distance between two bytes read
   * @param nanosPerIteration per byte read, scanning memory that starts out in no cache
   * @param cpuNanosPerIteration the same loop over a working set that stays in L1: T_CPU
   */
  public record StridePoint(int strideBytes, double nanosPerIteration, double cpuNanosPerIteration) {}

  /** Nanoseconds per dependent access with a working set of {@code workingSetBytes}. */
  public record LatencyPoint(long workingSetBytes, double nanosPerAccess) {}

  /**
   * The TLB as a chase with one line per page sees it.
   *
   * @param entries the most pages (of {@code pageBytes}) touched round-robin at no extra cost; with a
   *     second-level TLB, first-level misses that hit it cost next to nothing, so on such machines
   *     this is the second level's reach
   * @param missNanos the extra latency per access when every access misses the TLB with 4 KiB
   *     pages: the one-line-per-page chase minus the same chase on huge pages (minus contiguous
   *     lines where huge pages are unavailable, which then also counts cache-set effects)
   * @param hugePageMissNanos what the one-line-per-page layout still costs on huge pages over
   *     contiguous lines: cache-set effects of the layout, not the TLB (NaN without huge pages)
   * @param curve the measurement: latency with one line per page, on huge pages, and of as many
   *     contiguous lines (the baseline without TLB misses)
   */
  public record Tlb(long entries, double missNanos, double hugePageMissNanos, List<TlbPoint> curve) {
    public Tlb {
      curve = List.copyOf(curve);
    }
  }

  /** Nanoseconds per dependent access touching {@code pages} pages, one line each. */
  public record TlbPoint(int pages, double pageNanos, double hugePageNanos, double contiguousNanos) {}

  /** Sequential bandwidths in GB/s (10^9 bytes per second); copy counts the bytes read plus those written. */
  public record Bandwidth(double readOneCore, double writeOneCore, double copyOneCore, double readAllCores,
      double writeAllCores, double copyAllCores) {}

  /**
   * The size of the largest data cache that still behaves as a cache, that is whose measured hit
   * latency is under half the full miss latency T1 (on a shared VM the last level can measure as slow
   * as memory; a level whose latency was not measured does not count, unless T1 itself is unknown):
   * its {@linkplain MeasuredCache#usableBytes usable size}; the first level's if none qualifies, 32
   * KiB if the profile has no caches. Structures that must stay cache-resident (a join's Bloom filter,
   * a cluster's hash table) are sized against it.
   */
  public long fastCacheBytes() {
    List<MeasuredCache> fast = fastDataCaches();
    return fast.isEmpty() ? 32 << 10 : fast.getLast().usableBytes();
  }

  /**
   * The data caches that behave as caches, smallest level first: the first level always, and every
   * later one whose measured hit latency is under half the full miss latency T1 (any measured one
   * when T1 is unknown). Empty only when the profile has no data caches. {@link #fastCacheBytes} is
   * the last one's size; a structure sized to the smallest level that holds it reads this list.
   */
  public List<MeasuredCache> fastDataCaches() {
    List<MeasuredCache> data = caches.stream().filter(c -> c.cache().holdsData())
        .sorted(Comparator.comparingInt(c -> c.cache().level())).toList();
    List<MeasuredCache> fast = new ArrayList<>();
    for (MeasuredCache c : data) {
      boolean behaves = !Double.isFinite(missLatencyNanos)
          || Double.isFinite(c.hitLatencyNanos()) && c.hitLatencyNanos() < missLatencyNanos / 2;
      if (behaves || c == data.getFirst()) {
        fast.add(c);
      }
    }
    return List.copyOf(fast);
  }

  /**
   * The system property naming a calibrated profile for cost models that were given none: a file
   * {@link #save} wrote, or the directory holding its {@value #FILE_NAME}.
   */
  public static final String PROPERTY = "memwall.machine.profile";

  /**
   * The profile for cost models that were given none: the one the system property {@value #PROPERTY}
   * names, else {@link #conservative()}. Nothing is measured and nothing is written: calibration is an
   * explicit step ({@link #loadOrCalibrate}, {@code ./memwall calibrate}). The file is read again only
   * when the property changes.
   *
   * @throws IllegalStateException if the property names no readable profile of this format version
   *     (a setting that silently fell back would hide the mistake)
   */
  public static MachineProfile current() {
    String setting = System.getProperty(PROPERTY);
    Current known = current;
    if (known == null || !Objects.equals(known.setting(), setting)) {
      known = new Current(setting, fromProperty(setting));
      current = known;
    }
    return known.profile();
  }

  /** The profile {@link #current()} read for a value of the property. */
  private record Current(String setting, MachineProfile profile) {}

  private static volatile Current current;

  /** The profile {@code setting} names ({@link #PROPERTY}'s value), or the conservative one when it is null or blank. */
  static MachineProfile fromProperty(String setting) {
    if (setting == null || setting.isBlank()) {
      return conservative();
    }
    Path path = Path.of(setting.strip());
    Path dir = Files.isDirectory(path) ? path : path.getParent() == null ? Path.of(".") : path.getParent();
    Path file = Files.isDirectory(path) ? path.resolve(FILE_NAME) : path;
    return read(file).orElseThrow(() -> new IllegalStateException(PROPERTY + "=" + setting
        + " names no readable machine profile of format version " + FORMAT_VERSION + " (expected " + file
        + "; ./memwall calibrate --refresh writes one into " + dir + ")"));
  }

  /**
   * Cache sizes as the operating system reports them, with fixed latencies and bandwidths of an
   * ordinary server core: what cost models use when nobody calibrated this machine (see
   * {@link ConservativeProfile}). Reads sysfs; measures nothing.
   */
  public static MachineProfile conservative() {
    return ConservativeProfile.of(SysfsTopology.DEFAULT_ROOT);
  }

  /**
   * The profile stored in {@code dir}, or, when there is none (or it is corrupt or of another
   * version), a quick calibration (a few seconds, {@link Calibrator.Settings#quick()}) stored there
   * for next time when the directory is writable. For tools that calibrate on purpose (the command
   * line, the benchmarks); a library call never does this implicitly.
   */
  public static MachineProfile loadOrCalibrate(Path dir) {
    return load(dir).orElseGet(() -> {
      MachineProfile measured;
      try (EngineMemory memory = EngineMemory.create("machine profile")) {
        measured = Calibrator.measure(memory, Calibrator.Settings.quick(), phase -> { });
      }
      try {
        measured.save(dir);
      } catch (IOException unwritable) {
        // Measured again by the next process; this one uses what it measured.
      }
      return measured;
    });
  }

  /** Writes the profile to {@code dir}/{@value #FILE_NAME} atomically. */
  public void save(Path dir) throws IOException {
    Properties p = new Properties();
    p.setProperty("format.version", Integer.toString(FORMAT_VERSION));
    p.setProperty("cpu", cpu);
    p.setProperty("cores", Integer.toString(cores));
    p.setProperty("page.bytes", Long.toString(pageBytes));
    p.setProperty("t1.nanos", Double.toString(missLatencyNanos));
    p.setProperty("tnext.nanos", Double.toString(pipelinedMissNanos));
    p.setProperty("mlp", Double.toString(memoryLevelParallelism));
    p.setProperty("branch.miss.nanos", Double.toString(branchMissNanos));
    p.setProperty("caches", Integer.toString(caches.size()));
    for (int i = 0; i < caches.size(); i++) {
      CacheLevel c = caches.get(i).cache();
      p.setProperty("cache." + i, c.level() + "," + c.type() + "," + c.sizeBytes() + "," + c.lineBytes() + ","
          + c.ways() + "," + caches.get(i).effectiveBytes() + "," + caches.get(i).hitLatencyNanos() + ","
          + caches.get(i).measuredLineBytes());
    }
    p.setProperty("curve", Integer.toString(curve.size()));
    for (int i = 0; i < curve.size(); i++) {
      p.setProperty("curve." + i, curve.get(i).workingSetBytes() + "," + curve.get(i).nanosPerAccess());
    }
    p.setProperty("tlb", tlb.entries() + "," + tlb.missNanos() + "," + tlb.hugePageMissNanos());
    p.setProperty("tlb.curve", Integer.toString(tlb.curve().size()));
    for (int i = 0; i < tlb.curve().size(); i++) {
      TlbPoint t = tlb.curve().get(i);
      p.setProperty("tlb.curve." + i, t.pages() + "," + t.pageNanos() + "," + t.hugePageNanos() + "," + t.contiguousNanos());
    }
    p.setProperty("stride", Integer.toString(strideScan.size()));
    for (int i = 0; i < strideScan.size(); i++) {
      StridePoint point = strideScan.get(i);
      p.setProperty("stride." + i, point.strideBytes() + "," + point.nanosPerIteration() + ","
          + point.cpuNanosPerIteration());
    }
    p.setProperty("bandwidth", bandwidth.readOneCore() + "," + bandwidth.writeOneCore() + "," + bandwidth.copyOneCore()
        + "," + bandwidth.readAllCores() + "," + bandwidth.writeAllCores() + "," + bandwidth.copyAllCores());
    Files.createDirectories(dir);
    Path temporary = dir.resolve(FILE_NAME + ".tmp");
    try (Writer out = Files.newBufferedWriter(temporary, StandardCharsets.UTF_8)) {
      p.store(out, "memwall machine profile: ./memwall calibrate --refresh measures it again");
    }
    Files.move(temporary, dir.resolve(FILE_NAME), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
  }

  /**
   * The profile saved in {@code dir}, if there is a readable one of this format version. A
   * missing, corrupt or old-version file gives empty: the caller measures again.
   */
  public static Optional<MachineProfile> load(Path dir) {
    return read(dir.resolve(FILE_NAME));
  }

  private static Optional<MachineProfile> read(Path file) {
    if (!Files.isRegularFile(file)) {
      return Optional.empty();
    }
    Properties p = new Properties();
    try (Reader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      p.load(in);
      if (!Integer.toString(FORMAT_VERSION).equals(p.getProperty("format.version"))) {
        return Optional.empty();
      }
      List<MeasuredCache> caches = new ArrayList<>();
      for (int i = 0; i < Integer.parseInt(required(p, "caches")); i++) {
        String[] f = required(p, "cache." + i).split(",");
        caches.add(new MeasuredCache(new CacheLevel(Integer.parseInt(f[0]), f[1], Long.parseLong(f[2]),
            Integer.parseInt(f[3]), Integer.parseInt(f[4])), Long.parseLong(f[5]), Double.parseDouble(f[6]),
            Integer.parseInt(f[7])));
      }
      List<LatencyPoint> curve = new ArrayList<>();
      for (int i = 0; i < Integer.parseInt(required(p, "curve")); i++) {
        String[] f = required(p, "curve." + i).split(",");
        curve.add(new LatencyPoint(Long.parseLong(f[0]), Double.parseDouble(f[1])));
      }
      String[] t = required(p, "tlb").split(",");
      List<TlbPoint> tlbCurve = new ArrayList<>();
      for (int i = 0; i < Integer.parseInt(required(p, "tlb.curve")); i++) {
        String[] f = required(p, "tlb.curve." + i).split(",");
        tlbCurve.add(new TlbPoint(Integer.parseInt(f[0]), Double.parseDouble(f[1]), Double.parseDouble(f[2]),
            Double.parseDouble(f[3])));
      }
      Tlb tlb = new Tlb(Long.parseLong(t[0]), Double.parseDouble(t[1]), Double.parseDouble(t[2]), tlbCurve);
      List<StridePoint> strideScan = new ArrayList<>();
      for (int i = 0; i < Integer.parseInt(required(p, "stride")); i++) {
        String[] f = required(p, "stride." + i).split(",");
        strideScan.add(new StridePoint(Integer.parseInt(f[0]), Double.parseDouble(f[1]), Double.parseDouble(f[2])));
      }
      String[] b = required(p, "bandwidth").split(",");
      Bandwidth bandwidth = new Bandwidth(Double.parseDouble(b[0]), Double.parseDouble(b[1]), Double.parseDouble(b[2]),
          Double.parseDouble(b[3]), Double.parseDouble(b[4]), Double.parseDouble(b[5]));
      return Optional.of(new MachineProfile(required(p, "cpu"), Integer.parseInt(required(p, "cores")), caches,
          Double.parseDouble(required(p, "t1.nanos")), Double.parseDouble(required(p, "tnext.nanos")),
          Double.parseDouble(required(p, "mlp")), curve, bandwidth, Long.parseLong(required(p, "page.bytes")), tlb,
          Double.parseDouble(required(p, "branch.miss.nanos")), strideScan));
    } catch (IOException | RuntimeException corrupt) {
      return Optional.empty();
    }
  }

  private static String required(Properties p, String key) {
    String value = p.getProperty(key);
    if (value == null) {
      throw new IllegalArgumentException("missing " + key);
    }
    return value;
  }
}
