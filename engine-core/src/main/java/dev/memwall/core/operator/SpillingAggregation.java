package dev.memwall.core.operator;

import dev.memwall.core.Closing;
import dev.memwall.core.concurrent.ExecutionControl;
import dev.memwall.core.concurrent.Workers;
import dev.memwall.core.expr.Binder;
import dev.memwall.core.expr.Chunk;
import dev.memwall.core.expr.NamedExpr;
import dev.memwall.core.memory.BudgetExceededException;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.spill.SpillDirectory;
import dev.memwall.core.spill.SpillReport;
import dev.memwall.core.spill.SpillSettings;
import dev.memwall.core.spill.WorkingMemory;
import dev.memwall.core.vector.Table;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Grouped aggregation whose memory degrades instead of failing: each worker aggregates its share of
 * the input in a {@link HashAggregator} held in the operator's {@link WorkingMemory}, and when the
 * table's next growth is refused (by the query's working-memory limit or the budget), the worker
 * spills its partial groups as one run of {@link PartialRuns} (partitioned by key hash) and starts
 * over with an empty table. At the end, if nothing spilled, the workers' tables merge in memory as
 * {@link HashAggregator#merge} does (the same result, encodings included); otherwise the tables left
 * are spilled too and each partition is aggregated on its own from its records (the partitions on
 * the workers' threads, each claiming the next), its groups written to the result before its worker
 * takes the next partition. A partition that still does not fit is partitioned
 * again, with other hash bits, up to {@value #MAX_LEVEL} levels deep. Partial states merge exactly as
 * the workers' tables do (sums, counts, minima, maxima, the null counts behind SQL's nulls), so the
 * result has the same rows as the in-memory aggregation; their order differs (it is unspecified).
 *
 * <p>Many groups on several threads are aggregated in partitions, in memory, as the morsel-driven
 * engines do (Leis et al. 2014; DuckDB): a worker's table that grows past what its fast cache holds
 * ({@link #partitionGroups}) while not {@linkplain HashAggregator#ordered ordered} is written out as
 * a run of {@link PartialRuns} kept in off-heap buffers of the working memory and cleared, and a
 * worker whose table folded fewer than {@value #PASS_THROUGH_ROWS_PER_GROUP} rows a group passes each
 * chunk's groups on instead, as after a spill. A table that folds few rows a group within the cache
 * may still fold many over the whole input (a million customers' orders, fifteen each, in random
 * order): when a worker's table first outgrows the cache, the keys' domain is judged from how the
 * table filled ({@link FillEstimate}), and where a table holding all the groups this worker will see
 * would fold at least {@value #GROW_ROWS_PER_GROUP} rows a group within a quarter of its memory share,
 * the table grows to that size instead, and is partitioned out only past it. At the end every
 * partition is aggregated by one thread from all workers' runs (the tables left written as runs
 * by all workers at once), the partitions on all threads at once, as the spilled partitions
 * are: no thread merges the workers' tables alone. Where no table was partitioned out (a cache large
 * enough for every table, or tables grown), the tables merge by partitions the same way where that
 * beats folding them into the largest on one thread ({@link #mergesLarge}: many groups on more than
 * two threads). Fewer groups and ordered keys keep the in-memory merge; so do one worker and
 * aggregations that may not spill (their buffers could be refused where the merge of the tables
 * would fit). A buffer refused goes to disk, as a spill.
 *
 * <p>Where spilling is off, or cannot help (the memory does not hold an empty table taking one chunk
 * of rows), the {@link BudgetExceededException} names the operator and its stage: {@code build}
 * (consuming rows), {@code merge} (folding partial groups) or {@code output} (writing the result).
 *
 * <p>Speed: a table refused a growth is cleared and filled again (its memory stays grown); runs are
 * written group by group in table order; partitions are cut so that each one's table fits the fast
 * cache; and a worker whose spills fold about one row per group (keys in random order, more groups
 * than memory) stops aggregating across chunks and passes each chunk's groups, aggregated in a small
 * table, straight to the partitions, sparing a large table's cache misses. Keys that arrive in
 * increasing order need no hash table at all (see {@link HashAggregator#merge}); a worker whose keys
 * increase in a few stretches (it reads a table several workers materialized from an ordered input,
 * one worker's share after another's) seals an ordered table where its keys fall back and starts
 * another, and the merge folds the ordered tables as a merge join.
 *
 * <p>Cost beyond the working memory: each worker's records go through heap staging blocks of
 * {@value PartialRuns#STAGING_BYTES} bytes for all partitions together, so that spilling needs no
 * memory the budget just refused; interned strings of string keys stay on the heap as in the
 * in-memory aggregation.
 *
 * <p>Ownership: the operator owns its working memory and spill directory and frees both on
 * {@link #close}, however it ended: no buffer and no spill file outlives it. The result table is
 * allocated from the output memory and is the caller's. Thread safety: one {@link Worker} per thread;
 * {@link #finish} and {@link #close} on the thread that runs the plan.
 */
public final class SpillingAggregation implements AutoCloseable {
  /** The operator's name in errors and reports. */
  public static final String OPERATOR = "hash aggregation";
  /**
   * A spill whose table folded fewer rows than this per group turns its worker to passing each
   * chunk's groups on (see {@code Worker#passThrough}).
   */
  private static final int PASS_THROUGH_ROWS_PER_GROUP = 2;
  /**
   * The fewest rows a group a table holding all of a worker's groups must be expected to fold for it
   * to grow past the cache (see the class comment): below, writing the rows' groups out for the
   * partitions costs less than the cache misses of the large table.
   */
  private static final int GROW_ROWS_PER_GROUP = 3;
  /**
   * The fewest groups the workers' tables must add to the largest one for them to merge by partitions
   * on all threads rather than into it on one (where the cache holds large tables, none is partitioned
   * out while consuming, and a serial merge of many large tables would leave the other threads idle);
   * see {@link #mergesLarge} for the other condition.
   */
  private static final long PARTITIONED_MERGE_GROUPS = 1 << 16;
  /** The most ordered tables a worker seals (see {@code Worker#consumeOrSeal}) before its table is hashed. */
  private static final int MAX_SEALED = 4;
  /** How often a worker with an empty table waits for the others to free memory before it gives up. */
  static final int MAX_WAITS = 200;
  static final long WAIT_NANOS = 500_000;
  /** The deepest re-partitioning of a partition before the aggregation gives up. */
  static final int MAX_LEVEL = 8;
  /** The fewest groups a worker's table holds before it is partitioned out, however small the cache. */
  static final int MIN_PARTITION_GROUPS = 4096;
  /**
   * System property that fixes the groups above which a worker's table is partitioned out (by
   * default from the fast cache, see {@link #partitionGroups}); a benchmark that compares the
   * partitioned aggregation with the merge of the workers' tables sets it to a value no table
   * reaches.
   */
  public static final String PARTITION_GROUPS_PROPERTY = "memwall.aggregation.partitionGroups";

  private final EngineMemory output;
  private final WorkingMemory working;
  private final SpillSettings spill;
  final Schema schema;
  private final List<NamedExpr> keys;
  private final List<Aggregate> aggregates;
  private final AggregateLayout layout;
  final int threads;
  private final long inputRows;
  private final Consumer<SpillReport> reports;
  private final StringIds strings = new StringIds();
  private final AtomicLong consumedRows = new AtomicLong();
  private final List<Worker> workers = new ArrayList<>();
  private SpillDirectory directory;
  /** Partition bits of the workers' runs, decided by the first spill; 0 before. */
  private int partitionBits;
  volatile boolean spilled;
  /** Whether a worker's table was partitioned out in memory (see the class comment). */
  private volatile boolean partitioned;
  final AtomicLong runs = new AtomicLong();
  final AtomicInteger depth = new AtomicInteger();
  /** The partitions of the workers' runs aggregated each on its own; 0 while the tables merge. */
  private int aggregatedPartitions;
  /**
   * The most working memory one worker's table may hold before it spills of its own accord: an
   * equal share of what the working memory had free when the operator started, so that no worker
   * can take all of it and leave another unable to take even one chunk.
   */
  private final long workerShare;
  /** The most one partition's table may hold while the partitions are aggregated on several threads. */
  volatile long partitionShare = Long.MAX_VALUE;
  /** The cache a partition's table should fit, for the aggregation of the partitions to run in cache. */
  private final long cacheBytes;

  /**
   * @param output where the result table is allocated
   * @param working the operator's working memory, closed with it
   * @param schema the rows' schema, which {@code keys} and {@code aggregates} are bound against
   * @param inputRows about how many rows the workers will consume (an estimate for partitioning)
   * @param cacheBytes the fast cache of the machine (see
   *     {@link dev.memwall.core.machine.MachineProfile#fastCacheBytes()}): spilled partitions are cut
   *     small enough that their tables fit it
   * @param reports receives the operator's {@link SpillReport} when it finishes; may be null
   */
  public SpillingAggregation(EngineMemory output, WorkingMemory working, SpillSettings spill, Schema schema,
      List<NamedExpr> keys, List<Aggregate> aggregates, AggregateLayout layout, int threads, long inputRows,
      long cacheBytes, Consumer<SpillReport> reports) {
    this.cacheBytes = Math.max(64 << 10, cacheBytes);
    this.output = output;
    this.working = working;
    this.spill = spill;
    this.schema = schema;
    this.keys = List.copyOf(keys);
    this.aggregates = List.copyOf(aggregates);
    this.layout = layout;
    this.threads = threads;
    this.inputRows = Math.max(1, inputRows);
    this.reports = reports;
    this.workerShare = working.memory().availableBytes() / Math.max(1, threads);
  }

  /**
   * A worker aggregating rows bound with {@code binder}; closed by the caller or with this operator.
   *
   * @throws BudgetExceededException naming the operator's build stage when even an empty table is refused
   */
  public Worker worker(Binder binder) {
    Worker worker = new Worker(binder);
    synchronized (workers) {
      workers.add(worker);
    }
    return worker;
  }

  HashAggregator newAggregator(Binder binder, String stage) {
    try {
      return new HashAggregator(working.memory(), output, binder, keys, aggregates, strings, layout);
    } catch (BudgetExceededException e) {
      throw e.in(OPERATOR, stage, "the memory does not hold even an empty hash table; give the query more memory");
    }
  }

  /** Creates the spill directory on first use; names the stage when spilling is off (a refusal is then given). */
  synchronized SpillDirectory directory(BudgetExceededException refusal, String stage) {
    if (!spill.enabled()) {
      throw refusal.in(OPERATOR, stage, "spilling is off; give the query more memory or let it spill");
    }
    if (directory == null) {
      directory = spill.newDirectory(OPERATOR);
    }
    spilled = true;
    return directory;
  }

  /**
   * The partition bits of the workers' runs, decided by the first spill: enough partitions that each
   * fits the memory if groups grow with the input (from how much input it took to fill the memory),
   * and that each partition's table (its groups extrapolated from the spilling table's, at most one
   * per row) fits both a thread's share of the fast cache, so the partitions aggregate without cache
   * misses, and half a thread's share of the memory, as the threads aggregate partitions at once;
   * and at least two partitions a thread, so that the threads' shares of the work even out.
   */
  private synchronized int partitionBits(HashAggregator spilling) {
    if (partitionBits == 0) {
      long consumed = Math.max(1, consumedRows.get());
      double groups = Math.min(inputRows, (double) spilling.groups() * threads * inputRows / consumed);
      double bytes = groups * (spilling.recordBytes() + 4.0 * Long.BYTES); // keys, states, slots half full
      double target = Math.min(cacheBytes, (double) workerShare * threads / 2) / threads;
      int perThread = Math.min(8, 33 - Integer.numberOfLeadingZeros(threads - 1)); // 2 partitions a thread or more
      partitionBits = Math.max(perThread,
          Math.max(PartialRuns.bitsFor(consumed, inputRows), PartialRuns.bitsFor(target, bytes / 2)));
    }
    return partitionBits;
  }

  /** Decides the partition bits, unless a spill already did, from the groups that fit against all of them. */
  private synchronized void settlePartitionBits(long fit, long total) {
    if (partitionBits == 0) {
      partitionBits = PartialRuns.bitsFor(fit, total);
    }
  }

  /**
   * The groups above which a worker's table of records of {@code recordBytes} is partitioned out
   * (see the class comment): as many as the fast cache holds with the table's slots, at least
   * {@value #MIN_PARTITION_GROUPS}; {@link Long#MAX_VALUE} (never) for one worker, no keys, or spilling off.
   */
  private long partitionGroups(int recordBytes) {
    int peers;
    synchronized (workers) {
      peers = workers.size(); // every worker exists before the first one consumes
    }
    if (peers < 2 || keys.isEmpty() || !spill.enabled()) {
      return Long.MAX_VALUE;
    }
    Long fixed = Long.getLong(PARTITION_GROUPS_PROPERTY);
    if (fixed != null) {
      return Math.max(1, fixed);
    }
    return Math.max(MIN_PARTITION_GROUPS, cacheBytes / (recordBytes + 2L * Long.BYTES));
  }

  /** One thread's share of the aggregation: a table that spills as runs to a file of its own. */
  public final class Worker implements AutoCloseable {
    private final Binder binder;
    private HashAggregator aggregator;
    /**
     * Ordered tables this worker closed because a chunk's keys fell below their last ({@link
     * #consumeOrSeal}), each one of the ordered partials the merge folds; at most {@value
     * #MAX_SEALED}.
     */
    private final List<HashAggregator> sealed = new ArrayList<>();
    /** Writes this worker's runs, to a file of its own; null until the first spill. */
    private PartialRuns.Writer writer;
    /** Rows consumed since the last spill (or the start). */
    private long rowsSinceSpill;
    /**
     * Whether this worker no longer aggregates across chunks: its spills folded too few rows into
     * each group to be worth a table in memory, so each chunk is aggregated on its own in a small
     * table and its groups go straight to the partitions.
     */
    private boolean passThrough;
    /** Groups above which this worker's table is partitioned out; -1 until the first chunk. */
    private long partitionGroups = -1;
    /** Whether this worker's table outgrew the cache once and {@link #grow} judged whether it may grow. */
    private boolean growthJudged;

    private Worker(Binder binder) {
      this.binder = binder;
      this.aggregator = newAggregator(binder, "build");
    }

    /**
     * This worker's table, made anew where a spill or a partitioning freed the last one. Made here,
     * at the next chunk, rather than at once after freeing, so that a refusal (another worker grew
     * into the memory just freed) meets this worker with no table, and waits like any other
     * refusal of a worker holding no groups.
     */
    private HashAggregator table() {
      if (aggregator == null) {
        aggregator = newAggregator(binder, "build");
      }
      return aggregator;
    }

    /** Adds the selected rows of {@code chunk}, spilling first when the table may not grow. */
    public void consume(Chunk chunk) {
      int n = chunk.selected();
      if (spilled && writer != null && !writer.onDisk()) {
        writer.toDisk(() -> directory.newFile("aggregation-worker")); // another worker spilled: free the memory
      }
      if (passThrough) {
        passOn(chunk, n);
        return;
      }
      int waits = 0;
      while (true) {
        try {
          table().reserveRoom(n);
          if (footprintBytes() > workerShare && groups() > 0 && spill.enabled()) {
            spillFrom(null, "build"); // over its share: spill before the other workers starve
            continue;
          }
          if (!consumeOrSeal(chunk)) {
            continue; // the next table takes the chunk
          }
          consumedRows.addAndGet(chunk.count());
          rowsSinceSpill += n;
          if (partitionGroups < 0) {
            partitionGroups = partitionGroups(aggregator.recordBytes());
          }
          if (aggregator.groups() > partitionGroups && !aggregator.ordered() && !grow()) {
            partitionOut();
          }
          return;
        } catch (BudgetExceededException e) {
          boolean empty = groups() == 0;
          if (empty && threads > 1 && waits++ < MAX_WAITS) {
            // nothing of its own to spill: another worker holds the memory, for the moment of a
            // growth before it spills; wait for it rather than fail
            ExecutionControl.checkpoint();
            java.util.concurrent.locks.LockSupport.parkNanos(WAIT_NANOS);
            continue;
          }
          if (empty && aggregator == null) {
            throw e; // even an empty table refused, named by newAggregator
          }
          spillFrom(e, "build");
        }
      }
    }

    /**
     * Writes this worker's groups (its sealed tables' and its table's) as runs and starts again with
     * an empty table: the same one, cleared, when a growth was refused ({@code refusal}), so the next
     * groups fill the memory it holds; otherwise (it grew past its share, or goes on passing chunks
     * through) it frees the table, and the next chunk makes a new, small one.
     */
    private void spillFrom(BudgetExceededException refusal, String stage) {
      SpillDirectory spills = directory(refusal, stage);
      long groups = groups();
      if (groups == 0 && refusal != null) {
        throw refusal.in(OPERATOR, stage, "even an empty hash table cannot take one chunk of rows; give the query"
            + " more memory");
      }
      for (HashAggregator table : sealed) {
        writeRun(spills, table, 0);
        table.close();
      }
      sealed.clear();
      if (aggregator != null) {
        writeRun(spills, aggregator, 0);
      }
      boolean poorlyFolded = rowsSinceSpill < PASS_THROUGH_ROWS_PER_GROUP * groups;
      rowsSinceSpill = 0;
      if (poorlyFolded) {
        // the table held about one row per group: aggregating across chunks saves little and costs a
        // table's worth of cache misses per row; pass each chunk's groups on instead
        passThrough = true;
        freeTable();
        return;
      }
      if (refusal != null && aggregator != null && aggregator.footprintBytes() <= workerShare) {
        aggregator.clear();
        return;
      }
      freeTable(); // grown past its share: the next chunk starts a small one
    }

    /**
     * Adds {@code chunk} to the table, or, where the table is ordered and the chunk's first key is
     * below its last, seals the table instead (while fewer than {@value #MAX_SEALED} are) and returns
     * false, the next table to take the chunk. Keys that increase within each of a few stretches
     * (a table materialized by several workers, each writing its share of an ordered input in order)
     * so stay in ordered tables, which need no slots and merge as a merge join, rather than in a
     * hashed one that two workers would each fill with half the groups and then fold.
     */
    private boolean consumeOrSeal(Chunk chunk) {
      if (sealed.size() >= MAX_SEALED) {
        aggregator.consume(chunk);
        return true;
      }
      if (aggregator.consumeInOrder(chunk)) {
        return true;
      }
      sealed.add(aggregator);
      aggregator = null;
      return false;
    }

    /** This worker's groups: its sealed tables' and its table's. */
    private long groups() {
      long groups = aggregator == null ? 0 : aggregator.groups();
      for (HashAggregator table : sealed) {
        groups += table.groups();
      }
      return groups;
    }

    /** The memory this worker's tables hold. */
    private long footprintBytes() {
      long bytes = aggregator == null ? 0 : aggregator.footprintBytes();
      for (HashAggregator table : sealed) {
        bytes += table.footprintBytes();
      }
      return bytes;
    }

    /** This worker's tables, its sealed ones first. */
    private List<HashAggregator> tables() {
      List<HashAggregator> tables = new ArrayList<>(sealed);
      if (aggregator != null) {
        tables.add(aggregator);
      }
      return tables;
    }

    /**
     * The first time this worker's table outgrows the cache: whether a table holding every group this
     * worker will see folds enough rows a group, judged from how this one filled, to be worth its cache
     * misses and memory (see the class comment); if so, raises this worker's bound to about that many
     * groups (past it the table is partitioned out after all, as a low estimate from skewed keys would
     * have it) and returns true.
     */
    private boolean grow() {
      if (growthJudged || Long.getLong(PARTITION_GROUPS_PROPERTY) != null) {
        return false;
      }
      growthJudged = true;
      double distinct = FillEstimate.distinctKeys(rowsSinceSpill, aggregator.groups());
      double rows = (double) inputRows / threads;
      double groups = FillEstimate.expectedGroups(rows, distinct);
      long bound = (long) Math.min(Integer.MAX_VALUE, Math.ceil(groups * 1.25) + Chunk.CAPACITY);
      if (rows < GROW_ROWS_PER_GROUP * groups || bound <= aggregator.groups()
          || bound * (aggregator.recordBytes() + 4L * Long.BYTES) > workerShare / 4) {
        return false;
      }
      try {
        // at once, not by doubling; a chunk past the bound too, so that the chunk which takes the
        // table over it (and sends it to the partitions) does not first double it
        aggregator.reserveRoom((int) (bound + Chunk.CAPACITY - aggregator.groups()));
      } catch (BudgetExceededException e) {
        return false; // the memory refuses the whole table: partition out as before
      }
      partitionGroups = bound;
      return true;
    }

    /**
     * Writes this worker's table, grown past the cache, to the partitions in memory and clears it, or
     * passes chunks on from now where it folded too few rows a group to be worth a table.
     */
    private void partitionOut() {
      partitioned = true;
      writer(aggregator).add(aggregator, 0);
      boolean poorlyFolded = rowsSinceSpill < PASS_THROUGH_ROWS_PER_GROUP * (long) aggregator.groups();
      rowsSinceSpill = 0;
      if (poorlyFolded) {
        passThrough = true;
        freeTable(); // a small table for a chunk's groups: clearing a cache-sized one each chunk costs
      } else {
        aggregator.clear();
      }
    }

    /**
     * This worker's runs: on disk once the operator spilled, before that in the working memory, going
     * to disk (a spill) when a buffer is refused; made for records like {@code table}'s, the first to
     * be written.
     */
    private PartialRuns.Writer writer(HashAggregator table) {
      if (writer == null) {
        int bits = partitionBits(table);
        int recordBytes = table.recordBytes();
        writer = spilled
            ? new PartialRuns.Writer(directory.newFile("aggregation-worker"), 0, bits, recordBytes)
            : new PartialRuns.Writer(working.memory(), refusal -> directory(refusal, "build").newFile("aggregation-worker"),
                bits, recordBytes);
      }
      return writer;
    }

    /** Pass-through: the chunk's own groups, aggregated in a small table, go straight to the partitions. */
    private void passOn(Chunk chunk, int n) {
      int waits = 0;
      while (true) {
        try {
          table().reserveRoom(n);
          break;
        } catch (BudgetExceededException e) {
          if (!writer.onDisk()) {
            SpillDirectory spills = directory(e, "build");
            writer.toDisk(() -> spills.newFile("aggregation-worker")); // frees the runs it kept in memory
          } else if (threads > 1 && waits++ < MAX_WAITS) {
            // another worker's runs in memory go to disk at its next chunk, now that this one spilled
            ExecutionControl.checkpoint();
            java.util.concurrent.locks.LockSupport.parkNanos(WAIT_NANOS);
          } else {
            throw e.in(OPERATOR, "build", "the memory does not hold even one chunk's groups; give the query more memory");
          }
        }
      }
      aggregator.consume(chunk);
      consumedRows.addAndGet(chunk.count());
      writer(aggregator).add(aggregator, 0);
      aggregator.clear();
    }

    /**
     * Spills groups {@code [from, groups)} of {@code table}, one of this worker's (the others were
     * folded elsewhere), and frees it.
     */
    private void spillRest(HashAggregator table, int from) {
      if (table.groups() > from) {
        writeRun(directory, table, from);
      }
      drop(table);
    }

    /** Frees {@code table}, one of this worker's. */
    private void drop(HashAggregator table) {
      table.close();
      if (table == aggregator) {
        aggregator = null;
      } else {
        sealed.remove(table);
      }
    }

    /** Spills groups {@code [from, groups)} as a run to disk (a writer that kept its runs in memory goes on on disk). */
    private void writeRun(SpillDirectory spills, HashAggregator table, int from) {
      writer(table).toDisk(() -> spills.newFile("aggregation-worker"));
      writer.write(table, from);
      runs.incrementAndGet();
    }

    /** Frees the runs this worker kept in memory (its files go with the spill directory). */
    private void releaseRuns() {
      if (writer != null) {
        writer.releaseMemory();
      }
    }

    /** Frees this worker's (unsealed) table; the next chunk makes a new one ({@link #table}). */
    private void freeTable() {
      if (aggregator != null) {
        aggregator.close();
        aggregator = null;
      }
    }

    @Override
    public void close() {
      freeTable();
      sealed.forEach(HashAggregator::close);
      sealed.clear();
    }
  }

  /**
   * The result of the aggregation over everything {@code finished} (this operator's workers, done
   * consuming) consumed; the workers are closed. The caller owns the table.
   *
   * @throws BudgetExceededException naming the stage where spilling is off or cannot help
   * @throws dev.memwall.core.spill.SpillException naming the operator where the disk fails it
   */
  public Table finish(List<Worker> finished) {
    Table result = spilled || partitioned || mergesLarge(finished) ? partitionedResult(finished, false).all()
        : inMemoryResult(finished);
    return Closing.closeIfFails(result, this::report);
  }

  /**
   * As {@link #finish}, but a result whose groups went out as partitioned runs is handed out a round of
   * partitions at a time as the parts are asked for ({@link PartitionedResult}), so that the output
   * memory holds one round's groups; a result merged in memory is one part. The parts own this operator
   * from now on: closing them closes it; if this throws, the operator stays the caller's.
   */
  public ResultParts finishInParts(List<Worker> finished) {
    if (spilled || partitioned || mergesLarge(finished)) {
      return partitionedResult(finished, true);
    }
    return ResultParts.whole(Closing.closeIfFails(inMemoryResult(finished), this::report), this);
  }

  private void report() {
    if (reports != null) {
      reports.accept(new SpillReport(OPERATOR, working.peakBytes(), directory == null ? 0 : directory.writtenBytes(),
          (int) runs.get(), depth.get(), aggregatedPartitions));
    }
  }

  /**
   * Whether the workers' tables, none partitioned out, merge faster by partitions on all threads than
   * into the largest on one: the serial merge folds every other table's groups; the partitioned one
   * writes every group as a record and folds it, both spread over the threads, which wins where the
   * groups to fold exceed twice the groups a thread's share (writing and folding a group cost about
   * the same), so never for two equal tables; and only for at least {@value #PARTITIONED_MERGE_GROUPS}
   * groups to fold, below which the partitions' tables and buffers cost more than they save. Never
   * where spilling is off, as the partitions' buffers could be refused where the merge would fit.
   */
  private boolean mergesLarge(List<Worker> finished) {
    List<HashAggregator> partials = finished.stream().flatMap(w -> w.tables().stream()).toList();
    if (threads < 2 || partials.size() < 2 || !spill.enabled() || HashAggregator.mergesInPlace(partials)) {
      return false;
    }
    long total = partials.stream().mapToLong(HashAggregator::groups).sum();
    long largest = partials.stream().mapToLong(HashAggregator::groups).max().orElse(0);
    long folded = total - largest;
    return folded >= PARTITIONED_MERGE_GROUPS && folded > 2 * total / threads;
  }

  /** Nothing spilled while consuming: the workers' tables merge in memory, unless that merge itself runs out. */
  private Table inMemoryResult(List<Worker> finished) {
    List<HashAggregator> partials = new ArrayList<>();
    List<Worker> owners = new ArrayList<>();
    for (Worker worker : finished) {
      for (HashAggregator table : worker.tables()) {
        partials.add(table);
        owners.add(worker);
      }
    }
    if (!HashAggregator.mergesInPlace(partials)) {
      HashAggregator first = partials.getFirst();
      for (int p = 1; p < partials.size(); p++) {
        HashAggregator other = partials.get(p);
        for (int g = 0; g < other.groups(); g += Chunk.CAPACITY) {
          int n = Math.min(Chunk.CAPACITY, other.groups() - g);
          try {
            first.reserveRoom(n);
          } catch (BudgetExceededException e) {
            // fold no more: spill what is folded, the rest of this partial and the partials after it
            directory(e, "merge");
            long left = 0;
            for (int q = p; q < partials.size(); q++) {
              left += partials.get(q).groups();
            }
            settlePartitionBits(first.groups(), first.groups() + left);
            owners.get(p).spillRest(other, g);
            for (int q = p + 1; q < partials.size(); q++) {
              owners.get(q).spillRest(partials.get(q), 0);
            }
            return partitionedResult(finished, false).all();
          }
          first.mergeGroups(other, g, n);
          if ((g & ((1 << 16) - 1)) == 0) {
            ExecutionControl.checkpoint();
          }
        }
        owners.get(p).drop(other); // folded: free it before the next grows the first
      }
      partials = List.of(first);
    }
    try {
      return HashAggregator.merge(partials, threads);
    } catch (BudgetExceededException e) {
      throw e.in(OPERATOR, "output", "the result does not fit the memory budget");
    }
  }

  /**
   * The tables left are written as runs too (to disk once the operator spilled, otherwise in memory),
   * each by a thread of its own; every partition of the runs is then aggregated on its own
   * ({@link PartitionedResult}). A result made {@code inParts} leaves half the working memory to the
   * part being written (a partition's table may take the other half), since both may share one budget.
   */
  private PartitionedResult partitionedResult(List<Worker> finished, boolean inParts) {
    List<Runnable> writes = new ArrayList<>();
    for (Worker worker : finished) {
      if (worker.groups() > 0) {
        writes.add(() -> {
          for (HashAggregator table : worker.tables()) {
            if (spilled) {
              worker.writeRun(directory, table, 0);
            } else {
              worker.writer(table).write(table, 0);
            }
          }
          worker.close(); // written: free its tables while the others write theirs
        });
      }
    }
    if (writes.size() > 1) {
      Workers.runAll("memwall-aggregation-tables", writes);
    } else {
      writes.forEach(Runnable::run);
    }
    List<PartialRuns.Writer> writers = new ArrayList<>();
    for (Worker worker : finished) {
      worker.close();
      if (worker.writer != null) {
        worker.writer.flush(); // a passing-through worker's last blocks
        writers.add(worker.writer);
      }
    }
    int recordBytes;
    try (HashAggregator template = newAggregator(new Binder(schema), "output")) {
      recordBytes = template.recordBytes();
    }
    int partitions = 1 << partitionBits;
    aggregatedPartitions = partitions;
    partitionShare = working.memory().availableBytes() / Math.min(threads, partitions) / (inParts ? 2 : 1);
    return new PartitionedResult(this, writers, partitions, recordBytes, this::report);
  }

  /** Frees every worker's table, the spill files and directory, and the working memory (leak-checked). */
  @Override
  public void close() {
    List<AutoCloseable> owned = new ArrayList<>();
    synchronized (workers) {
      owned.addAll(workers);
      for (Worker worker : workers) {
        owned.add(worker::releaseRuns);
      }
    }
    synchronized (this) {
      owned.add(directory);
    }
    owned.add(working);
    Closing.closeAll(owned); // each one, even when one before it fails
  }
}
