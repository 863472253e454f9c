package dev.memwall.substrait;

import dev.memwall.core.Closing;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.stats.StatisticsFile;
import dev.memwall.core.vector.Table;
import dev.memwall.substrait.optimizer.ForeignKey;
import dev.memwall.substrait.optimizer.TableStatistics;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.HashSet;
import org.apache.arrow.vector.ipc.ArrowReader;

/**
 * The named tables a plan may read. Names are matched without regard to case, as SQL does for
 * unquoted names (Isthmus hands them over upper-cased); a plan's qualified name ({@code
 * ["tpch", "lineitem"]}) is looked up by its last part.
 *
 * <p>Each table has {@link TableStatistics} for the optimizer's estimates: those supplied with it,
 * or else collected from it on first use (each column a query joins or filters on scanned once,
 * then kept with the catalog).
 *
 * <p>Tables come from the caller ({@link #register(String, Table)}), from Arrow IPC files
 * ({@link #registerFile}), from a memwall data set directory ({@link #registerDataSet}) or from the
 * caller's {@link ArrowReader} stream ({@link #registerStream}, copied once into memwall's memory, so
 * that every query and the statistics may read it again). Columns of Arrow types memwall does not read
 * are left out of a file's or a stream's table with the reason; a query naming one is refused with
 * that reason, naming the table and the column ({@link #leftOut}).
 *
 * <p>Ownership: a table the caller registers stays the caller's; it must stay open while plans over it
 * are built and run, and the catalog never closes it. A table the catalog made (from a file, a data
 * set or a stream) is the catalog's: it stays valid until {@link #close}, which frees those and only
 * those. Thread safety: registering and closing are for one thread; a catalog no longer changed may be
 * read by several, statistics included. Bad input: a name registered twice (in any case) throws
 * {@link IllegalArgumentException}, and a registration that fails leaves the catalog as it was.
 */
public final class Catalog implements AutoCloseable {
  private final Map<String, Table> tables = new LinkedHashMap<>();
  private final Map<String, String> names = new LinkedHashMap<>();
  private final Map<String, TableStatistics> statistics = new LinkedHashMap<>();
  private final Map<String, List<List<String>>> keys = new LinkedHashMap<>();
  private final Map<String, List<ForeignKey>> foreignKeys = new LinkedHashMap<>();
  /** What the catalog made and frees on {@link #close}: mappings and copied streams. */
  private final List<Table> owned = new ArrayList<>();
  private volatile long version;

  /** An empty catalog. */
  public Catalog() {}

  /** A catalog of {@code tables} by name. */
  public static Catalog of(Map<String, Table> tables) {
    Catalog catalog = new Catalog();
    tables.forEach(catalog::register);
    return catalog;
  }

  /** Registers {@code table} as {@code name}; returns this catalog. */
  public Catalog register(String name, Table table) {
    return register(name, table, TableStatistics.collected(Objects.requireNonNull(table, "table")));
  }

  /** Registers {@code table} as {@code name} with the caller's {@code statistics}; returns this catalog. */
  public Catalog register(String name, Table table, TableStatistics statistics) {
    Objects.requireNonNull(table, "table");
    Objects.requireNonNull(statistics, "statistics");
    checkFree(name);
    String key = key(name);
    tables.put(key, table);
    names.put(key, name);
    this.statistics.put(key, statistics);
    version++;
    return this;
  }

  /**
   * Maps the Arrow IPC file {@code file} (file or stream format, zero-copy, validated as
   * {@link dev.memwall.core.ipc.ArrowFiles#map} validates it) as table {@code name}, which the
   * catalog owns; returns this catalog.
   *
   * @param memory what the mapping is accounted to (file-backed, not charged to its budget); it must
   *     stay open until this catalog is closed
   * @throws java.nio.file.NoSuchFileException when the file does not exist
   * @throws dev.memwall.core.ipc.CorruptArrowFileException naming the file when it is not valid Arrow
   */
  public Catalog registerFile(String name, Path file, EngineMemory memory) throws IOException {
    checkFree(name);
    return registerOwned(Map.of(name, TableSources.map(name, List.of(file), memory)));
  }

  /**
   * Maps every table of the memwall data set in {@code directory}, each under its own name, and owns
   * them; returns this catalog. A table is the files {@code <table>-<n>.arrow} together, in part order
   * (as memwall's TPC-H data sets and its Spark writer store tables), or any other Arrow file
   * ({@code .arrow}, {@code .arrows}, {@code .feather}, {@code .ipc}) named by its file name without
   * the extension; names starting with {@code .} or {@code _} (the manifest) are skipped. Each file is
   * validated as {@link #registerFile} validates one; checksums a manifest keeps are not checked here.
   * A table whose parts the directory's statistics sidecar ({@link StatisticsFile}) describes, fresh,
   * gets the statistics its writer kept, with no first-use pass; a missing, stale or corrupt sidecar
   * is no failure: that table's statistics are then collected on first use.
   *
   * @param memory as for {@link #registerFile}
   * @throws java.nio.file.NoSuchFileException when the directory does not exist or holds no Arrow file
   * @throws java.nio.file.NotDirectoryException when it is a file
   * @throws dev.memwall.core.ipc.CorruptArrowFileException naming the file when one is not valid Arrow
   * @throws IllegalArgumentException naming the table when its parts differ in columns or dictionaries,
   *     or when a table's name is registered already
   */
  public Catalog registerDataSet(Path directory, EngineMemory memory) throws IOException {
    Map<String, List<Path>> files = TableSources.dataSetFiles(directory);
    files.keySet().forEach(this::checkFree);
    Map<String, TableSources.Mapped> mapped = new LinkedHashMap<>();
    try {
      for (Map.Entry<String, List<Path>> table : files.entrySet()) {
        mapped.put(table.getKey(), TableSources.map(table.getKey(), table.getValue(), memory));
      }
    } catch (IOException | RuntimeException e) {
      mapped.values().forEach(m -> Closing.closeAll(m.mappings(), e));
      throw e;
    }
    Map<String, Table> tables = new LinkedHashMap<>();
    mapped.forEach((name, table) -> tables.put(name, table.table()));
    return registerOwned(mapped, keptStatistics(directory, files, tables));
  }

  /**
   * A catalog of the caller's {@code tables} by name (as {@link #of} makes one), which are the
   * tables of the memwall data set in {@code directory} mapped by the caller (a TPC-H database): each
   * gets the statistics the data set's sidecar keeps for it where they are fresh and describe its
   * rows and columns, as {@link #registerDataSet} does, else collects them on first use. Ownership:
   * the tables stay the caller's.
   *
   * @throws java.nio.file.NoSuchFileException when the directory does not exist or holds no Arrow file
   */
  public static Catalog ofDataSet(Map<String, Table> tables, Path directory) throws IOException {
    Map<String, TableStatistics> kept = keptStatistics(directory, TableSources.dataSetFiles(directory), tables);
    Catalog catalog = new Catalog();
    tables.forEach((name, table) -> catalog.register(name, table,
        kept.getOrDefault(name, TableStatistics.collected(table))));
    return catalog;
  }

  /** The statistics {@code directory}'s sidecar keeps, fresh, for those of {@code tables} it describes. */
  private static Map<String, TableStatistics> keptStatistics(Path directory, Map<String, List<Path>> files,
      Map<String, Table> tables) {
    Map<String, StatisticsFile.Part> parts = StatisticsFile.read(directory);
    Map<String, TableStatistics> kept = new LinkedHashMap<>();
    tables.forEach((name, table) -> StatisticsFile.merged(directory, files.getOrDefault(name, List.of()), parts)
        .filter(merged -> merged.rows() == table.rowCount() && merged.columns().keySet().equals(columnNames(table)))
        .ifPresent(merged -> {
          try {
            kept.put(name, TableStatistics.sketched(table, merged.columns()));
          } catch (RuntimeException e) { // sketches no column of this type could give: collect instead
          }
        }));
    return kept;
  }

  private static Set<String> columnNames(Table table) {
    Set<String> names = new HashSet<>();
    table.schema().getFields().forEach(field -> names.add(field.getName()));
    return names;
  }

  /**
   * Reads {@code reader} to its end and registers its rows as table {@code name}, copied into
   * {@code memory} and charged to its budget; returns this catalog. A stream can be read once, and a
   * catalog's table is read by every query over it and by its statistics, so the rows are held, not
   * streamed: a stream too large to hold is for {@code Plan.scan(BatchStream)} instead. The reader
   * stays the caller's to close (it may be closed as soon as this returns); the copy is the catalog's.
   *
   * @param memory where the copy lives; it must stay open until this catalog is closed
   * @throws dev.memwall.core.memory.BudgetExceededException when the copy does not fit the budget
   *     (what was copied is freed by then; the reader is left part read)
   * @throws IllegalArgumentException naming the table when the stream replaces a dictionary it has
   *     used, or when {@code name} is registered already (then nothing is read)
   * @throws IOException as the reader reports a failure to read
   */
  public Catalog registerStream(String name, ArrowReader reader, EngineMemory memory) throws IOException {
    Objects.requireNonNull(reader, "reader");
    checkFree(name);
    Table copy = TableSources.copy(name, reader, memory);
    return registerOwned(Map.of(name, new TableSources.Mapped(copy, List.of(copy))));
  }

  /**
   * Declares that {@code columns} of the table registered as {@code table} are a key of it: no two
   * rows agree on all of them and none of them is null in any row (a primary key, or a unique key
   * over non-null columns); returns this catalog. The optimizer relies on it without checking, as SQL
   * engines rely on constraints declared {@code RELY}: it groups by the key alone and carries the
   * columns the key determines, and aggregates before a join to the table when the join only
   * supplies such columns. A declaration the data does not satisfy gives wrong answers. A table may
   * have several keys; declaring one again is harmless.
   *
   * @throws IllegalArgumentException when no table has that name, {@code columns} is empty, or a
   *     column is not the table's (names in any case)
   */
  public Catalog declareKey(String table, List<String> columns) {
    if (columns.isEmpty()) {
      checkTable(table);
      throw new IllegalArgumentException("a key of table '" + table + "' needs at least one column");
    }
    List<String> stored = storedColumns(table, columns, "a key");
    List<List<String>> declared = keys.computeIfAbsent(key(table), k -> new ArrayList<>());
    if (!declared.contains(stored)) {
      declared.add(List.copyOf(stored));
    }
    return this;
  }

  /** The keys declared for the table registered as {@code table} (in any case), its column names as stored. */
  public List<List<String>> keys(String table) {
    return List.copyOf(keys.getOrDefault(key(table), List.of()));
  }

  /**
   * Declares that {@code columns} of the table registered as {@code table} are a foreign key to the
   * declared key {@code referencedColumns} of the table registered as {@code referenced}: in every
   * row of {@code table}, {@code columns} are non-null and equal, position by position, the key of
   * one row of {@code referenced}; returns this catalog. As with {@link #declareKey}, the optimizer
   * relies on it unchecked, as on a constraint declared {@code RELY}: an inner join from the table to
   * the referenced one read in full then neither drops nor repeats a row, so a top-N whose order
   * comes from the referencing side is taken before that join. A declaration the data does not
   * satisfy (a dangling or null reference) gives wrong answers. Declaring one again is harmless.
   *
   * @throws IllegalArgumentException when either table is not registered, a column is not its
   *     table's (names in any case), the lists are empty or differ in length, or {@code
   *     referencedColumns} is not a key declared for {@code referenced} (in any order)
   */
  public Catalog declareForeignKey(String table, List<String> columns, String referenced,
      List<String> referencedColumns) {
    if (columns.isEmpty() || columns.size() != referencedColumns.size()) {
      throw new IllegalArgumentException("a foreign key of table '" + table + "' needs as many columns as it"
          + " references, at least one: " + columns + " and " + referencedColumns);
    }
    List<String> stored = storedColumns(table, columns, "a foreign key");
    List<String> storedReferenced = storedColumns(referenced, referencedColumns, "a referenced key");
    if (keys(referenced).stream().noneMatch(key -> key.size() == storedReferenced.size()
        && Set.copyOf(key).equals(Set.copyOf(storedReferenced)))) {
      throw new IllegalArgumentException("a foreign key of table '" + table + "' references " + storedReferenced
          + ", which is not a key declared for table '" + referenced + "' (it has " + keys(referenced) + ")");
    }
    ForeignKey declared = new ForeignKey(stored, names.get(key(referenced)), storedReferenced);
    List<ForeignKey> all = foreignKeys.computeIfAbsent(key(table), k -> new ArrayList<>());
    if (!all.contains(declared)) {
      all.add(declared);
    }
    return this;
  }

  /** The foreign keys declared for the table registered as {@code table} (in any case). */
  public List<ForeignKey> foreignKeys(String table) {
    return List.copyOf(foreignKeys.getOrDefault(key(table), List.of()));
  }

  /** {@code columns} of the table registered as {@code table} as it spells them; {@code what} names them in errors. */
  private List<String> storedColumns(String table, List<String> columns, String what) {
    Table found = checkTable(table);
    List<String> stored = new ArrayList<>();
    for (String column : columns) {
      stored.add(found.schema().getFields().stream().map(org.apache.arrow.vector.types.pojo.Field::getName)
          .filter(name -> name.equalsIgnoreCase(column)).findFirst()
          .orElseThrow(() -> new IllegalArgumentException("table '" + table + "' has no column '" + column
              + "' for " + what)));
    }
    return stored;
  }

  private Table checkTable(String table) {
    Table found = tables.get(key(table));
    if (found == null) {
      throw new IllegalArgumentException("no table '" + table + "' in the catalog (it has " + names.values() + ")");
    }
    return found;
  }

  /** The reasons of every left-out column named {@code column} (in any case) in any table, one per table. */
  public List<String> leftOut(String column) {
    List<String> found = new ArrayList<>();
    tables.forEach((key, table) -> {
      String why = leftOut(table, column);
      if (why != null) {
        found.add("table '" + names.get(key) + "': " + why);
      }
    });
    return found;
  }

  private static String leftOut(Table table, String column) {
    Map<String, String> metadata = table.schema().getCustomMetadata();
    if (metadata == null) {
      return null;
    }
    for (Map.Entry<String, String> entry : metadata.entrySet()) {
      String key = entry.getKey();
      if (key.startsWith(Table.LEFT_OUT_METADATA_PREFIX)
          && key.substring(Table.LEFT_OUT_METADATA_PREFIX.length()).equalsIgnoreCase(column)) {
        return entry.getValue();
      }
    }
    return null;
  }

  /** Frees the tables this catalog made (files, data sets, streams); those the caller registered stay open. */
  @Override
  public void close() {
    List<Table> closing = new ArrayList<>(owned);
    owned.clear();
    Closing.closeAll(closing);
  }

  private void checkFree(String name) {
    String key = key(name);
    if (tables.containsKey(key)) {
      throw new IllegalArgumentException("table '" + name + "' is already registered as '" + names.get(key) + "'");
    }
  }

  /** Registers {@code made} (checked free), which this catalog owns from now on. */
  private Catalog registerOwned(Map<String, TableSources.Mapped> made) {
    return registerOwned(made, Map.of());
  }

  /** Registers {@code made} as {@link #registerOwned(Map)} does, with the {@code statistics} known for some. */
  private Catalog registerOwned(Map<String, TableSources.Mapped> made, Map<String, TableStatistics> statistics) {
    for (Map.Entry<String, TableSources.Mapped> table : made.entrySet()) {
      Table registered = table.getValue().table();
      register(table.getKey(), registered,
          statistics.getOrDefault(table.getKey(), TableStatistics.collected(registered)));
      owned.addAll(table.getValue().mappings());
    }
    return this;
  }

  /**
   * A number that changes with every registration (and only then), for what a host derives from
   * the catalog's tables and keeps, such as engine-sql's SQL declaration of them: a kept derivation
   * is current while the version it was made at is. Read after the registering thread has published
   * the catalog, as the tables are.
   */
  public long version() {
    return version;
  }

  /** The table named {@code name} (its last part, in any case), if registered. */
  public Optional<Table> table(List<String> name) {
    return name.isEmpty() ? Optional.empty() : Optional.ofNullable(tables.get(key(name.getLast())));
  }

  /** The registered name of the table {@code name} names, in the case it was registered with. */
  public Optional<String> registeredName(List<String> name) {
    return name.isEmpty() ? Optional.empty() : Optional.ofNullable(names.get(key(name.getLast())));
  }

  /**
   * The statistics of the table registered as {@code name} (in any case).
   *
   * @throws IllegalArgumentException when no table has that name
   */
  public TableStatistics statistics(String name) {
    TableStatistics found = statistics.get(key(name));
    if (found == null) {
      throw new IllegalArgumentException("no table '" + name + "' in the catalog (it has " + names.values() + ")");
    }
    return found;
  }

  /** The tables by their registered names, in registration order. */
  public Map<String, Table> tables() {
    Map<String, Table> byName = new LinkedHashMap<>();
    tables.forEach((key, table) -> byName.put(names.get(key), table));
    return Collections.unmodifiableMap(byName);
  }

  private static String key(String name) {
    return Objects.requireNonNull(name, "name").toLowerCase(Locale.ROOT);
  }
}
