package dev.memwall.substrait;

import dev.memwall.core.vector.Table;
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
 * <p>Ownership: the tables stay the caller's; they must stay open while plans over them are built
 * and run, and the catalog never closes them. Thread safety: registering is for one thread; a
 * catalog no longer changed may be read by several. Bad input: a name registered twice (in any
 * case) throws {@link IllegalArgumentException}.
 */
public final class Catalog {
  private final Map<String, Table> tables = new LinkedHashMap<>();
  private final Map<String, String> names = new LinkedHashMap<>();

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
    Objects.requireNonNull(table, "table");
    String key = key(name);
    if (tables.containsKey(key)) {
      throw new IllegalArgumentException("table '" + name + "' is already registered as '" + names.get(key) + "'");
    }
    tables.put(key, table);
    names.put(key, name);
    return this;
  }

  /** The table named {@code name} (its last part, in any case), if registered. */
  public Optional<Table> table(List<String> name) {
    return name.isEmpty() ? Optional.empty() : Optional.ofNullable(tables.get(key(name.getLast())));
  }

  /** The registered name of the table {@code name} names, in the case it was registered with. */
  public Optional<String> registeredName(List<String> name) {
    return name.isEmpty() ? Optional.empty() : Optional.ofNullable(names.get(key(name.getLast())));
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
