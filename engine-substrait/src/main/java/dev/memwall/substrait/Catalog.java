package dev.memwall.substrait;

import dev.memwall.core.vector.Table;
import dev.memwall.substrait.optimizer.TableStatistics;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The named tables a plan may read. Names are matched without regard to case, as SQL does for
 * unquoted names (Isthmus hands them over upper-cased); a plan's qualified name ({@code
 * ["tpch", "lineitem"]}) is looked up by its last part.
 *
 * <p>Each table has {@link TableStatistics} for the optimizer's estimates: those supplied with it,
 * or else collected from it on first use (each column a query joins or filters on scanned once,
 * then kept with the catalog).
 *
 * <p>Ownership: the tables stay the caller's; they must stay open while plans over them are built
 * and run, and the catalog never closes them. Thread safety: registering is for one thread; a
 * catalog no longer changed may be read by several, statistics included. Bad input: a name registered twice (in any
 * case) throws {@link IllegalArgumentException}.
 */
public final class Catalog {
  private final Map<String, Table> tables = new LinkedHashMap<>();
  private final Map<String, String> names = new LinkedHashMap<>();
  private final Map<String, TableStatistics> statistics = new LinkedHashMap<>();
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
    String key = key(name);
    if (tables.containsKey(key)) {
      throw new IllegalArgumentException("table '" + name + "' is already registered as '" + names.get(key) + "'");
    }
    tables.put(key, table);
    names.put(key, name);
    this.statistics.put(key, statistics);
    version++;
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
