package dev.memwall.spark;

import dev.memwall.core.concurrent.QueryCancelledException;
import dev.memwall.core.memory.BudgetExceededException;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.MemoryBudget;
import dev.memwall.core.plan.ExecutionContext;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.Table;
import dev.memwall.join.pipeline.HashProbeStage;
import java.lang.ref.WeakReference;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.spark.SparkEnv;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.execution.joins.HashedRelation;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The build sides of the broadcast hash joins memwall runs ({@link JoinTask}), built once per executor
 * JVM: the rows Spark broadcast as its {@link HashedRelation} are copied into a memwall table
 * ({@link RowTables}) and hashed ({@link HashProbeStage}) by the first task of the executor that probes
 * them, and every task of the executor that probes the same broadcast with the same {@link JoinProbe}
 * shares that build, as Spark's own broadcast hash join shares its relation. Keyed by the broadcast's
 * id and the probe, tied to the broadcast's value object ({@link BroadcastBuildCache}: reference
 * counted per task, freed once no task uses it and Spark has dropped the broadcast, or when another
 * build needs the memory).
 *
 * <p>Memory: the builds of an executor share one memwall budget of their own,
 * {@value MemwallSettings#EXECUTOR_BROADCAST_MEMORY} (default
 * {@value MemwallSettings#DEFAULT_EXECUTOR_BROADCAST_MEMORY}), read from the executor's Spark
 * configuration when its first build is made; {@link #allocatedBytes} reports what it holds, and each
 * build is logged with its size (logger {@code dev.memwall.spark}). Why not a task's lease: a lease is
 * execution memory of one task attempt, which Spark takes back (and, with
 * {@code spark.unsafe.exceptionOnMemoryLeak}, fails the task for) when that task ends, while a shared
 * build outlives the task that made it; charging it to its first task would leave it uncharged once
 * that task ended, or tie every other task to the first one's life. The price: this memory is off-heap
 * memory Spark's memory manager does not see, like the memory-mapped files memwall reads, so it belongs
 * in the executor's {@code spark.executor.memoryOverhead} (or {@code spark.memory.offHeap.size}'s
 * headroom). A build that does not fit, even after the unused builds were freed, fails its task with
 * memwall's {@link BudgetExceededException} naming the setting, and leaves nothing behind.
 *
 * <p>Thread safety: a build is read-only once made, and any number of tasks probe it at once, each
 * with its own worker (scratch memory charged to its own task); the one thing probing writes is the
 * key filter a {@link HashProbeStage} decides on after its first chunks, which it builds once, under
 * an atomic decision, charged to the build's memory. Each executor JVM has its own builds; a new Spark
 * context in the same JVM (a new {@link SparkEnv}) retires the builds of the old one.
 *
 * <p>Bad input: a build column of a type memwall does not copy throws {@link IllegalArgumentException}
 * (the planning rule checks the types first).
 */
final class BroadcastBuilds {
  private static final Logger LOG = LoggerFactory.getLogger("dev.memwall.spark");
  /** Rows copied between two checks of the building task's cancellation. */
  private static final int CHECK_ROWS = 4096;
  /** Successful builds in this JVM, all caches together (for tests: one per broadcast and probe). */
  private static final AtomicLong BUILDS = new AtomicLong();

  /** The cache of the current Spark environment; guarded by the class. */
  private static BroadcastBuildCache<Build> cache;
  private static WeakReference<SparkEnv> cacheEnv = new WeakReference<>(null);

  private BroadcastBuilds() {}

  /**
   * One join's build side as memwall probes it: the broadcast rows as a table, and the hash table on
   * it (which references the table's strings); closing it frees both.
   */
  record Build(Table table, HashProbeStage stage) implements AutoCloseable {
    @Override
    public void close() {
      try {
        stage.close();
      } finally {
        table.close();
      }
    }
  }

  /**
   * The build of {@code probe} on {@code broadcast} (a {@code Broadcast<HashedRelation>}), shared with the
   * executor's other tasks, built now on this task's thread if no task has built it; a task killed while
   * waiting for another's build stops with Spark's {@code TaskKilledException}.
   *
   * @param resources the task's resources: its cancellation, and the owner of the returned use
   * @return the task's use of the build, owned by {@code resources} (released when the task ends)
   * @throws BudgetExceededException when the build does not fit the executor's broadcast memory
   */
  static BroadcastBuildCache<Build>.Use acquire(JoinProbe probe, Broadcast<?> broadcast, TaskResources resources) {
    HashedRelation relation = (HashedRelation) broadcast.value();
    long id = broadcast.id();
    Runnable checkpoint = () -> {
      resources.checkKilled();
      if (resources.token().isCancelled()) {
        throw new QueryCancelledException(QueryCancelledException.Reason.CANCELLED,
            "memwall hash join cancelled while building broadcast " + id);
      }
    };
    BroadcastBuildCache<Build> builds = cache();
    try {
      return resources.own(builds.acquire(id, probe, relation, probe.describe(),
          memory -> build(id, probe, relation, memory, resources, checkpoint, builds), checkpoint));
    } catch (BudgetExceededException | dev.memwall.join.common.JoinMemoryException e) {
      BudgetExceededException refusal = BudgetExceededException.among(e);
      if (refusal == null) {
        throw e;
      }
      throw refusal.in("memwall hash join", "build of broadcast " + id + ", shared by the executor's tasks",
          "every broadcast build of an executor is charged to " + MemwallSettings.EXECUTOR_BROADCAST_MEMORY
              + "; raise it, or lower spark.sql.autoBroadcastJoinThreshold");
    }
  }

  /** The cache of this JVM's current Spark environment; a new environment retires the old one's. */
  static synchronized BroadcastBuildCache<Build> cache() {
    SparkEnv env = SparkEnv.get(); // null outside Spark (a unit test): the default size
    if (cache == null || cacheEnv.get() != env) {
      if (cache != null) {
        cache.retire();
      }
      long bytes = MemwallSettings.executorBroadcastBytes(env == null ? null : env.conf());
      cache = new BroadcastBuildCache<>(MemoryBudget.of("memwall broadcast join builds of this executor ("
          + MemwallSettings.EXECUTOR_BROADCAST_MEMORY + " = " + bytes + " bytes)", bytes));
      cacheEnv = new WeakReference<>(env);
    }
    return cache;
  }

  /**
   * The table and hash table of {@code probe} on {@code relation}, in {@code memory}; on a failure nothing
   * stays allocated.
   */
  private static Build build(long id, JoinProbe probe, HashedRelation relation, EngineMemory memory,
      TaskResources resources, Runnable checkpoint, BroadcastBuildCache<Build> builds) {
    long start = System.nanoTime();
    ExecutionContext context = ExecutionContext.builder(memory).threads(1).cancellation(resources.token())
        .machine(resources.context().machine()).build();
    Table table = RowTables.of(rows(relation, checkpoint), probe.buildSchema(), probe.buildNames(), memory.arrow());
    try {
      checkpoint.run();
      List<ColumnType> probeKeyTypes = probe.probeKeyTypes().stream().map(BroadcastBuilds::keyType).toList();
      HashProbeStage stage = HashProbeStage.build(table, probe.buildKeys(), probe.type(), probe.probeKeys(),
          probeKeyTypes, null, probe.buildOutputs(), context.machine().fastCacheBytes(), context);
      BUILDS.incrementAndGet();
      if (LOG.isInfoEnabled()) {
        LOG.info("memwall built broadcast {} once for this executor's tasks ({}): {} rows, {} bytes in {} ms; {}", id,
            probe.describe(), table.rowCount(), memory.allocatedBytes(), (System.nanoTime() - start) / 1_000_000,
            builds);
      }
      return new Build(table, stage);
    } catch (RuntimeException | Error e) {
      table.close();
      throw e;
    }
  }

  /**
   * Each key's rows of {@code relation} (not every relation lists its values), through a read-only copy as
   * Spark's own joins read a broadcast relation; runs {@code checkpoint} every {@value #CHECK_ROWS} rows.
   */
  private static Iterator<InternalRow> rows(HashedRelation relation, Runnable checkpoint) {
    HashedRelation copy = relation.asReadOnlyCopy();
    return new Iterator<>() {
      private final scala.collection.Iterator<InternalRow> keys = copy.keys();
      private scala.collection.Iterator<InternalRow> values = scala.collection.Iterator.empty();
      private long rows;

      @Override
      public boolean hasNext() {
        while (!values.hasNext() && keys.hasNext()) {
          values = copy.get(keys.next());
        }
        return values.hasNext();
      }

      @Override
      public InternalRow next() {
        if (!hasNext()) {
          throw new NoSuchElementException("no more build rows");
        }
        if (++rows % CHECK_ROWS == 0) {
          checkpoint.run();
        }
        return values.next();
      }
    };
  }

  private static ColumnType keyType(DataType type) {
    return RowTables.columnType(DataTypes.createStructField("key", type, true));
  }

  /** Builds made in this JVM since it started (all Spark contexts), failed ones not counted. */
  static long buildCount() {
    return BUILDS.get();
  }

  /** Bytes the current executor's builds hold (reported to the log with each build). */
  static synchronized long allocatedBytes() {
    return cache == null ? 0 : cache.allocatedBytes();
  }

  /** Open uses of the current executor's builds: 0 once no task joins. */
  static synchronized int userCount() {
    return cache == null ? 0 : cache.userCount();
  }

  /** Builds of the current executor not yet freed. */
  static synchronized int liveCount() {
    return cache == null ? 0 : cache.liveCount();
  }
}
