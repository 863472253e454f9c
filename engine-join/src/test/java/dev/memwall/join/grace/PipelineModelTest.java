package dev.memwall.join.grace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.memwall.join.grace.PipelineModel.Resource;
import dev.memwall.join.grace.PipelineModel.Step;
import dev.memwall.join.grace.PipelineModel.SystemParameters;
import org.junit.jupiter.api.Test;

/**
 * Seed 004's sample application (section 2): 1 GB filtered by a lightweight operator (1
 * instruction per byte, keeps half) and a heavyweight one (5 instructions per byte, keeps 1%), on a
 * 1 GHz host, 50 MHz disk processors, a 200 MB/s bus, disks reading 20 MB/s and writing at 0.85 of
 * that, MB = 2^20. Table 3 lists the stage rates of its four placements, which the model must
 * reproduce to the printed digits.
 */
class PipelineModelTest {
  private static final double MB = 1 << 20;
  private static final double N = 1L << 30;

  private static SystemParameters system(int disks) {
    return new SystemParameters(1e9, 50e6, 200 * MB, 20 * MB, 0.85, disks);
  }

  /** Host-only, disk-only, heavy-on-host and heavy-on-disk: (w_disk, w_host, N_mid). */
  private static final Step HOST_ONLY = new Step(N, N, N / 200, 0, 3.5);
  private static final Step DISK_ONLY = new Step(N, N / 200, N / 200, 3.5, 0);
  private static final Step HEAVY_ON_HOST = new Step(N, N / 2, N / 200, 1, 5);
  private static final Step HEAVY_ON_DISK = new Step(N, N / 100, N / 200, 5, 1);

  @Test
  void reproducesTable3() {
    // Columns R_read, R_write, R_disk scale with d: checked at d = 1 (the printed coefficient) and d = 16.
    for (int d : new int[] {1, 16}) {
      row(HOST_ONLY, d, 19.9 * d, 0.1 * d, 199.0, 1.0, Double.POSITIVE_INFINITY, 1.36);
      row(DISK_ONLY, d, 19.9 * d, 0.1 * d, 100.0, 100.0, 0.07 * d, Double.POSITIVE_INFINITY);
      row(HEAVY_ON_HOST, d, 19.9 * d, 0.1 * d, 198.0, 2.0, 23.84 * d, 1.91);
      row(HEAVY_ON_DISK, d, 19.9 * d, 0.1 * d, 133.3, 66.7, 0.10 * d, 476.84);
    }
  }

  /** One row; the table prints the first four rates with one decimal, R_disk and R_host with two. */
  private static void row(Step step, int d, double read, double write, double up, double down, double disk,
      double host) {
    PipelineModel model = new PipelineModel(system(d), step);
    String row = step + " at d = " + d + ": ";
    assertPrinted(read, model.readRate() / MB, d, 1, row + "R_read");
    assertPrinted(write, model.writeRate() / MB, d, 1, row + "R_write");
    assertPrinted(up, model.upRate() / MB, 1, 1, row + "R_up");
    assertPrinted(down, model.downRate() / MB, 1, 1, row + "R_down");
    assertPrinted(disk, model.diskRate() / MB, d, 2, row + "R_disk");
    assertPrinted(host, model.hostRate() / MB, 1, 2, row + "R_host");
  }

  /** {@code actual} rounds to {@code printed}: per disk where the column scales with d, to {@code decimals}. */
  private static void assertPrinted(double printed, double actual, int d, int decimals, String what) {
    if (Double.isInfinite(printed)) {
      assertEquals(printed, actual, what);
    } else {
      assertEquals(printed / d, actual / d, 0.5 * Math.pow(10, -decimals) + 1e-9, what);
    }
  }

  @Test
  void responseTimeIsTheSlowestResource() {
    // Host-only on one disk: reading 1 GiB at 20 MiB/s and writing 5 MiB at 17 MiB/s bound the step.
    PipelineModel oneDisk = new PipelineModel(system(1), HOST_ONLY);
    assertEquals(Resource.DISKS, oneDisk.bottleneck().resource());
    assertEquals(N / (20 * MB) + (N / 200) / (0.85 * 20 * MB), oneDisk.responseSeconds(), 1e-9);
    // From about 10 disks on the bus bounds it: 1.005 GiB at 200 MiB/s.
    PipelineModel manyDisks = new PipelineModel(system(256), HOST_ONLY);
    assertEquals(Resource.BUS, manyDisks.bottleneck().resource());
    assertEquals((N + N / 200) / (200 * MB), manyDisks.responseSeconds(), 1e-9);
    assertEquals(Resource.DISKS, new PipelineModel(system(9), HOST_ONLY).bottleneck().resource());
    assertEquals(Resource.BUS, new PipelineModel(system(11), HOST_ONLY).bottleneck().resource());
    // Disk-only with 256 disks: 256 x 50 MHz processors at 3.5 instructions per byte.
    assertEquals(Resource.DISK_PROCESSORS, new PipelineModel(system(256), DISK_ONLY).bottleneck().resource());
  }

  @Test
  void balancedShareAndIterationsFollowEquations8And9() {
    // 20 disks of 50 MHz against a 1 GHz host: rho / (1 - rho) = 1, so half the work goes to the disks.
    assertEquals(0.5, PipelineModel.balancedShare(system(20)), 1e-12);
    assertEquals(1.0 / 11, PipelineModel.balancedShare(system(2)), 1e-12);
    // GRACE alone (rho = 0): k = ceil(1.2 x 1000 MB / 256 MB) = 5.
    assertEquals(5, PipelineModel.iterations(1000 * MB, 1.2, 0, 1, 0, 256 * MB));
    // Half on 4 disks of 32 MB: max(0.5 x 1.2 x 1000 / 128, 0.5 x 1.2 x 1000 / 256) = 4.69 -> 5.
    assertEquals(5, PipelineModel.iterations(1000 * MB, 1.2, 0.5, 4, 32 * MB, 256 * MB));
    assertEquals(1, PipelineModel.iterations(1, 1.2, 0, 1, 0, 256 * MB), "at least one iteration");
  }

  @Test
  void badParametersAreRefused() {
    assertThrows(IllegalArgumentException.class, () -> new SystemParameters(0, 1, 1, 1, 1, 1));
    assertThrows(IllegalArgumentException.class, () -> new SystemParameters(1, 1, 1, 1, 1, 0));
    assertThrows(IllegalArgumentException.class, () -> new Step(0, 0, 0, 0, 0));
    assertThrows(IllegalArgumentException.class, () -> new Step(1, -1, 0, 0, 0));
    assertThrows(IllegalArgumentException.class, () -> PipelineModel.iterations(1, 0.9, 0, 1, 0, 1));
    assertThrows(IllegalArgumentException.class, () -> PipelineModel.iterations(1, 1.2, 1.5, 1, 1, 1));
  }
}
