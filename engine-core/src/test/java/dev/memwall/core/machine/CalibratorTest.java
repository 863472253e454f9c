package dev.memwall.core.machine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.LeakCheck;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

@ExtendWith(LeakCheck.class)
class CalibratorTest {
  @TempDir Path dir;

  /** A curve measured on the development VM: L1, L2, a small effective L3, memory; one noisy point at 16 KiB. */
  static final double[] MEASURED = {1.5, 1.3, 2.3, 1.8, 4.0, 3.9, 3.9, 4.5, 8.8, 14.1, 138.2, 145.4, 151.0, 163.8};

  @Test
  void kneesSplitTheCurveIntoLevelsAndIgnoreOneNoisyPoint() {
    List<Calibrator.Plateau> plateaus = Calibrator.plateaus(curve(MEASURED));
    assertEquals(List.of(32L << 10, 512L << 10, 2L << 20, 32L << 20),
        plateaus.stream().map(Calibrator.Plateau::largestWorkingSetBytes).toList());
    assertEquals(3.95, plateaus.get(1).nanos(), 1e-9); // median of 4.0, 3.9, 3.9, 4.5
    assertEquals(151.0 - 2.8, plateaus.get(3).nanos(), 1e-9); // median of 138.2, 145.4, 151.0, 163.8
  }

  @Test
  void sysfsLevelsPairWithPlateausOrFallBackToHalfTheirSize() {
    List<CacheLevel> caches = List.of(new CacheLevel(1, "Data", 48 << 10, 64, 12),
        new CacheLevel(2, "Unified", 1 << 20, 64, 16), new CacheLevel(3, "Unified", 32 << 20, 64, 16));
    List<MachineProfile.MeasuredCache> matched = Calibrator.matchLevels(caches, Calibrator.plateaus(curve(MEASURED)));
    assertEquals(2L << 20, matched.get(2).effectiveBytes(), "the VM's effective L3 is far below sysfs' 32 MiB");
    assertEquals(11.45, matched.get(2).hitLatencyNanos(), 1e-9);

    List<MachineProfile.MeasuredCache> fallback = Calibrator.matchLevels(caches.subList(0, 2),
        Calibrator.plateaus(curve(MEASURED)));
    assertEquals(0, fallback.get(0).effectiveBytes());
    assertEquals(1.65, fallback.get(0).hitLatencyNanos(), 1e-9, "24 KiB lies on the first plateau");
  }

  @Test
  void tNextIsTheTimePerMissWithAllChasesInFlight() {
    assertEquals(16, MemoryProbe.CHAINS);
    // the Xeon VM: 16 chases at 285 ns per round against T1 = 219 ns
    assertEquals(285 / 16.0, Calibrator.pipelinedMissNanos(219, 285), 1e-9);
    // every chase's miss overlapped with the others: still the round over the chases, not T1 minus a round
    assertEquals(200 / 16.0, Calibrator.pipelinedMissNanos(200, 200), 1e-9);
    // a disturbed round slower than 16 serial misses: an overlapped miss costs at most T1
    assertEquals(200, Calibrator.pipelinedMissNanos(200, 4000), 1e-9);
  }

  @Test
  void quickCalibrationIsSaneAndRoundTrips(EngineMemory memory) throws IOException {
    Calibrator.Settings tiny = new Calibrator.Settings(16L << 20, 8L << 20, 2, 1L << 15, 256);
    List<String> phases = new ArrayList<>();
    MachineProfile profile = Calibrator.measure(memory, tiny, phases::add);
    assertEquals(8, phases.size());
    List<MachineProfile.LatencyPoint> points = profile.curve();
    assertEquals(4L << 10, points.getFirst().workingSetBytes());
    assertEquals(16L << 20, points.getLast().workingSetBytes());
    assertTrue(points.getLast().nanosPerAccess() > points.getFirst().nanosPerAccess(),
        "a 16 MiB random chase cannot be as fast as a 4 KiB one: " + points);
    assertTrue(profile.pipelinedMissNanos() > 0 && profile.memoryLevelParallelism() > 0.25, profile.toString());
    assertTrue(profile.bandwidth().readOneCore() > 0.1 && profile.bandwidth().copyAllCores() > 0.1);
    assertTrue(profile.pageBytes() >= 4096);
    assertEquals(List.of(16, 32, 64, 128, 256), profile.tlb().curve().stream().map(MachineProfile.TlbPoint::pages).toList());
    assertTrue(profile.tlb().curve().stream().allMatch(t -> t.pageNanos() > 0 && t.contiguousNanos() > 0),
        profile.tlb().toString());

    for (MachineProfile.MeasuredCache cache : profile.caches()) {
      int line = cache.measuredLineBytes();
      assertTrue(line == 0 || (Integer.bitCount(line) == 1 && line >= 16 && line <= 256), cache.toString());
    }
    List<MachineProfile.StridePoint> scan = profile.strideScan();
    assertEquals(1, scan.getFirst().strideBytes());
    assertEquals(256, scan.getLast().strideBytes());
    assertTrue(scan.getLast().nanosPerIteration() > scan.getFirst().nanosPerIteration(),
        "a line per byte read from memory cannot be as cheap as a byte of a line: " + scan);
    assertTrue(scan.stream().allMatch(p -> p.cpuNanosPerIteration() > 0), scan.toString());
    // a mispredicted branch costs 10-30 cycles: between about 2 and 15 ns on any current CPU, VMs included
    assertTrue(profile.branchMissNanos() > 0.5 && profile.branchMissNanos() < 50, "branch miss "
        + profile.branchMissNanos() + " ns");

    profile.save(dir);
    assertEquals(profile, MachineProfile.load(dir).orElseThrow());
  }

  @Test
  void lineSizeIsTheWidestStepBetweenDistances() {
    // Pairs of loads 8..256 bytes apart, recorded on this machine's L1 (data in L2): the step is at 64.
    assertEquals(64, Calibrator.lineStep(new double[] {8.4, 9.4, 9.6, 13.9, 12.3, 16.7}, 8, 1.2));
    assertEquals(128, Calibrator.lineStep(new double[] {5, 5.2, 5.1, 5.3, 9.8, 10.1}, 8, 1.2));
    assertEquals(0, Calibrator.lineStep(new double[] {310, 313, 332, 315, 344, 315}, 8, 1.2),
        "prefetched neighbours leave no step to read");
    assertEquals(0, Calibrator.lineStep(new double[] {16.3, 8.5, 8.1, 11.6, 11.3, 11.6}, 8, 1.2),
        "a slow first point hides the step rather than inventing one");
  }

  @Test
  void corruptOrOldProfilesAreNotTrusted() throws IOException {
    Path file = dir.resolve(MachineProfile.FILE_NAME);
    assertTrue(MachineProfile.load(dir).isEmpty());
    Files.writeString(file, "format.version=1\ncpu=x\n");
    assertTrue(MachineProfile.load(dir).isEmpty(), "another format version is measured anew");
    profile(Double.NaN).save(dir);
    assertTrue(MachineProfile.load(dir).isPresent());
    Files.writeString(file, Files.readString(file).replace("format.version=" + MachineProfile.FORMAT_VERSION,
        "format.version=2").replaceAll("branch.miss.nanos=.*\n", ""));
    assertTrue(MachineProfile.load(dir).isEmpty(), "a version-2 profile (no branch-miss penalty) is measured anew");
    Files.writeString(file, "format.version=1\ncpu=x\ncaches=2\n");
    assertTrue(MachineProfile.load(dir).isEmpty(), "a truncated profile is measured anew");
    Files.write(file, new byte[] {(byte) 0xff, 0, 1, 2});
    assertTrue(MachineProfile.load(dir).isEmpty(), "garbage is measured anew");
  }

  @Test
  void theBranchPenaltyRoundTripsAndOldConstructorsLeaveItUnmeasured() throws IOException {
    for (double branch : new double[] {6.25, Double.NaN}) {
      profile(branch).save(dir);
      assertEquals(profile(branch), MachineProfile.load(dir).orElseThrow());
    }
    MachineProfile p = profile(1);
    assertTrue(Double.isNaN(new MachineProfile(p.cpu(), p.cores(), p.caches(), p.missLatencyNanos(),
        p.pipelinedMissNanos(), p.memoryLevelParallelism(), p.curve(), p.bandwidth(), p.pageBytes(), p.tlb())
        .branchMissNanos()));
  }

  private static MachineProfile profile(double branchMissNanos) {
    return new MachineProfile("AMD EPYC", 2, List.of(new MachineProfile.MeasuredCache(
        new CacheLevel(1, "Data", 32 << 10, 64, 8), 32 << 10, 1.3)), 200, 24, 8.3, curve(MEASURED),
        new MachineProfile.Bandwidth(25, 20, 30, 40, 30, 45), 4096,
        new MachineProfile.Tlb(4096, 10, Double.NaN, List.of()), branchMissNanos, List.of());
  }

  private static List<MachineProfile.LatencyPoint> curve(double[] nanos) {
    List<MachineProfile.LatencyPoint> points = new ArrayList<>();
    for (int i = 0; i < nanos.length; i++) {
      points.add(new MachineProfile.LatencyPoint(4L << 10 << i, nanos[i]));
    }
    return points;
  }
}
