package dev.memwall.join.pipeline;

import static dev.memwall.core.expr.Expr.col;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.expr.NamedExpr;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.PropertyLeakCheck;
import dev.memwall.core.operator.Aggregate;
import dev.memwall.core.plan.ExecutionContext;
import dev.memwall.core.plan.Plan;
import dev.memwall.core.vector.Batch;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.Table;
import dev.memwall.join.common.JoinType;
import dev.memwall.join.pipeline.HashProbeStageProperties.Row;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.lifecycle.AddLifecycleHook;

/**
 * Pipelined joins whose build keys are unique and dense (a primary key), so that the stage builds a
 * {@link dev.memwall.join.algorithm.DenseKeyTable}, against a map from key to build row: every join
 * type, the inner join both pairing (with build columns) and narrowing (without), and the marking
 * stage of a semi or anti join that keeps build rows; over an int32, int64 or date key with nulls on
 * both sides, probe keys below, inside and above the build keys' range, probe sides long enough for
 * the key filter to be decided on, one or two threads. Each case asserts that the dense table was
 * taken.
 */
@AddLifecycleHook(PropertyLeakCheck.class)
class DenseKeyJoinProperties {
  @Property(tries = 60)
  void joinsOnDenseUniqueKeysMatchAMap(@ForAll JoinType type, @ForAll @IntRange(min = 0, max = 2) int keyColumn,
      @ForAll @IntRange(min = 1, max = 3_000) int buildRows, @ForAll @IntRange(min = 0, max = 50_000) int probeRows,
      @ForAll boolean buildOutputs, @ForAll boolean marking, @ForAll long seed,
      @ForAll @IntRange(min = 1, max = 2) int threads, EngineMemory memory) {
    Random random = new Random(seed);
    List<Integer> ids = new ArrayList<>();
    for (int k = 0; k < 2 * buildRows; k++) {
      ids.add(k);
    }
    Collections.shuffle(ids, random);
    List<Row> build = new ArrayList<>();
    for (int i = 0; i < buildRows; i++) {
      build.add(row(random, ids.get(i), random.nextInt(30) == 0));
    }
    List<Row> probe = new ArrayList<>();
    for (int i = 0; i < probeRows; i++) {
      probe.add(row(random, random.nextInt(3 * buildRows) - buildRows / 2, random.nextInt(40) == 0));
    }
    Map<Object, Row> byKey = new HashMap<>();
    build.stream().filter(r -> r.key(keyColumn) != null).forEach(r -> byKey.put(r.key(keyColumn), r));

    String key = List.of("a", "b", "c").get(keyColumn);
    ColumnType keyType = List.of(ColumnType.INT32, ColumnType.INT64, ColumnType.DATE).get(keyColumn);
    boolean semiOrAnti = type == JoinType.SEMI || type == JoinType.ANTI;
    ExecutionContext context = new ExecutionContext(memory, threads);
    long cacheBytes = 1 << 16;
    try (Table p = HashProbeStageProperties.table(memory, random, probe, "l", false);
        Table b = HashProbeStageProperties.table(memory, random, build, "r", random.nextBoolean())) {
      if (semiOrAnti && marking) {
        checkMarking(type, p, b, key, keyType, probe, build, byKey, keyColumn, cacheBytes, context);
        return;
      }
      boolean emits = buildOutputs && !semiOrAnti;
      long rows = 0;
      long probeSum = 0;
      long buildSum = 0;
      long paired = 0;
      for (Row l : probe) {
        Row partner = l.key(keyColumn) == null ? null : byKey.get(l.key(keyColumn));
        long kept = switch (type) {
          case INNER, SEMI -> partner != null ? 1 : 0;
          case LEFT_OUTER -> 1;
          case ANTI -> partner != null ? 0 : 1;
        };
        rows += kept;
        probeSum += kept * l.v();
        buildSum += partner != null && kept > 0 ? partner.v() : 0;
        paired += partner != null && kept > 0 ? 1 : 0;
      }
      try (HashProbeStage stage = HashProbeStage.build(b, List.of("r" + key), type, List.of("l" + key),
          List.of(keyType), emits ? List.of("lv") : null, emits ? List.of("rv", "rs") : List.of(), cacheBytes,
          context)) {
        assertTrue(stage.describe().contains("dense key table") || byKey.isEmpty(), stage.describe());
        List<Aggregate> aggregates = new ArrayList<>(List.of(Aggregate.countStar("rows"), Aggregate.sum(col("lv"), "lv")));
        if (emits) {
          aggregates.add(Aggregate.sum(col("rv"), "rv"));
        }
        try (Table actual = Plan.scan(p).stage(stage).aggregate(List.<NamedExpr>of(), aggregates.toArray(Aggregate[]::new))
            .execute(context)) {
          Batch totals = actual.batches().getFirst();
          assertEquals(rows, totals.column(0).getObject(0), type + " on " + key);
          assertEquals(rows == 0 ? null : probeSum, number(totals.column(1).getObject(0)), "probe values");
          if (emits) {
            assertEquals(paired == 0 ? null : buildSum, number(totals.column(2).getObject(0)), "build values");
          }
        }
      }
    }
  }

  /** A semi or anti join keeping build rows: the probe side marks them through the dense table. */
  private static void checkMarking(JoinType type, Table p, Table b, String key, ColumnType keyType, List<Row> probe,
      List<Row> build, Map<Object, Row> byKey, int keyColumn, long cacheBytes, ExecutionContext context) {
    java.util.Set<Object> probed = new java.util.HashSet<>();
    probe.stream().filter(r -> r.key(keyColumn) != null).forEach(r -> probed.add(r.key(keyColumn)));
    long rows = 0;
    long sum = 0;
    for (Row r : build) {
      boolean matched = r.key(keyColumn) != null && probed.contains(r.key(keyColumn));
      if (matched == (type == JoinType.SEMI)) {
        rows++;
        sum += r.v();
      }
    }
    try (HashProbeStage marker = HashProbeStage.marking(b, List.of("r" + key), List.of("l" + key), List.of(keyType),
        cacheBytes, context)) {
      assertTrue(marker.describe().contains("dense key table") || byKey.isEmpty(), marker.describe());
      Plan.scan(p).stage(marker).execute(context).close();
      try (Table kept = Plan.scan(b).stage(marker.markedRows(b, type == JoinType.SEMI))
          .aggregate(List.<NamedExpr>of(), Aggregate.countStar("rows"), Aggregate.sum(col("rv"), "rv"))
          .execute(context)) {
        Batch totals = kept.batches().getFirst();
        assertEquals(rows, totals.column(0).getObject(0), "marked " + type + " on " + key);
        assertEquals(rows == 0 ? null : sum, number(totals.column(1).getObject(0)), "kept build values");
      }
    }
  }

  /** A row whose three keys derive from {@code k} (distinct k, distinct keys); null keys when {@code nullKeys}. */
  private static Row row(Random random, int k, boolean nullKeys) {
    String text = HashProbeStageProperties.WORDS[random.nextInt(HashProbeStageProperties.WORDS.length)];
    return nullKeys ? new Row(null, null, null, random.nextInt(1000), text)
        : new Row(k, k * 3L - 7, 9000 + k, random.nextInt(1000), text);
  }

  private static Long number(Object value) {
    return value == null ? null : ((Number) value).longValue();
  }
}
