package dev.memwall.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.memwall.core.expr.Chunk;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.LeakCheck;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The benchmark's filters keep exactly the rows a plain loop over the generated values keeps. */
@ExtendWith(LeakCheck.class)
class FilterKernelBenchmarkTest {
  @ParameterizedTest
  @CsvSource({"1, DENSE", "50, DENSE", "99, DENSE", "1, HALF", "50, HALF", "99, HALF"})
  void keepsWhatAPlainLoopKeeps(int passPercent, FilterKernelBenchmark.Input input, EngineMemory unused) {
    int rows = 3 * Chunk.CAPACITY + 17; // a partial last chunk, and an odd count of rows in it
    int high = FilterKernelBenchmark.VALUE_RANGE * passPercent / 100;
    long sum = 0;
    long kept = 0;
    long less = 0;
    for (int i = 0; i < rows; i++) {
      int value = FilterKernelBenchmark.value(i);
      sum += value;
      boolean selected = input == FilterKernelBenchmark.Input.DENSE || i % Chunk.CAPACITY % 2 == 0;
      kept += selected && value < high ? 1 : 0;
      less += selected && value < FilterKernelBenchmark.value(i + rows) ? 1 : 0;
    }
    var data = new FilterKernelBenchmark.Data();
    data.rows = rows;
    data.passPercent = passPercent;
    data.input = input;
    data.setUp();
    try {
      var benchmark = new FilterKernelBenchmark();
      assertEquals(sum, benchmark.scan(data));
      assertEquals(kept, benchmark.rangeFilter(data));
      assertEquals(less, benchmark.columnComparison(data));
    } finally {
      data.tearDown();
    }
  }
}
