package dev.memwall.tpch.data;

import dev.memwall.core.CacheDirectory;
import dev.memwall.core.ipc.ArrowFiles;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.stats.StatisticsFile;
import dev.memwall.core.vector.Table;
import dev.memwall.tpch.data.TpchSchema.ColumnLayout;
import io.trino.tpch.TpchColumn;
import io.trino.tpch.TpchEntity;
import io.trino.tpch.TpchTable;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import me.tongfei.progressbar.ConsoleProgressBarConsumer;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.dictionary.Dictionary;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Generates the eight TPC-H tables with {@code io.trino.tpch} (an exact port of dbgen) into Arrow IPC
 * files, laid out as {@link TpchSchema} says, in a data directory {@code <cache>/sf<N>/}.
 *
 * <p>Large tables are split into parts of about {@link #DEFAULT_ROWS_PER_PART} rows (dbgen's
 * {@code -C/-S} split), one file each ({@code lineitem-1.arrow}, ...), generated in parallel on
 * {@code threads} workers; record batches hold {@link #BATCH_ROWS} rows. The {@link TpchManifest} is
 * written last. {@link #ensure} reuses a complete directory and regenerates any other from scratch.
 *
 * <p>Memory: generation allocates from the given {@link EngineMemory} and frees everything before
 * returning, also on failure; a worker holds one part in memory at a time.
 *
 * <p>Thread safety: instances are immutable. Generators and readers of one directory, in this process
 * or others, are serialized by its {@link DataDirectoryLock}.
 *
 * <p>Bad input: a scale factor that is not positive and finite gives {@link IllegalArgumentException};
 * a directory that cannot be created or written gives {@link DataDirectoryException} naming it.
 */
public final class TpchDataGenerator {
  /** Rows per Arrow record batch. */
  public static final int BATCH_ROWS = 128 * 1024;
  /** Target rows per file for the large tables. */
  public static final long DEFAULT_ROWS_PER_PART = 1_500_000;

  private final int threads;
  private final boolean quiet;
  private final long rowsPerPart;

  /**
   * @param threads generator threads, at least 1
   * @param quiet no progress bar (one is shown on stderr only when it is a terminal anyway)
   */
  public TpchDataGenerator(int threads, boolean quiet) {
    this(threads, quiet, DEFAULT_ROWS_PER_PART);
  }

  TpchDataGenerator(int threads, boolean quiet, long rowsPerPart) {
    if (threads < 1) {
      throw new IllegalArgumentException("threads must be at least 1, got " + threads);
    }
    this.threads = threads;
    this.quiet = quiet;
    this.rowsPerPart = rowsPerPart;
  }

  /** The default cache root, {@link CacheDirectory#root()}. */
  public static Path defaultCacheDirectory() {
    return CacheDirectory.root();
  }

  /** The data directory of {@code scaleFactor} under {@code cacheRoot}. */
  public static Path dataDirectory(Path cacheRoot, double scaleFactor) {
    return cacheRoot.resolve(TpchManifest.directoryName(checkScaleFactor(scaleFactor)));
  }

  /**
   * @throws IllegalArgumentException unless {@code scaleFactor} is positive and finite
   */
  public static double checkScaleFactor(double scaleFactor) {
    if (!(scaleFactor > 0) || Double.isInfinite(scaleFactor)) {
      throw new IllegalArgumentException("scale factor must be positive, got " + scaleFactor);
    }
    return scaleFactor;
  }

  /**
   * Makes sure {@code dir} holds a complete data set of {@code scaleFactor}: returns its manifest
   * when it does, otherwise deletes the data files there and generates the set. Checks under a shared
   * {@link DataDirectoryLock} and generates under the exclusive one, checking again once it has it: of
   * several runs (threads or processes) that find the set missing, one generates and the others wait
   * for it and use its files.
   */
  public TpchManifest ensure(Path dir, double scaleFactor, EngineMemory memory) throws IOException {
    checkScaleFactor(scaleFactor);
    try (DataDirectoryLock reading = DataDirectoryLock.shared(dir)) {
      var existing = TpchManifest.readValid(dir, scaleFactor);
      if (existing.isPresent()) {
        return existing.get();
      }
    }
    checkCapacity(dir, scaleFactor, totalMemoryBytes());
    try (DataDirectoryLock writing = DataDirectoryLock.exclusive(dir)) {
      var existing = TpchManifest.readValid(dir, scaleFactor);
      if (existing.isPresent()) {
        return existing.get(); // generated by another run while this one waited
      }
      return generateLocked(dir, scaleFactor, memory);
    }
  }

  /**
   * Generates the data set of {@code scaleFactor} into {@code dir} from scratch, under the exclusive
   * {@link DataDirectoryLock} (waiting while other runs read or generate it).
   *
   * @throws IllegalStateException if this thread has the directory open (a {@link TpchDatabase})
   */
  public TpchManifest generate(Path dir, double scaleFactor, EngineMemory memory) throws IOException {
    checkScaleFactor(scaleFactor);
    checkCapacity(dir, scaleFactor, totalMemoryBytes());
    try (DataDirectoryLock writing = DataDirectoryLock.exclusive(dir)) {
      return generateLocked(dir, scaleFactor, memory);
    }
  }

  /**
   * Repairs the data file {@code part} of {@code table} in the complete set in {@code dir}: generates
   * it again (dbgen's output is deterministic) under the exclusive {@link DataDirectoryLock}, and keeps
   * it when its checksums equal the manifest's; otherwise (a manifest that does not describe what
   * generation gives) generates the whole set again. A set without a valid manifest is generated.
   *
   * @param why what was wrong with the file, printed with the repair unless quiet
   */
  public void repair(Path dir, double scaleFactor, String table, int part, String why, EngineMemory memory)
      throws IOException {
    checkScaleFactor(scaleFactor);
    try (DataDirectoryLock writing = DataDirectoryLock.exclusive(dir)) {
      var manifest = TpchManifest.readValid(dir, scaleFactor);
      TpchManifest.TableFiles files = manifest.map(m -> m.tables().get(TpchSchema.checkName(table))).orElse(null);
      if (files == null || part < 1 || part > files.files()) {
        generateLocked(dir, scaleFactor, memory);
        return;
      }
      Path file = TpchManifest.file(dir, table, part);
      WrittenPart written;
      try (ProgressBar progress = progressBar(scaleFactor, estimatedRows(table, scaleFactor) / files.files())) {
        written = writePart(dir, table, part, files.files(), scaleFactor, memory, progress,
            new java.util.concurrent.atomic.AtomicBoolean());
      }
      boolean same = manifest.get().checksums(file).map(written.checksums()::equals).orElse(false);
      if (!quiet) {
        System.err.println("memwall: repaired " + file + " by generating it again (" + why + ")"
            + (same ? "" : "; its checksums still differ from the manifest's, so the whole set is generated again"));
      }
      if (!same) {
        generateLocked(dir, scaleFactor, memory);
      }
    }
  }

  /**
   * Generates the set into {@code dir} under its exclusive lock. On failure (a full disk, for one)
   * removes every data file it wrote, so that a failed run leaves no half data set taking the disk's
   * room; without a manifest no run would take one for a complete set in any case.
   */
  private TpchManifest generateLocked(Path dir, double scaleFactor, EngineMemory memory) throws IOException {
    prepare(dir);
    try {
      return generatePrepared(dir, scaleFactor, memory);
    } catch (IOException | RuntimeException | Error e) {
      try {
        deleteDataFiles(dir);
      } catch (IOException suppressed) {
        e.addSuppressed(suppressed);
      }
      throw e;
    }
  }

  private TpchManifest generatePrepared(Path dir, double scaleFactor, EngineMemory memory) throws IOException {
    record Task(String table, int part, int parts) {}
    List<Task> tasks = new ArrayList<>();
    Map<String, Integer> partsPerTable = new LinkedHashMap<>();
    long estimatedRows = 0;
    for (String table : TpchSchema.TABLE_NAMES) {
      long estimate = estimatedRows(table, scaleFactor);
      estimatedRows += estimate;
      int parts = (int) Math.max(1, (estimate + rowsPerPart - 1) / rowsPerPart);
      if (table.equals("nation") || table.equals("region")) {
        parts = 1;
      }
      partsPerTable.put(table, parts);
      for (int part = 1; part <= parts; part++) {
        tasks.add(new Task(table, part, parts));
      }
    }
    ExecutorService executor = Executors.newFixedThreadPool(threads, runnable -> {
      Thread thread = new Thread(runnable, "tpch-generator");
      thread.setDaemon(true);
      return thread;
    });
    Map<String, Long> rows = new HashMap<>();
    Map<String, FileChecksums> checksums = new HashMap<>();
    List<StatisticsFile.Part> statistics = new ArrayList<>();
    java.util.concurrent.atomic.AtomicBoolean cancelled = new java.util.concurrent.atomic.AtomicBoolean();
    try (ProgressBar progress = progressBar(scaleFactor, estimatedRows)) {
      List<Future<WrittenPart>> futures = new ArrayList<>();
      for (Task task : tasks) {
        futures.add(executor.submit(() -> {
          try {
            return writePart(dir, task.table(), task.part(), task.parts(), scaleFactor, memory, progress, cancelled);
          } catch (Exception | Error e) {
            cancelled.set(true); // the other workers stop at their next batch
            throw e;
          }
        }));
      }
      Exception failure = null;
      for (int i = 0; i < tasks.size(); i++) {
        try {
          WrittenPart written = await(futures.get(i));
          rows.merge(tasks.get(i).table(), written.rows(), Long::sum);
          checksums.put(TpchManifest.fileName(tasks.get(i).table(), tasks.get(i).part()), written.checksums());
          statistics.add(written.statistics());
        } catch (IOException | RuntimeException e) {
          // Report the failure that stopped the run, not the cancellations it caused.
          if (failure == null || failure instanceof java.util.concurrent.CancellationException) {
            failure = e;
          }
        }
      }
      if (failure instanceof IOException io) {
        throw io;
      } else if (failure != null) {
        throw (RuntimeException) failure;
      }
    } finally {
      // Workers stop at their next batch; wait for them so no buffer outlives this call.
      cancelled.set(true);
      executor.shutdown();
      awaitTermination(executor);
    }
    Map<String, TpchManifest.TableFiles> tables = new LinkedHashMap<>();
    partsPerTable.forEach((table, parts) -> tables.put(table, new TpchManifest.TableFiles(rows.get(table), parts)));
    TpchManifest manifest = new TpchManifest(TpchManifest.FORMAT_VERSION, scaleFactor, tables, checksums);
    try {
      StatisticsFile.write(dir, statistics); // before the manifest: a complete set has its statistics
      manifest.write(dir);
    } catch (FileSystemException e) {
      throw new DataDirectoryException(dir, "cannot write its manifest (" + e.getMessage() + ")", e);
    }
    return manifest;
  }

  private static void awaitTermination(ExecutorService executor) {
    boolean interrupted = false;
    while (true) {
      try {
        if (executor.awaitTermination(1, java.util.concurrent.TimeUnit.MINUTES)) {
          break;
        }
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  private static WrittenPart await(Future<WrittenPart> future) throws IOException {
    try {
      return future.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("TPC-H generation interrupted", e);
    } catch (ExecutionException e) {
      switch (e.getCause()) {
        case IOException io -> throw io;
        case RuntimeException runtime -> throw runtime;
        case Error error -> throw error;
        default -> throw new IOException(e.getCause());
      }
    }
  }

  private ProgressBar progressBar(double scaleFactor, long estimatedRows) {
    ProgressBarBuilder builder = new ProgressBarBuilder()
        .setTaskName("TPC-H " + TpchManifest.directoryName(scaleFactor))
        .setInitialMax(estimatedRows)
        .setUnit(" Mrows", 1_000_000)
        .setUpdateIntervalMillis(250);
    if (quiet || System.console() == null || !System.console().isTerminal()) {
      builder.setConsumer(new me.tongfei.progressbar.ProgressBarConsumer() {
        @Override public int getMaxRenderedLength() { return 80; }
        @Override public void accept(String rendered) {}
        @Override public void close() {}
      });
    } else {
      builder.setConsumer(new ConsoleProgressBarConsumer(System.err));
    }
    return builder.build();
  }

  /** Arrow bytes per unit of scale factor, measured at SF 1 (875 MiB) and rounded up. */
  static final long BYTES_PER_SCALE_FACTOR = 920L << 20;

  /**
   * Refuses, before anything is written, a scale factor whose data would not fit the free disk
   * space under {@code dir}, or would exceed the machine's memory (the queries map the files and
   * would page against the disk, which measures the disk, not memwall).
   *
   * @throws DataDirectoryException naming the sizes
   */
  static void checkCapacity(Path dir, double scaleFactor, long memoryBytes) throws IOException {
    long needed = (long) Math.ceil(scaleFactor * BYTES_PER_SCALE_FACTOR);
    Path existing = dir.toAbsolutePath();
    while (existing != null && !Files.exists(existing)) {
      existing = existing.getParent();
    }
    if (existing != null) {
      long usable = Files.getFileStore(existing).getUsableSpace() + bytesOfDataFiles(dir);
      if (needed > usable) {
        throw new DataDirectoryException(dir, "SF " + scaleFactor + " needs about " + size(needed)
            + " of disk, only " + size(usable) + " are free there", null);
      }
    }
    if (needed > memoryBytes) {
      throw new DataDirectoryException(dir, "SF " + scaleFactor + " is about " + size(needed)
          + " of data, more than this machine's " + size(memoryBytes) + " of memory", null);
    }
  }

  /** {@code bytes} in GiB, or in MiB below one GiB (a small disk's "0.0 GiB" said nothing). */
  static String size(long bytes) {
    double gib = bytes / (double) (1L << 30);
    return gib >= 1 ? String.format(java.util.Locale.ROOT, "%.1f GiB", gib)
        : String.format(java.util.Locale.ROOT, "%.1f MiB", bytes / (double) (1L << 20));
  }

  /** The bytes of data files already in {@code dir}, which generation replaces. */
  private static long bytesOfDataFiles(Path dir) throws IOException {
    if (!Files.isDirectory(dir)) {
      return 0;
    }
    long bytes = 0;
    try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, "*.arrow")) {
      for (Path file : files) {
        bytes += Files.size(file);
      }
    }
    return bytes;
  }

  private static long totalMemoryBytes() {
    return ((com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory.getOperatingSystemMXBean())
        .getTotalMemorySize();
  }

  /** Creates {@code dir} and removes what an earlier, incomplete run left there. */
  private static void prepare(Path dir) throws IOException {
    try {
      Files.createDirectories(dir);
      deleteDataFiles(dir);
      Path probe = Files.createTempFile(dir, ".write-probe", ".tmp");
      Files.delete(probe);
    } catch (FileSystemException | SecurityException e) {
      throw new DataDirectoryException(dir, "cannot create or write it (" + e.getMessage() + ")", e);
    }
  }

  /** Removes the manifest and every data file (complete or temporary) from {@code dir}. */
  private static void deleteDataFiles(Path dir) throws IOException {
    try (DirectoryStream<Path> files = Files.newDirectoryStream(dir)) {
      for (Path file : files) {
        String name = file.getFileName().toString();
        if (name.endsWith(".arrow") || name.endsWith(".arrow.tmp") || name.startsWith(TpchManifest.FILE_NAME)
            || name.startsWith(StatisticsFile.FILE_NAME)) {
          Files.delete(file);
        }
      }
    }
  }

  static long estimatedRows(String table, double scaleFactor) {
    return switch (table) {
      case "lineitem" -> (long) (6_000_000 * scaleFactor);
      case "orders" -> (long) (1_500_000 * scaleFactor);
      case "customer" -> (long) (150_000 * scaleFactor);
      case "part" -> (long) (200_000 * scaleFactor);
      case "partsupp" -> (long) (800_000 * scaleFactor);
      case "supplier" -> (long) (10_000 * scaleFactor);
      case "nation" -> 25;
      case "region" -> 5;
      default -> throw new IllegalArgumentException("unknown TPC-H table " + table);
    };
  }

  /** What writing one part gave: its rows, and the checksums and statistics of the file as written. */
  private record WrittenPart(long rows, FileChecksums checksums, StatisticsFile.Part statistics) {}

  private static WrittenPart writePart(Path dir, String table, int part, int parts, double scaleFactor,
      EngineMemory memory, ProgressBar progress, java.util.concurrent.atomic.AtomicBoolean cancelled)
      throws IOException {
    if (cancelled.get()) {
      throw new java.util.concurrent.CancellationException("generation of " + table + " cancelled");
    }
    BufferAllocator allocator = memory.arrow();
    Schema schema = TpchSchema.schema(table);
    List<ColumnLayout> columns = TpchSchema.columns(table);
    Map<Long, Dictionary> dictionaries = new HashMap<>();
    List<VectorSchemaRoot> roots = new ArrayList<>();
    long rows = 0;
    BatchBuilder builder = null;
    try {
      for (int i = 0; i < columns.size(); i++) {
        ColumnLayout column = columns.get(i);
        if (column.dictionaryEncoded()) {
          Field field = schema.getFields().get(i);
          VarCharVector values = new VarCharVector(column.name() + "-dictionary", allocator);
          dictionaries.put(field.getDictionary().getId(), new Dictionary(values, field.getDictionary()));
          List<String> domain = column.dictionary();
          values.allocateNew(domain.size());
          for (int code = 0; code < domain.size(); code++) {
            values.setSafe(code, domain.get(code).getBytes(StandardCharsets.UTF_8));
          }
          values.setValueCount(domain.size());
        }
      }
      builder = new BatchBuilder(schema, columns, allocator);
      TpchTable<?> generatorTable = TpchSchema.generatorTable(table);
      for (TpchEntity entity : generatorTable.createGenerator(scaleFactor, part, parts)) {
        if (builder.rows() == BATCH_ROWS) {
          if (cancelled.get()) {
            throw new java.util.concurrent.CancellationException("generation of " + table + " cancelled");
          }
          roots.add(builder.finish());
          progress.stepBy(BATCH_ROWS);
          builder = new BatchBuilder(schema, columns, allocator);
        }
        builder.append(entity);
        rows++;
      }
      progress.stepBy(builder.rows());
      if (builder.rows() > 0 || roots.isEmpty()) {
        roots.add(builder.finish());
      }
      try (Table generated = Table.own(schema, roots, dictionaries)) {
        roots.clear();
        dictionaries.clear();
        ArrowFiles.write(TpchManifest.file(dir, table, part), generated, allocator);
      }
      Path written = TpchManifest.file(dir, table, part);
      try (Table mapped = ArrowFiles.map(written, memory)) { // the file as written, structure validated
        FileChecksums checksums = FileChecksums.of(written, mapped);
        return new WrittenPart(rows, checksums, StatisticsFile.Part.of(written, mapped, checksums.file()));
      }
    } catch (FileSystemException e) {
      throw new DataDirectoryException(dir, "cannot write " + table + " part " + part + " (" + e.getMessage() + ")", e);
    } finally {
      if (builder != null) {
        builder.close();
      }
      roots.forEach(VectorSchemaRoot::close);
      dictionaries.values().forEach(d -> d.getVector().close());
    }
  }

  /** Fills one record batch row by row; owns its vectors until {@link #finish}. */
  private static final class BatchBuilder implements AutoCloseable {
    private final VectorSchemaRoot root;
    private final List<ColumnLayout> columns;
    private final List<Map<String, Integer>> codes = new ArrayList<>();
    private final List<TpchColumn<TpchEntity>> sources = new ArrayList<>();
    private int rows;
    private boolean finished;

    BatchBuilder(Schema schema, List<ColumnLayout> columns, BufferAllocator allocator) {
      this.root = VectorSchemaRoot.create(schema, allocator);
      this.columns = columns;
      try {
        allocate();
      } catch (RuntimeException | Error e) {
        root.close(); // the vectors allocated before the budget refused one
        throw e;
      }
    }

    @SuppressWarnings("unchecked")
    private void allocate() {
      for (int i = 0; i < columns.size(); i++) {
        ColumnLayout column = columns.get(i);
        FieldVector vector = root.getVector(i);
        if (vector instanceof VarCharVector varChar) {
          varChar.allocateNew(BATCH_ROWS * 32L, BATCH_ROWS);
        } else {
          vector.setInitialCapacity(BATCH_ROWS);
          vector.allocateNew();
        }
        sources.add((TpchColumn<TpchEntity>) column.source());
        Map<String, Integer> lookup = null;
        if (column.dictionaryEncoded()) {
          lookup = new HashMap<>();
          for (int code = 0; code < column.dictionary().size(); code++) {
            lookup.put(column.dictionary().get(code), code);
          }
        }
        codes.add(lookup);
      }
    }

    int rows() {
      return rows;
    }

    void append(TpchEntity entity) {
      int row = rows;
      for (int i = 0; i < columns.size(); i++) {
        ColumnLayout column = columns.get(i);
        TpchColumn<TpchEntity> source = sources.get(i);
        FieldVector vector = root.getVector(i);
        if (column.dictionaryEncoded()) {
          String value = source.getString(entity);
          Integer code = codes.get(i).get(value);
          if (code == null) {
            throw new IllegalStateException("value '" + value + "' of " + column.name()
                + " is outside its dictionary " + column.dictionary());
          }
          if (vector instanceof TinyIntVector tiny) {
            tiny.set(row, code.byteValue());
          } else {
            ((SmallIntVector) vector).set(row, code.shortValue());
          }
          continue;
        }
        switch (column.type().kind()) {
          case INT64 -> ((BigIntVector) vector).set(row, source.getIdentifier(entity));
          case INT32 -> ((IntVector) vector).set(row, switch (source.getType().getBase()) {
            case IDENTIFIER -> Math.toIntExact(source.getIdentifier(entity));
            default -> source.getInteger(entity);
          });
          case DATE -> ((DateDayVector) vector).set(row, source.getDate(entity));
          case DECIMAL -> ((BigIntVector) vector).set(row, Math.round(source.getDouble(entity) * 100));
          case STRING -> ((VarCharVector) vector).setSafe(row, source.getString(entity).getBytes(StandardCharsets.UTF_8));
          case FLOAT64 -> throw new IllegalStateException("TPC-H has no FLOAT64 column: " + column.name());
        }
      }
      rows++;
    }

    /** The filled batch; the caller owns it from now on. */
    VectorSchemaRoot finish() {
      root.setRowCount(rows);
      finished = true;
      return root;
    }

    @Override
    public void close() {
      if (!finished) {
        root.close();
      }
    }
  }
}
