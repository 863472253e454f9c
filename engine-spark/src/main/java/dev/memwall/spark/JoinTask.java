package dev.memwall.spark;

import dev.memwall.core.concurrent.QueryCancelledException;
import dev.memwall.core.expr.Expr;
import dev.memwall.core.memory.BudgetExceededException;
import dev.memwall.core.plan.Plan;
import dev.memwall.core.vector.Batch;
import dev.memwall.core.vector.Table;
import dev.memwall.join.pipeline.HashProbeStage;
import java.io.IOException;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Set;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.spark.api.java.function.FlatMapFunction;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.connector.expressions.filter.Predicate;
import org.apache.spark.sql.execution.joins.HashedRelation;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;

/**
 * What a task of {@link MemwallHashJoinExec} runs for its input partition (a run of record batches of one
 * file of the probe side's memwall scan): the build side of each join, broadcast by Spark as its hash
 * relation, is copied into a memwall table ({@link RowTables}) and hashed by memwall
 * ({@link HashProbeStage}) once per executor, by the first of its tasks to need it, and shared by the
 * others ({@link BroadcastBuilds}); then the partition's batches are mapped, filtered by the scan's pushed
 * predicates and streamed through every probe in one memwall pipeline
 * ({@code Plan.scan(batches).filter(pushed).stage(probe 1)...}), a slice of up to {@value #SLICE_ROWS}
 * rows of one record batch at a time, and each slice's joined rows are handed to Spark as {@link ColumnarBatch}es over memwall's result
 * ({@link SparkVectors}, no copy).
 *
 * <p>Spark's hash relation has no rows with a null key (they match nothing, and none of the joins
 * memwall runs keeps unmatched build rows), and memwall's probes match no null probe key, as Spark's
 * joins do.
 *
 * <p>Memory: the shared builds are charged to the executor's broadcast memory
 * ({@value MemwallSettings#EXECUTOR_BROADCAST_MEMORY}), and the task holds a use of each, which its
 * {@link TaskResources} release; the input and each slice's result (whose strings may point into a
 * build's) are charged to the task's budget. A slice's result is freed when Spark asks for the next
 * batch, everything (the results before the uses of the builds) when the iterator ends or the task
 * completes, fails or is killed (a completion listener). A slice whose joined rows do not fit is run
 * again in halves ({@link Joined#joinSlice}); a single probe row's joined rows that do not fit fail
 * the task with memwall's {@code BudgetExceededException} naming the task's budget, and a build side
 * that does not fit with the same exception naming the executor's broadcast memory. Cancellation: a killed task stops between slices and inside memwall's pipeline.
 *
 * <p>Serializable: Spark ships it, with its broadcasts, to the executors.
 *
 * @param dataSchema the probe side data set's Spark schema, as planned
 * @param readColumns the probe side's columns the joins read or emit
 * @param pushed the probe scan's pushed predicates
 * @param probes the joins, innermost first
 * @param builds each join's broadcast build side (a {@code Broadcast} of a {@link HashedRelation}), in the same order
 * @param outputNames the memwall columns of Spark's output attributes, in Spark's order
 * @param taskMemoryBytes the memory each task asks Spark for
 */
record JoinTask(StructType dataSchema, List<String> readColumns, Predicate[] pushed, List<JoinProbe> probes,
    List<Broadcast<?>> builds, List<String> outputNames, long taskMemoryBytes)
    implements FlatMapFunction<Iterator<MemwallInputPartition>, ColumnarBatch>, Serializable {

  /** The probe rows one pipeline run takes at most (of one record batch). */
  static final int SLICE_ROWS = 64 * 1024;

  JoinTask {
    readColumns = List.copyOf(readColumns);
    probes = List.copyOf(probes);
    builds = List.copyOf(builds);
    outputNames = List.copyOf(outputNames);
  }

  @Override
  public String toString() {
    return "memwall hash join: " + probes.size() + " joins, " + pushed.length + " pushed predicates";
  }

  @Override
  public Iterator<ColumnarBatch> call(Iterator<MemwallInputPartition> partitions) {
    TaskResources resources = TaskResources.open("memwall hash join", taskMemoryBytes);
    try {
      resources.checkKilled();
      List<HashProbeStage> stages = new ArrayList<>(probes.size());
      for (int i = 0; i < probes.size(); i++) {
        stages.add(BroadcastBuilds.acquire(probes.get(i), builds.get(i), resources).value().stage());
      }
      return new Joined(partitions, stages, resources);
    } catch (QueryCancelledException e) {
      resources.closeAfter(e);
      resources.checkKilled();
      throw e;
    } catch (RuntimeException | Error e) {
      resources.closeAfter(e);
      throw e;
    }
  }

  /** The joined batches of the task's partitions, one slice's result at a time. */
  private final class Joined implements Iterator<ColumnarBatch> {
    private final Iterator<MemwallInputPartition> partitions;
    private final List<HashProbeStage> stages;
    private final TaskResources resources;
    private final Expr filter;
    private Table input;
    private int nextRoot;
    /** The first row of {@link #nextRoot} not yet joined. */
    private int nextOffset;
    /** The most probe rows the next slice takes. */
    private int sliceRows = SLICE_ROWS;
    private Table result;
    private int[] columns;
    private int nextBatch;
    private ColumnarBatch ready;
    private boolean done;

    Joined(Iterator<MemwallInputPartition> partitions, List<HashProbeStage> stages, TaskResources resources) {
      this.partitions = partitions;
      this.stages = stages;
      this.resources = resources;
      this.filter = MemwallPartitionReader.predicate(pushed, dataSchema);
      resources.own(this::closeResult); // a task that ends early frees the slice's result before the memory
    }

    @Override
    public boolean hasNext() {
      if (ready != null) {
        return true;
      }
      if (done) {
        return false;
      }
      try {
        ready = advance();
      } catch (QueryCancelledException e) {
        resources.checkKilled(); // a killed task reports as killed
        throw e;
      }
      if (ready == null) {
        done = true;
        closeResult();
        resources.close();
      }
      return ready != null;
    }

    @Override
    public ColumnarBatch next() {
      if (!hasNext()) {
        throw new NoSuchElementException("no more joined batches");
      }
      ColumnarBatch batch = ready;
      ready = null;
      return batch;
    }

    /** The next non-empty batch of joined rows, or null when every partition is done. */
    private ColumnarBatch advance() {
      while (true) {
        resources.checkKilled();
        if (result != null && nextBatch < result.batches().size()) {
          Batch batch = result.batches().get(nextBatch++);
          if (batch.rowCount() > 0) {
            return toSpark(batch);
          }
          continue;
        }
        closeResult();
        while (input != null && nextRoot < input.roots().size() && input.roots().get(nextRoot).getRowCount() == 0) {
          nextRoot++;
        }
        if (input != null && nextRoot < input.roots().size()) {
          result = joinSlice();
          columns = outputNames.stream().mapToInt(result::columnIndex).toArray();
          nextBatch = 0;
          continue;
        }
        if (!partitions.hasNext()) {
          return null;
        }
        input = read(partitions.next());
        nextRoot = 0;
        nextOffset = 0;
      }
    }

    private Table read(MemwallInputPartition partition) {
      Set<String> read = new LinkedHashSet<>(readColumns);
      PredicateTranslator.addColumns(pushed, read);
      try {
        return partition.read(resources, dataSchema, read);
      } catch (IOException e) {
        throw new UncheckedIOException("memwall cannot read " + Path.of(partition.path()) + ": " + e.getMessage(), e);
      }
    }

    /**
     * Runs the pipeline over the next slice of the partition's rows: up to {@link #sliceRows} rows of one
     * record batch. When the joined rows of a slice do not fit the task's memory (a skewed key matching
     * many build rows), the slice is halved and run again, down to one row, whose joined rows are at most
     * the build side's; after a slice that fits, the next may be twice as long again.
     *
     * @throws BudgetExceededException when even one probe row's joined rows do not fit
     */
    private Table joinSlice() {
      VectorSchemaRoot root = input.roots().get(nextRoot);
      int rows = root.getRowCount();
      while (true) {
        int length = Math.min(sliceRows, rows - nextOffset);
        boolean whole = nextOffset == 0 && length == rows;
        VectorSchemaRoot part = whole ? root : root.slice(nextOffset, length);
        try (Table slice = Table.borrow(input.schema(), List.of(part), input.provider())) {
          Plan plan = Plan.scan(slice);
          if (filter != null) {
            plan = plan.filter(filter);
          }
          for (HashProbeStage stage : stages) {
            plan = plan.stage(stage);
          }
          Table joined = plan.execute(resources.context());
          nextOffset += length;
          if (nextOffset == rows) {
            nextRoot++;
            nextOffset = 0;
          }
          sliceRows = (int) Math.min(SLICE_ROWS, 2L * sliceRows);
          return joined;
        } catch (BudgetExceededException tooMany) {
          if (length == 1) {
            throw tooMany;
          }
          sliceRows = length / 2;
        } finally {
          if (!whole) {
            part.close();
          }
        }
      }
    }

    private ColumnarBatch toSpark(Batch batch) {
      SparkVectors vectors = new SparkVectors();
      ColumnVector[] out = new ColumnVector[columns.length];
      for (int i = 0; i < columns.length; i++) {
        out[i] = vectors.of(batch.column(columns[i]));
      }
      return new ColumnarBatch(out, batch.rowCount());
    }

    private void closeResult() {
      if (result != null) {
        Table finished = result;
        result = null;
        finished.close();
      }
    }
  }
}
