package dev.memwall.join;

import dev.memwall.core.machine.MachineProfile;
import dev.memwall.core.memory.BudgetExceededException;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.plan.ExecutionContext;
import dev.memwall.core.spill.SpillSettings;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.Table;
import dev.memwall.join.algorithm.ClusterJoin;
import dev.memwall.join.algorithm.DenseKeyJoin;
import dev.memwall.join.algorithm.DenseKeyTable;
import dev.memwall.join.algorithm.JoinInput;
import dev.memwall.join.algorithm.JoinMethod;
import dev.memwall.join.algorithm.JoinOutput;
import dev.memwall.join.algorithm.OpenAddressingHashJoin;
import dev.memwall.join.algorithm.PartitionedJoin;
import dev.memwall.join.algorithm.SimpleHashJoin;
import dev.memwall.join.algorithm.SortMergeJoin;
import dev.memwall.join.common.JoinAlgorithm;
import dev.memwall.join.common.JoinMemoryException;
import dev.memwall.join.common.PairChunk;
import dev.memwall.join.grace.GraceHashJoin;
import dev.memwall.join.grace.SpillRates;
import dev.memwall.join.inspector.InspectorJoin;
import dev.memwall.join.keys.KeyColumns;
import dev.memwall.join.planner.CostModel;
import dev.memwall.join.planner.JoinPlan;
import dev.memwall.join.planner.Planner;
import dev.memwall.join.planner.ProbeSkew;
import dev.memwall.join.prefetch.PrefetchTuning;
import dev.memwall.join.reducer.BloomReducer;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * One terminal call of a {@link Join}: validates the keys, plans, picks the {@link JoinMethod} the
 * plan names and builds its settings from the {@link JoinOptions}, checks the working memory against
 * the budget, and runs the method (behind the semi-join reducer when asked, under the host's
 * {@link ExecutionContext} when there is one) into a {@link JoinOutput}, returning its
 * {@link JoinReport}.
 *
 * <p>Ownership: the tables are borrowed; every buffer of the run is charged to {@code memory} and
 * freed before a method returns or throws. Thread safety: one thread, one call.
 */
final class JoinExecution {
  /** Seeds the planner's sample of the probe keys, so that a join plans the same way every time. */
  private static final long PROBE_SAMPLE_SEED = 0x5EED_0F_5CE3L;

  private final EngineMemory memory;
  private final Table left;
  private final Table right;
  private final JoinOptions options;
  private final ExecutionContext context;
  private MachineProfile profile;

  /** {@code context}: the host's controls for the run, or null to run on the calling thread without them. */
  JoinExecution(EngineMemory memory, Table left, Table right, JoinOptions options, ExecutionContext context) {
    this.memory = Objects.requireNonNull(memory, "memory");
    this.left = Objects.requireNonNull(left, "left");
    this.right = Objects.requireNonNull(right, "right");
    this.options = options;
    this.context = context;
    this.profile = options.profile();
  }

  /** A method with the settings it runs with. */
  private record Configured<S>(JoinMethod<S> method, S settings) {
    long workingBytes(JoinInput sides) {
      return method.workingBytes(sides, settings);
    }

    JoinMethod.Details run(JoinInput sides, JoinOutput sink) {
      return method.run(sides, sink, settings);
    }
  }

  /** Sides planned and configured, their working memory checked. */
  private record Prepared(JoinInput sides, JoinPlan plan, Configured<?> method) {}

  /** What the reducer and the method did. */
  private record Ran(JoinPlan plan, JoinMethod.Details details, BloomReducer.Report reducer) {}

  /** The plan a run would have, with the cost model's predictions. */
  JoinPlan plan() {
    KeyColumns[] keys = keys();
    return plan(keys[0], keys[1]);
  }

  /** The plan and the working memory the run would ask its budget for, without running anything. */
  String explain() {
    KeyColumns[] keys = keys();
    JoinPlan plan = plan(keys[0], keys[1]);
    JoinInput sides = new JoinInput(keys[0], keys[1], options.type(), memory);
    return String.format(Locale.ROOT, "%s%n  working memory about %d bytes", plan.describe(),
        configure(plan).workingBytes(sides));
  }

  /**
   * Runs the join into chunks of pairs handed to {@code consumer} (each valid during its call), or
   * only counts them when {@code consumer} is null.
   */
  JoinReport run(Consumer<PairChunk> consumer) {
    boolean counts = consumer == null;
    Prepared prepared = prepare(!counts);
    try (JoinOutput out = counts ? JoinOutput.counting()
        : JoinOutput.streaming(memory, options.chunkPairs(), consumer)) {
      long start = System.nanoTime();
      Ran ran = context == null ? runReduced(prepared, out) : context.run(() -> runReduced(prepared, out));
      if (!counts) {
        out.flush();
      }
      return new JoinReport(ran.plan(), out.emitted(), System.nanoTime() - start, ran.details(), ran.reducer());
    }
  }

  private KeyColumns[] keys() {
    return KeyColumns.pair(left, options.leftKeys(), right, options.rightKeys());
  }

  private Prepared prepare(boolean materializes) {
    KeyColumns[] keys = keys();
    JoinPlan plan = plan(keys[0], keys[1]);
    Configured<?> method = configure(plan);
    JoinInput sides = new JoinInput(keys[0], keys[1], options.type(), memory);
    long perOutput = materializes ? JoinOutput.bytesFor(options.chunkPairs()) : 0;
    JoinAlgorithm algorithm = plan.algorithm();
    boolean parallel = algorithm.clusters() || algorithm == JoinAlgorithm.INSPECTOR
        || algorithm == JoinAlgorithm.ENHANCED_CACHE_PARTITIONING || algorithm == JoinAlgorithm.OPEN_ADDRESSING
        || algorithm == JoinAlgorithm.DENSE_KEYS;
    long outputs = perOutput * (parallel ? options.threads() : 1);
    long required = method.workingBytes(sides) + outputs;
    if (options.semiJoinReducer()) {
      required += BloomReducer.bytesFor(keys[0].rowCount(), keys[1].rowCount()) + outputs;
    }
    try { // charged and given back at once: the memory's own path gives up pooled freed memory before refusing
      memory.reserveHeap(required);
      memory.releaseHeap(required);
    } catch (BudgetExceededException e) {
      throw new JoinMemoryException(String.format(Locale.ROOT,
          "%s join of %d x %d rows needs about %d bytes of working memory; %s", algorithm,
          keys[0].rowCount(), keys[1].rowCount(), required, e.getMessage()), required, e);
    }
    return new Prepared(sides, plan, method);
  }

  private Ran runReduced(Prepared prepared, JoinOutput out) {
    if (!options.semiJoinReducer()) {
      return new Ran(prepared.plan(), prepared.method().run(prepared.sides(), out), null);
    }
    JoinInput sides = prepared.sides();
    try (BloomReducer reducer = BloomReducer.reduce(memory, left, options.leftKeys(), sides.left(), sides.right(),
        options.type(), out)) {
      KeyColumns reducedLeft = KeyColumns.pair(reducer.table(), options.leftKeys(), right, options.rightKeys())[0];
      JoinInput reduced = new JoinInput(reducedLeft, sides.right(), options.type(), memory);
      JoinPlan plan = plan(reducedLeft, sides.right());
      Configured<?> method = configure(plan);
      JoinMethod.Details details;
      if (out.countOnly()) {
        details = method.run(reduced, out);
      } else {
        try (JoinOutput mapped = reducer.mapping(memory, options.chunkPairs(), out)) {
          details = method.run(reduced, mapped);
          mapped.flush();
        }
      }
      return new Ran(plan, details, reducer.report());
    }
  }

  private JoinPlan plan(KeyColumns l, KeyColumns r) {
    JoinAlgorithm algorithm = options.algorithm();
    if (algorithm == JoinAlgorithm.AUTO && options.radix() == null && DenseKeyTable.mayHold(r)) {
      return JoinPlan.named(JoinAlgorithm.DENSE_KEYS, null); // unique dense keys: no hash beats an array
    }
    if (!algorithm.clusters() && algorithm != JoinAlgorithm.AUTO) {
      return JoinPlan.named(algorithm, null);
    }
    if (algorithm != JoinAlgorithm.AUTO && options.radix() != null) {
      return JoinPlan.named(algorithm, options.radix());
    }
    CostModel.Layout layout = PartitionedJoin.packs(l) ? CostModel.Layout.PACKED : CostModel.Layout.HASHED;
    return new Planner(profile(), layout).plan(algorithm, l.rowCount(), r.rowCount(), options.radix(),
        options.writeCombining(), () -> ProbeSkew.of(l.sampleHashes(ProbeSkew.SAMPLE, PROBE_SAMPLE_SEED)));
  }

  /** The method the plan names, with its settings from the options (nothing is run or measured). */
  private Configured<?> configure(JoinPlan plan) {
    JoinAlgorithm algorithm = plan.algorithm();
    int threads = options.threads();
    return switch (algorithm) {
      case SIMPLE_HASH -> new Configured<Void>(SimpleHashJoin.METHOD, null);
      case OPEN_ADDRESSING -> new Configured<>(OpenAddressingHashJoin.METHOD,
          new OpenAddressingHashJoin.Settings(options.probeGroup(), threads));
      case DENSE_KEYS -> new Configured<>(DenseKeyJoin.METHOD, new DenseKeyJoin.Settings(threads,
          new OpenAddressingHashJoin.Settings(options.probeGroup(), threads)));
      case SORT_MERGE -> new Configured<>(SortMergeJoin.METHOD,
          new SortMergeJoin.Settings(plan.radix(), options.writeCombining()));
      case PHASH, PHASH_PLUS, RADIX_JOIN -> new Configured<>(PartitionedJoin.METHOD,
          new PartitionedJoin.Settings(plan.radix(), clusterJoin(algorithm), options.writeCombining(), threads));
      case GRACE, HYBRID_HASH -> new Configured<>(GraceHashJoin.METHOD,
          spillingSettings(algorithm == JoinAlgorithm.HYBRID_HASH));
      case INSPECTOR, ENHANCED_CACHE_PARTITIONING -> new Configured<>(InspectorJoin.METHOD,
          inspectorSettings(algorithm == JoinAlgorithm.INSPECTOR));
      case AUTO -> throw new IllegalStateException("AUTO must be planned");
    };
  }

  private static ClusterJoin.Kind clusterJoin(JoinAlgorithm algorithm) {
    return switch (algorithm) {
      case PHASH -> ClusterJoin.Kind.PHASH;
      case PHASH_PLUS -> ClusterJoin.Kind.PHASH_PLUS;
      case RADIX_JOIN -> ClusterJoin.Kind.NESTED_LOOPS;
      default -> throw new IllegalArgumentException(algorithm + " does not join clusters");
    };
  }

  /** The spilling joins' settings; a hybrid join's disk rates are measured only once it runs. */
  private GraceHashJoin.Settings spillingSettings(boolean hybrid) {
    SpillSettings spill = spillSettings();
    Path root = spill.root();
    MachineProfile machine = profile();
    return new GraceHashJoin.Settings(spillMemory(), root, spill.quotaBytes(), hybrid,
        hybrid ? () -> SpillRates.measure(root, machine) : null, options.prefetch(),
        options.prefetchTuning() != null ? options.prefetchTuning() : PrefetchTuning.from(machine),
        machine.fastCacheBytes());
  }

  private InspectorJoin.Settings inspectorSettings(boolean inspector) {
    int bytes = options.tupleBytes() > 0 ? options.tupleBytes() : Math.max(16, Math.max(rowBytes(left), rowBytes(right)));
    return InspectorJoin.Settings.of(profile(), bytes, options.threads(),
        inspector ? options.inspectorPhase() : InspectorJoin.Phase.CACHE_PARTITIONING, inspector);
  }

  /** A row's bytes: fixed-width columns at their width, 16 for strings and types memwall does not compute on. */
  private static int rowBytes(Table table) {
    int bytes = 0;
    for (var field : table.schema().getFields()) {
      ColumnType.Kind kind;
      try {
        kind = ColumnType.of(field).kind();
      } catch (IllegalArgumentException e) {
        kind = ColumnType.Kind.STRING;
      }
      bytes += switch (kind) {
        case BOOLEAN -> 1;
        case INT32, DATE -> 4;
        case INT64, DECIMAL, FLOAT64, TIMESTAMP -> 8;
        case STRING -> 16;
      };
    }
    return Math.min(1 << 16, bytes);
  }

  private long spillMemory() {
    if (options.memoryLimit() > 0) {
      return options.memoryLimit();
    }
    var budget = memory.budget();
    long free = budget.limitBytes() - budget.reservedBytes();
    return Math.max(1, free / 4);
  }

  private SpillSettings spillSettings() {
    if (options.spillDirectory() != null) {
      return new SpillSettings(options.spillDirectory(), options.spillQuota());
    }
    SpillSettings temporary = SpillSettings.temporaryDirectory();
    return options.spillQuota() == Long.MAX_VALUE ? temporary
        : new SpillSettings(temporary.root(), options.spillQuota());
  }

  private MachineProfile profile() {
    if (profile == null) {
      profile = MachineProfile.current();
    }
    return profile;
  }
}
