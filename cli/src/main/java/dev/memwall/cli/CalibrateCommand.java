package dev.memwall.cli;

import dev.memwall.cli.report.CalibrationCharts;
import dev.memwall.hw.HardwareCounters;
import dev.memwall.core.machine.Calibrator;
import dev.memwall.core.machine.MachineProfile;
import dev.memwall.core.machine.MemoryProbe;
import dev.memwall.core.machine.ScanCostModels;
import dev.memwall.core.memory.EngineMemory;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code memwall calibrate}: measures this machine's caches, miss latencies and bandwidth once
 * and keeps the {@link MachineProfile} in the cache directory; later runs print the stored profile
 * until {@code --refresh}. A missing, corrupt or old-version profile is measured anew.
 */
@Command(name = "calibrate", mixinStandardHelpOptions = true,
    description = "Measure this machine's cache latencies, T1/Tnext and bandwidth (kept until --refresh).")
final class CalibrateCommand implements Callable<Integer> {
  @Spec picocli.CommandLine.Model.CommandSpec spec;

  @Option(names = "--refresh", description = "Measure again even if a profile is stored.")
  boolean refresh;

  @Option(names = "--quick", description = "A short measurement (32 MiB working sets) for smoke runs.")
  boolean quick;

  @Mixin CacheDirectoryOption cacheDirectory;

  @Option(names = "--charts", paramLabel = "DIR",
      description = "Where to draw the latency, TLB and scan charts as PNG (default: <cache directory>/calibration).")
  Path charts;

  @Override
  public Integer call() throws IOException {
    PrintWriter out = spec.commandLine().getOut();
    Path dir = cacheDirectory.directory();
    Optional<MachineProfile> stored = refresh ? Optional.empty() : MachineProfile.load(dir);
    MachineProfile profile;
    if (stored.isPresent()) {
      profile = stored.get();
      out.println("machine profile: " + dir.resolve(MachineProfile.FILE_NAME) + " (--refresh measures again)");
    } else {
      try (EngineMemory memory = EngineMemory.create("calibrate")) {
        profile = Calibrator.measure(memory, quick ? Calibrator.Settings.quick() : Calibrator.Settings.full(),
            line -> {
              spec.commandLine().getErr().println("calibrating: " + line);
              spec.commandLine().getErr().flush();
            });
      }
      profile.save(dir);
      out.println("machine profile measured and saved to " + dir.resolve(MachineProfile.FILE_NAME));
    }
    print(profile, out);
    Path chartDir = charts != null ? charts : dir.resolve("calibration");
    out.flush();
    List<Path> written = CalibrationCharts.write(profile, chartDir, spec.commandLine().getErr()::println);
    out.println("charts: " + String.join(", ", written.stream().map(Path::toString).toList()));
    out.flush();
    return 0;
  }

  static void print(MachineProfile p, PrintWriter out) {
    out.printf(Locale.ROOT, "%s, %d cores, %d-byte pages%n", p.cpu(), p.cores(), p.pageBytes());
    out.println(HardwareCounters.availability().describe());
    out.printf(Locale.ROOT, "%-6s %11s %14s %6s %9s %12s%n", "cache", "sysfs size", "measured size", "line",
        "measured", "hit latency");
    for (MachineProfile.MeasuredCache c : p.caches()) {
      out.printf(Locale.ROOT, "L%-5d %11s %14s %5dB %9s %9.1f ns%n", c.cache().level(), size(c.cache().sizeBytes()),
          c.effectiveBytes() > 0 ? ">= " + size(c.effectiveBytes()) : "?", c.cache().lineBytes(),
          c.measuredLineBytes() > 0 ? c.measuredLineBytes() + "B" : "?", c.hitLatencyNanos());
    }
    out.printf(Locale.ROOT, "T1, a miss to memory (dependent chase)   %7.1f ns%n", p.missLatencyNanos());
    out.printf(Locale.ROOT, "Tnext, a miss among %2d in flight         %7.1f ns%n", MemoryProbe.CHAINS, p.pipelinedMissNanos());
    out.printf(Locale.ROOT, "memory-level parallelism (T1 / Tnext)    %7.1f%n", p.memoryLevelParallelism());
    out.printf(Locale.ROOT, "a mispredicted branch (random vs sorted) %7.1f ns%n", p.branchMissNanos());
    MachineProfile.Tlb tlb = p.tlb();
    out.printf(Locale.ROOT, "TLB: %d pages (%s) at no cost; beyond, a TLB miss adds %.1f ns per access%s%n",
        tlb.entries(), size(tlb.entries() * p.pageBytes()), tlb.missNanos(),
        Double.isNaN(tlb.hugePageMissNanos()) ? " (no huge pages to compare with)" : " (measured against huge pages)");
    StringBuilder pages = new StringBuilder("  pages: ns with 4 KiB pages / huge pages / contiguous lines:");
    for (MachineProfile.TlbPoint point : tlb.curve()) {
      pages.append(String.format(Locale.ROOT, "  %d: %.1f/%.1f/%.1f", point.pages(), point.pageNanos(),
          point.hugePageNanos(), point.contiguousNanos()));
    }
    out.println(pages);
    MachineProfile.Bandwidth b = p.bandwidth();
    out.printf(Locale.ROOT, "bandwidth GB/s     read   write    copy%n");
    out.printf(Locale.ROOT, "  1 core        %7.1f %7.1f %7.1f%n", b.readOneCore(), b.writeOneCore(), b.copyOneCore());
    out.printf(Locale.ROOT, "  %d cores       %7.1f %7.1f %7.1f%n", p.cores(), b.readAllCores(), b.writeAllCores(),
        b.copyAllCores());
    out.println("latency curve (working set: ns per dependent access)");
    StringBuilder line = new StringBuilder();
    for (MachineProfile.LatencyPoint point : p.curve()) {
      line.append(String.format(Locale.ROOT, "  %s: %.1f", size(point.workingSetBytes()), point.nanosPerAccess()));
    }
    out.println(line.toString().strip());
    if (!p.strideScan().isEmpty()) {
      printScan(p, out);
    }
  }

  /** The scan of seed 000 beside the seed's models, fitted. */
  private static void printScan(MachineProfile p, PrintWriter out) {
    ScanCostModels models = ScanCostModels.fit(p);
    out.println("scan of seed 000, ns per byte read (stride: measured, T_CPU in L1 / model 1 / 2 / 3 / ideal)");
    for (MachineProfile.StridePoint point : p.strideScan()) {
      out.printf(Locale.ROOT, "  %3d B: %6.2f, %4.2f / %7.2f / %6.2f / %6.2f / %6.2f%n", point.strideBytes(),
          point.nanosPerIteration(), point.cpuNanosPerIteration(),
          models.predict(ScanCostModels.Model.MODEL_1, point.strideBytes()),
          models.predict(ScanCostModels.Model.MODEL_2, point.strideBytes()),
          models.predict(ScanCostModels.Model.MODEL_3, point.strideBytes()),
          models.predict(ScanCostModels.Model.IDEAL, point.strideBytes()));
    }
    for (ScanCostModels.Fit fit : models.fits()) {
      out.printf(Locale.ROOT, "  %-7s q = %4.1f, l_min = %.2f ns: typically off by a factor %.2f%n",
          fit.model().label(), fit.concurrency(), fit.lineTransferNanos(), fit.errorFactor());
    }
  }

  private static String size(long bytes) {
    if (bytes >= 1L << 20 && bytes % (1L << 20) == 0) {
      return (bytes >> 20) + " MiB";
    }
    return bytes % 1024 == 0 ? (bytes >> 10) + " KiB" : bytes + " B";
  }
}
