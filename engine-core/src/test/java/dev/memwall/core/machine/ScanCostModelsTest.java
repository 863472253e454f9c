package dev.memwall.core.machine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.machine.ScanCostModels.Level;
import dev.memwall.core.machine.ScanCostModels.Model;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.DoubleRange;
import org.junit.jupiter.api.Test;

class ScanCostModelsTest {
  private static final int[] STRIDES = {1, 2, 4, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256};
  /** The seed's Origin2000 (R10000): L1 lines of 32 bytes, L2 lines of 128, l_L2 = 24 ns, l_Mem = 400 ns. */
  private static final List<Level> ORIGIN = List.of(new Level(32, 24, false), new Level(128, 400, true));
  private static final double T_CPU = 24;

  @Test
  void overlapInterpolatesBetweenSumAndMaximum() {
    assertEquals(7, ScanCostModels.overlap(0, 3, 4));
    assertEquals(4, ScanCostModels.overlap(1, 3, 4));
    assertEquals(5.5, ScanCostModels.overlap(0.5, 3, 4));
  }

  @Test
  void missesAndOverlapDegreeFollowTheSeed() {
    assertEquals(0.25, ScanCostModels.misses(8, 32));
    assertEquals(1, ScanCostModels.misses(64, 32));
    // q = 4 on 32-byte lines: no overlap up to 8 bytes, full from 32, linear between.
    assertEquals(0, ScanCostModels.overlapDegree(8, 32, 4));
    assertEquals(0.5, ScanCostModels.overlapDegree(20, 32, 4), 1e-12);
    assertEquals(1, ScanCostModels.overlapDegree(32, 32, 4));
    assertEquals(1, ScanCostModels.overlapDegree(256, 128, 4));
  }

  @Test
  void modelsMatchAHandComputationOnTheSeedsMachine() {
    ScanCostModels models = ScanCostModels.of(measured(s -> 100.0), ORIGIN, 220);
    double q = 4;
    double lMin = 220;
    // Model 1, stride 16: 24 + 16/32 * 24 + 16/128 * 400.
    assertEquals(24 + 12 + 50, models.predict(Model.MODEL_1, 16, T_CPU, q, lMin), 1e-9);
    // Model 2, stride 16: o1 = (16 - 8) / 24 = 1/3, o2 = 0 (16 <= 128 / 4).
    double o1 = 1.0 / 3;
    double tl2 = 0.5 * (1 - o1 * (1 - 1 / q)) * 24;
    double tMem = 0.125 * 400;
    double expected = ScanCostModels.overlap(0, ScanCostModels.overlap(o1, T_CPU, tl2), tMem);
    assertEquals(expected, models.predict(Model.MODEL_2, 16, T_CPU, q, lMin), 1e-9);
    // Model 3 has o1 = 1 at every stride; at stride 256 both overlaps are full: max(24, 24 / 4, 220).
    assertEquals(ScanCostModels.overlap(0, Math.max(T_CPU, 0.5 * 24 / q), tMem),
        models.predict(Model.MODEL_3, 16, T_CPU, q, lMin), 1e-9);
    assertEquals(220, models.predict(Model.MODEL_3, 256, T_CPU, q, lMin), 1e-9);
    assertEquals(Math.max(T_CPU, Math.max(0.5 * 24 / q, 0.125 * 220)), models.predict(Model.IDEAL, 16, T_CPU, q, lMin),
        1e-9);
  }

  @Property(tries = 30)
  void fittingRecoversTheParametersThatGeneratedTheCurve(@ForAll @DoubleRange(min = 1.5, max = 16) double q,
      @ForAll @DoubleRange(min = 0.5, max = 2) double lMinShare) {
    double lMin = 220 * lMinShare;
    ScanCostModels generator = ScanCostModels.of(measured(s -> 1), ORIGIN, 220);
    List<MachineProfile.StridePoint> curve = measured(s -> generator.predict(Model.MODEL_2, s, T_CPU, q, lMin));
    ScanCostModels fitted = ScanCostModels.of(curve, ORIGIN, 220);
    ScanCostModels.Fit fit = fitted.fitOf(Model.MODEL_2);
    assertTrue(fit.errorFactor() < 1.05, fit.toString());
    for (int stride : STRIDES) {
      double truth = generator.predict(Model.MODEL_2, stride, T_CPU, q, lMin);
      assertEquals(truth, fitted.predict(Model.MODEL_2, stride), truth * 0.1, "stride " + stride + ": " + fit);
    }
    assertTrue(fitted.fitOf(Model.MODEL_1).errorFactor() >= fit.errorFactor(), "model 1 has nothing to fit");
  }

  @Test
  void aProfileWithoutTheScanIsRefused() {
    MachineProfile profile = new MachineProfile("cpu", 1, List.of(), 100, 10, 10, List.of(),
        new MachineProfile.Bandwidth(1, 1, 1, 1, 1, 1), 4096, new MachineProfile.Tlb(0, 0, 0, List.of()));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ScanCostModels.fit(profile));
    assertTrue(e.getMessage().contains("calibrate --refresh"), e.getMessage());
  }

  private static List<MachineProfile.StridePoint> measured(java.util.function.IntToDoubleFunction nanos) {
    List<MachineProfile.StridePoint> points = new ArrayList<>();
    for (int stride : STRIDES) {
      points.add(new MachineProfile.StridePoint(stride, nanos.applyAsDouble(stride), T_CPU));
    }
    return points;
  }
}
