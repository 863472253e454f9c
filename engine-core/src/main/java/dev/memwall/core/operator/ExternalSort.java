package dev.memwall.core.operator;

import dev.memwall.core.Closing;
import dev.memwall.core.concurrent.ExecutionControl;
import dev.memwall.core.memory.BudgetExceededException;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.spill.SpillDirectory;
import dev.memwall.core.spill.SpillReport;
import dev.memwall.core.spill.SpillSettings;
import dev.memwall.core.spill.SpilledBatches;
import dev.memwall.core.spill.WorkingMemory;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.Table;
import dev.memwall.core.vector.TableBuilder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.function.Consumer;

/**
 * ORDER BY (and top-N) over rows that arrive in parts, whose memory degrades instead of failing. The
 * workers of a pipeline collect their rows in the operator's {@link WorkingMemory}; a worker whose
 * rows outgrow its {@linkplain #runBytes() share} hands them over as a <em>run</em>, which is sorted
 * (stably, as {@link Sorter} does) and written to disk as a {@link SortedRun}, or, for a top-N whose
 * rows are few against the memory, cut to its best rows in memory (such a top-N does not spill,
 * unless the memory has no room even for its best rows beside a run's). At the end,
 * if nothing spilled, all rows are sorted in memory exactly as before; otherwise the rows left are
 * spilled as runs too and the runs are merged k ways (in several passes when one pass would need
 * more readers than the memory holds), ties going to the earlier run: runs are ordered by worker,
 * then by when they were cut, which is the order an in-memory sort of the workers' rows sees. The
 * last pass builds the result whole ({@link #finish}) or a part at a time, as its reader asks
 * ({@link #finishInParts}).
 *
 * <p>Comparison is {@link Sorter}'s: strings by their UTF-8 bytes, FLOAT64 as SQL orders them
 * ({@code -0.0} equal to {@code 0.0}, NaN last), nulls last in either direction unless a key puts them
 * first. Spilled runs hold strings
 * decoded, so a merged result has plain strings where an in-memory one may keep a dictionary; the
 * values are the same.
 *
 * <p>Memory: the working memory holds the rows collected, the runs being written and the merge's
 * readers, and also the heap arrays that sort the rows ({@link Sorter}'s references, charged to its
 * budget while a run or the in-memory result is sorted): a worker counts those references among the
 * bytes it holds when it decides to cut a run, so that a run that fills its share can still be
 * sorted and written; without spilling, rows whose references do not fit fail by name instead of
 * exhausting the heap.
 *
 * <p>Where spilling is off, the budget error names the operator and its stage: {@code collect}
 * (buffering rows), {@code run} (sorting and writing one), {@code merge} or {@code output}.
 *
 * <p>Ownership: the operator owns its working memory, its runs and its spill directory, and frees them
 * on {@link #close}, however it ended. The result is allocated from the output memory and is the
 * caller's. Thread safety: {@link #spill} may be called by the workers at once; {@link #finish} and
 * {@link #close} on the thread that runs the plan.
 */
public final class ExternalSort implements AutoCloseable {
  /** The operator's name in errors and reports. */
  public static final String OPERATOR = "sort";
  /** A top-N whose rows fill at most 1/this of a worker's share keeps its best rows in memory instead of spilling. */
  private static final int TOP_N_SHARE = 16;

  private final EngineMemory output;
  private final WorkingMemory working;
  private final SpillSettings spill;
  private final List<SortKey> keys;
  private final long limit;
  private final Consumer<SpillReport> reports;
  private final List<String> names;
  private final List<ColumnType> types;
  private final long runBytes;
  private final long rowBytes;
  private final int batchRows;
  /** Whether this is a top-N whose best rows fit the memory many times over: it keeps them instead of spilling runs. */
  private final boolean keepsBest;
  private final List<Run> runs = new ArrayList<>();
  private SpillDirectory directory;
  private Table best;
  private int passes;
  private boolean closed;

  /** A spilled run and where it came from, for the order of ties. */
  private record Run(int worker, long sequence, SortedRun sorted) {}

  /**
   * @param output where the result is allocated
   * @param working the operator's working memory (rows collected, runs being written, merge readers)
   * @param names the rows' column names
   * @param types the rows' column types
   * @param limit the most rows returned ({@link Long#MAX_VALUE}: all)
   * @param threads the workers collecting rows, which share the working memory
   * @param reports receives the operator's {@link SpillReport} when it finishes; may be null
   */
  public ExternalSort(EngineMemory output, WorkingMemory working, SpillSettings spill, List<String> names,
      List<ColumnType> types, List<SortKey> keys, long limit, int threads, Consumer<SpillReport> reports) {
    this.output = output;
    this.names = List.copyOf(names);
    this.types = List.copyOf(types);
    this.working = working;
    this.spill = spill;
    this.keys = List.copyOf(keys);
    this.limit = limit;
    this.reports = reports;
    long share = working.memory().availableBytes() / Math.max(1, threads);
    this.runBytes = share / 2; // the other half: a run being sorted and written, readers while merging
    this.rowBytes = rowBytes(types);
    long rows = Math.max(64, Math.min(TableBuilder.BATCH_ROWS, runBytes / (8 * rowBytes)));
    this.batchRows = Integer.highestOneBit((int) rows);
    this.keepsBest = limit != Long.MAX_VALUE && limit <= share / (TOP_N_SHARE * rowBytes);
  }

  /**
   * Estimated bytes of a row of {@code types} in Arrow batches (strings at 24 bytes), with the
   * {@linkplain Sorter#REFERENCE_BYTES heap} that sorting it takes, which is charged to the working
   * memory too.
   */
  private static long rowBytes(List<ColumnType> types) {
    long bytes = 1 + Sorter.REFERENCE_BYTES;
    for (ColumnType type : types) {
      bytes += switch (type.kind()) {
        case BOOLEAN -> 1;
        case INT32, DATE -> 4;
        case INT64, DECIMAL, FLOAT64, TIMESTAMP -> 8;
        case STRING -> 24;
      };
    }
    return bytes;
  }

  /** The working memory rows are collected in. */
  public EngineMemory memory() {
    return working.memory();
  }

  /** Rows per batch in which workers collect rows (small batches allocate in small steps). */
  public int batchRows() {
    return batchRows;
  }

  /**
   * Whether a worker holding {@code heldRows} rows in {@code heldBytes} should hand them over as a run
   * before it takes more: when a few more batches (of the rows' measured or estimated size) could take
   * it past its share. The references that sorting the rows takes ({@link Sorter#REFERENCE_BYTES} a
   * row, charged to the working memory while the run is sorted and written) count as held, so that a
   * run that fills the share can still be sorted.
   */
  public boolean runFull(long heldBytes, long heldRows) {
    long held = heldBytes + Sorter.REFERENCE_BYTES * heldRows;
    long perRow = Math.max(rowBytes, heldRows == 0 ? 0 : held / heldRows);
    return heldBytes > 0 && held + 4L * batchRows * perRow > runBytes && spill.enabled();
  }

  /** The bytes of rows, with the references that sort them, one worker may collect before it cuts a run. */
  public long runBytes() {
    return runBytes;
  }

  /**
   * Takes {@code run} (rows collected by worker {@code worker}, in order; its {@code sequence}-th run)
   * and closes it: a top-N with a small limit keeps its best rows, otherwise it is sorted and
   * spilled.
   */
  public void spill(int worker, long sequence, Table run) {
    try (run) {
      if (keepsBest) {
        try {
          keepBest(run);
          return;
        } catch (BudgetExceededException e) {
          // the best rows and this run's do not fit beside each other right now: spill the run instead
        }
      }
      SortedRun sorted = write(run, directory(null, "run"));
      synchronized (runs) {
        runs.add(new Run(worker, sequence, sorted));
      }
    } catch (BudgetExceededException e) {
      throw e.in(OPERATOR, "run", "the memory does not hold a run being sorted and written; give the query more"
          + " memory");
    }
  }

  /** Folds the best rows of {@code run} into the best kept so far. */
  private void keepBest(Table run) {
    Table top = Sorter.sort(run, keys, limit, working.memory());
    synchronized (this) {
      if (best == null) {
        best = top;
        return;
      }
      Table merged;
      try {
        merged = Sorter.sort(List.of(best, top), keys, limit, working.memory());
      } finally {
        top.close(); // refused: the best so far stay as they were
      }
      best.close();
      best = merged;
    }
  }

  private synchronized SpillDirectory directory(BudgetExceededException refusal, String stage) {
    if (!spill.enabled()) {
      throw refusal.in(OPERATOR, stage, "spilling is off; give the query more memory or let it spill");
    }
    if (directory == null) {
      directory = spill.newDirectory(OPERATOR);
    }
    return directory;
  }

  /** Sorts {@code run} and writes it as a run. */
  private SortedRun write(Table run, SpillDirectory spills) {
    try (SortedRun.Writer writer = new SortedRun.Writer(spills.newFile("sort-run"), names, types,
        working.memory().arrow(), batchRows)) {
      Sorter.forEachSorted(run, keys, working.memory(), writer::append);
      return writer.finish();
    }
  }

  /**
   * The sorted result of every run handed over and of the rows each worker still holds
   * ({@code partsByWorker}, in worker order; the parts are emptied here and stay the caller's to
   * close). Without a spill this is the in-memory sort of all the parts as one table. The caller owns
   * the result.
   */
  public Table finish(List<List<TableBuilder>> partsByWorker) {
    return Closing.closeIfFails(spilled() ? merged(partsByWorker) : inMemory(partsByWorker, false), this::report);
  }

  /**
   * As {@link #finish}, but a result that spilled is handed out in parts of at most {@link #batchRows}
   * rows (sized to the working memory), each merged from the runs when it is asked for, so that the
   * output memory holds one part at a time and the working memory the merge's readers, however large
   * the result (a result that did not spill is one part, unless the memory refuses its sorted copy: then
   * the rows are spilled as runs, and merged in parts, rather than failing). The output owns this operator
   * from now on: closing it closes this; if this throws, the operator stays the caller's.
   */
  public ResultParts finishInParts(List<List<TableBuilder>> partsByWorker) {
    if (!spilled()) {
      Table sorted = inMemory(partsByWorker, true);
      if (sorted != null) {
        return ResultParts.whole(Closing.closeIfFails(sorted, this::report), this);
      }
    }
    return new MergedParts(openMerge(partsByWorker));
  }

  private boolean spilled() {
    synchronized (runs) {
      return !runs.isEmpty();
    }
  }

  private void report() {
    if (reports != null) {
      reports.accept(new SpillReport(OPERATOR, working.peakBytes(),
          directory == null ? 0 : directory.writtenBytes(), runs.size(), passes));
    }
  }

  /**
   * Nothing spilled: every worker's rows, and a top-N's best rows if it kept some, sorted in memory. Where
   * the memory refuses the sorted copy beside the rows and {@code orSpill} (a host that granted less than
   * the budget's room promised), the rows go out as runs instead and this returns null.
   */
  private Table inMemory(List<List<TableBuilder>> partsByWorker, boolean orSpill) {
    List<Table> held = new ArrayList<>(); // the workers' rows, this method's until closed or spilled
    try {
      if (best == null) {
        held.add(collected(partsByWorker.stream().flatMap(List::stream).toList()));
      } else {
        for (List<TableBuilder> parts : partsByWorker) {
          held.add(collected(parts));
        }
      }
      List<Table> inputs = new ArrayList<>();
      if (best != null) {
        inputs.add(best);
        held.stream().filter(t -> t.rowCount() > 0).forEach(inputs::add);
      } else {
        inputs.addAll(held);
      }
      try {
        return Sorter.sort(inputs, keys, limit, output, working.memory());
      } catch (BudgetExceededException e) {
        if (!orSpill || !spill.enabled()) {
          throw e.in(OPERATOR, "output", "the result does not fit the memory budget");
        }
      }
      spillInstead(held);
      return null;
    } finally {
      held.forEach(Table::close);
    }
  }

  /**
   * Spills a top-N's kept rows and the {@code collected} rows (one table per worker, or one of all
   * workers' rows, in worker order; each removed as it goes) as runs, in the order an in-memory sort
   * sees them. The memory just refused a sorted copy beside the rows, so each table goes to disk first as
   * it is, which takes no memory ({@link SpilledBatches}), and comes back a batch at a time, each batch a
   * run.
   */
  private void spillInstead(List<Table> collected) {
    if (best != null) {
      Table kept = best;
      best = null;
      spill(-1, 0, kept);
    }
    for (int worker = 0; !collected.isEmpty(); worker++) {
      Table rows = collected.removeFirst();
      if (rows.rowCount() == 0) {
        rows.close();
      } else {
        spillUnsorted(worker, rows);
      }
    }
  }

  /** Writes worker {@code worker}'s {@code rows} out as they are and closes them, then spills each batch as a run. */
  private void spillUnsorted(int worker, Table rows) {
    SpilledBatches unsorted;
    try (rows) {
      unsorted = SpilledBatches.write(directory(null, "run").newFile("sort-collected"), rows, 0, OPERATOR);
    }
    try (unsorted) {
      long sequence = 0;
      for (Table batch = unsorted.next(working.memory().arrow()); batch != null;
          batch = unsorted.next(working.memory().arrow())) {
        spill(worker, sequence++, batch);
      }
    }
  }

  /** One table of {@code parts} (in the working memory). */
  private static Table collected(List<TableBuilder> parts) {
    try {
      return TableBuilder.concatenate(parts);
    } catch (BudgetExceededException e) {
      throw e.in(OPERATOR, "collect", "the memory does not hold the rows collected");
    }
  }

  /** The spilled result whole: every part of the last merge pass in one table of the output memory. */
  private Table merged(List<List<TableBuilder>> partsByWorker) {
    try (FinalMerge merge = openMerge(partsByWorker);
        TableBuilder builder = new TableBuilder(names, types, null, output.arrow())) {
      merge.appendTo(builder, names.size(), limit);
      return builder.build();
    } catch (BudgetExceededException e) {
      throw e.in(OPERATOR, "output", "the result does not fit the memory budget");
    }
  }

  /**
   * Spills the rows the workers still hold and a top-N's kept rows as runs, merges the runs in
   * passes until one pass can read them all, and opens that last pass.
   */
  private FinalMerge openMerge(List<List<TableBuilder>> partsByWorker) {
    for (int w = 0; w < partsByWorker.size(); w++) {
      Table rest = collected(partsByWorker.get(w));
      if (rest.rowCount() == 0) {
        rest.close();
      } else {
        spill(w, Long.MAX_VALUE, rest);
      }
    }
    if (best != null) {
      Table kept = best;
      best = null;
      spill(-1, 0, kept);
    }
    List<SortedRun> sorted;
    synchronized (runs) {
      runs.sort(Comparator.comparingInt(Run::worker).thenComparingLong(Run::sequence));
      sorted = new ArrayList<>(runs.stream().map(Run::sorted).toList());
    }
    SpillDirectory spills = directory(null, "merge");
    while (sorted.size() > fanIn(sorted)) {
      passes++;
      int fanIn = fanIn(sorted);
      List<SortedRun> next = new ArrayList<>();
      for (int from = 0; from < sorted.size(); from += fanIn) {
        List<SortedRun> group = sorted.subList(from, Math.min(sorted.size(), from + fanIn));
        next.add(group.size() == 1 ? group.getFirst() : mergeIntoRun(group, spills));
      }
      sorted = next;
    }
    passes++;
    return new FinalMerge(new RunMerge(sorted, keys, working.memory().arrow()), sorted);
  }

  /** The last merge pass: its readers, and the runs they read, which closing it deletes. */
  private record FinalMerge(RunMerge merge, List<SortedRun> runs) implements AutoCloseable {
    /** Appends the next rows in order to {@code builder}, at most {@code rows}; false when none was left. */
    boolean appendTo(TableBuilder builder, int columns, long rows) {
      long n = 0;
      for (; n < rows && merge.next(); n++) {
        for (int c = 0; c < columns; c++) {
          builder.appendFrom(merge.batch().column(c), merge.row());
        }
        builder.endRow();
      }
      return n > 0;
    }

    @Override
    public void close() {
      try {
        merge.close();
      } finally {
        Closing.closeAll(runs);
      }
    }
  }

  /** A spilled result, merged a part at a time as it is read ({@link #finishInParts}). */
  private final class MergedParts implements ResultParts {
    private FinalMerge merge;
    private long left = limit;

    MergedParts(FinalMerge merge) {
      this.merge = merge;
    }

    @Override
    public Table next() {
      if (merge == null || left == 0) {
        finished();
        return null;
      }
      try (TableBuilder builder = new TableBuilder(names, types, null, output.arrow())) {
        if (!merge.appendTo(builder, names.size(), Math.min(left, batchRows))) {
          finished();
          return null;
        }
        Table part = builder.build();
        left -= part.rowCount();
        return part;
      } catch (BudgetExceededException e) {
        throw e.in(OPERATOR, "output", "one part of the merged result does not fit the memory budget");
      }
    }

    /** The last part was read: the merge is done, and the operator reports once. */
    private void finished() {
      if (merge != null) {
        FinalMerge done = merge;
        merge = null;
        done.close();
        report();
      }
    }

    @Override
    public void close() {
      Closing.closeAll(Arrays.asList(merge, ExternalSort.this));
      merge = null;
    }
  }

  /** Merges {@code group} (consecutive runs, in order) into one new run, deleting them. */
  private SortedRun mergeIntoRun(List<SortedRun> group, SpillDirectory spills) {
    try (RunMerge merge = new RunMerge(group, keys, working.memory().arrow())) {
      try (SortedRun.Writer writer = new SortedRun.Writer(spills.newFile("sort-merge"), names, types,
          working.memory().arrow(), batchRows)) {
        while (merge.next()) {
          writer.append(merge.batch(), merge.row());
        }
        return writer.finish();
      }
    } catch (BudgetExceededException e) {
      throw e.in(OPERATOR, "merge", "the memory does not hold the readers of a merge pass; give the query more memory");
    } finally {
      group.forEach(SortedRun::close);
    }
  }

  /** How many runs one merge may read at once: a batch per reader in half of the memory free, at least 2. */
  private int fanIn(List<SortedRun> sorted) {
    long rows = 0;
    long bytes = 0;
    for (SortedRun run : sorted) {
      rows += run.rows();
      bytes += run.bytes();
    }
    long batchBytes = Math.max(1, 2 * batchRows * Math.max(1, bytes / Math.max(1, rows)));
    long free = working.memory().availableBytes();
    return (int) Math.clamp(free / 2 / batchBytes, 2, 1024);
  }

  /** Frees every run, the kept rows, the spill directory and the working memory (leak-checked). Idempotent. */
  @Override
  public void close() {
    List<AutoCloseable> owned = new ArrayList<>();
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
    }
    synchronized (runs) {
      runs.forEach(run -> owned.add(run.sorted()));
      runs.clear();
    }
    synchronized (this) {
      owned.add(best);
      best = null;
      owned.add(directory);
    }
    owned.add(working);
    Closing.closeAll(owned); // each one, even when one before it fails
  }
}
