package dev.memwall.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.PropertyLeakCheck;
import dev.memwall.core.plan.ExecutionContext;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.Table;
import dev.memwall.core.vector.TableBuilder;
import dev.memwall.substrait.Catalog;
import dev.memwall.substrait.TableRows;
import java.util.List;
import java.util.Locale;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AddLifecycleHook;

/**
 * Table and column names as a host registers them, SQL's reserved words, quotes, inner spaces, dots,
 * digits first, mixed case and non-ASCII letters among them: quoted in a statement, in the case
 * registered or (ASCII) another, each is found, a bare column comes back under its stored name and
 * an alias as written (suffixed when it repeats the column's name exactly); a second table registered later is found by the next statement, and a name
 * never registered is refused by name.
 */
@AddLifecycleHook(PropertyLeakCheck.class)
class SqlNamesProperties {
  @Provide
  Arbitrary<String> names() {
    Arbitrary<String> awkward = Arbitraries.of("value", "select", "order", "Year", "first", "t", "T", "a b", "x.y",
        "say \"hi\"", "1st", "_", "é", "Ärger", "l_orderkey", "L_ORDERKEY", "EXPR$0", "ß");
    // not blank: memwall names no output column with blanks only (NamedExpr refuses it)
    Arbitrary<String> random = Arbitraries.strings().withChars("aZ_9 .\"é$-").ofMinLength(1).ofMaxLength(6)
        .filter(name -> !name.isBlank());
    return Arbitraries.oneOf(awkward, random);
  }

  @Property(tries = 60)
  void registeredNamesAreFoundAndComeBackAsStored(@ForAll("names") String table, @ForAll("names") String column,
      @ForAll("names") String alias, @ForAll("names") String later, @ForAll long value, EngineMemory memory) {
    try (Table t = table(column, value, memory)) {
      Catalog catalog = new Catalog().register(table, t);
      ExecutionContext context = ExecutionContext.singleThreaded(memory);
      try (Table result = Memwall.sql(catalog, "select " + quoted(otherCase(column)) + ", " + quoted(column) + " as "
          + quoted(alias) + " from " + quoted(otherCase(table)), context)) {
        String second = alias.equals(column) ? alias + "_2" : alias; // a repeated output name is suffixed
        assertEquals(List.of(column, second), result.schema().getFields().stream().map(f -> f.getName()).toList());
        assertEquals(List.of(List.of(value, value)), TableRows.of(result));
      }
      boolean distinct = !later.toLowerCase(Locale.ROOT).equals(table.toLowerCase(Locale.ROOT));
      String laterSql = "select count(*) as n from " + quoted(later);
      if (distinct) {
        SqlException missing = assertThrows(SqlException.class, () -> Memwall.prepare(catalog, laterSql));
        assertTrue(missing.getMessage().contains("not found"), missing.getMessage());
        catalog.register(later, t);
      }
      try (Table result = Memwall.sql(catalog, laterSql, context)) {
        assertEquals(List.of(List.of(1L)), TableRows.of(result), "after registering " + later);
      }
    }
  }

  private static Table table(String column, long value, EngineMemory memory) {
    try (TableBuilder builder = new TableBuilder(List.of(column), List.of(ColumnType.INT64), memory.arrow())) {
      builder.appendLong(value).endRow();
      return builder.build();
    }
  }

  /** {@code name} with its ASCII letters' case swapped (non-ASCII letters kept: their case folding is not one to one). */
  private static String otherCase(String name) {
    StringBuilder swapped = new StringBuilder();
    for (char c : name.toCharArray()) {
      swapped.append(c >= 'a' && c <= 'z' ? Character.toUpperCase(c) : c >= 'A' && c <= 'Z' ? Character.toLowerCase(c) : c);
    }
    return swapped.toString();
  }

  private static String quoted(String name) {
    return "\"" + name.replace("\"", "\"\"") + "\"";
  }
}
