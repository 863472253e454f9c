package dev.memwall.bench.sort;

import dev.memwall.bench.report.ReportLayout;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.operator.SortKey;
import dev.memwall.core.operator.Sorter;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.Table;
import dev.memwall.core.vector.TableBuilder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * A full ORDER BY of an aggregation's result shaped as TPC-H Q16's (a count descending, then two
 * dictionary-encoded strings of 25 and 150 values and a size of 50): keys that pack into one long a
 * row ({@code keys=packed}: {@code Sorter} sorts them as primitives), against the same keys followed by
 * a double that never decides ({@code keys=comparator}: a double does not pack, so the merge sort
 * compares rows through the comparator, which almost never reaches that last key). One thread;
 * compare the two as a ratio within a run.
 */
@ReportLayout(baseline = "keys=comparator", xAxis = "rows")
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = "-Xmx4g")
@State(Scope.Benchmark)
public class SortBenchmark {
  @Param({"30000", "1000000"})
  public int rows;

  @Param({"packed", "comparator"})
  public String keys;

  private EngineMemory memory;
  private Table table;
  private List<SortKey> order;

  @Setup(Level.Trial)
  public void setUp() {
    memory = EngineMemory.create("sort benchmark");
    SplittableRandom random = new SplittableRandom(16);
    List<byte[]> brands = words("Brand#", 25);
    List<byte[]> types = words("TYPE ", 150);
    try (TableBuilder builder = new TableBuilder(List.of("supplier_cnt", "p_brand", "p_type", "p_size", "tie"),
        List.of(ColumnType.INT64, ColumnType.STRING, ColumnType.STRING, ColumnType.INT64, ColumnType.FLOAT64),
        new boolean[] {false, true, true, false, false}, memory.arrow())) {
      for (int r = 0; r < rows; r++) {
        builder.appendLong(random.nextInt(40))
            .appendString(brands.get(random.nextInt(brands.size())))
            .appendString(types.get(random.nextInt(types.size())))
            .appendLong(1 + random.nextInt(50))
            .appendDouble(0.0)
            .endRow();
      }
      table = builder.build();
    }
    order = new ArrayList<>(List.of(SortKey.desc("supplier_cnt"), SortKey.asc("p_brand"), SortKey.asc("p_type"),
        SortKey.asc("p_size")));
    if (keys.equals("comparator")) {
      order.add(SortKey.asc("tie"));
    }
  }

  private static List<byte[]> words(String prefix, int count) {
    List<byte[]> words = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      words.add((prefix + (i * 7919 % count)).getBytes(StandardCharsets.UTF_8)); // not in code order
    }
    return words;
  }

  @Benchmark
  public long sort() {
    try (Table sorted = Sorter.sort(table, order, Long.MAX_VALUE, memory)) {
      return sorted.rowCount();
    }
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    table.close();
    memory.close();
  }
}
