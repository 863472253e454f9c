package dev.memwall.substrait;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.LeakCheck;
import dev.memwall.core.vector.Table;
import dev.memwall.substrait.optimizer.ColumnStatistics;
import dev.memwall.substrait.optimizer.TableStatistics;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The catalog's statistics: collected once per table and kept, or the caller's. */
@ExtendWith(LeakCheck.class)
class CatalogStatisticsTest {

  @Test
  void collectedStatisticsAreKeptPerTableAndSuppliedOnesUsedAsGiven(EngineMemory memory) {
    try (Table t = Fixture.t(memory); Table u = Fixture.u(memory)) {
      TableStatistics supplied = TableStatistics.supplied(1e6, Map.of("uid", ColumnStatistics.distinct(1e6)));
      Catalog catalog = new Catalog().register("t", t).register("u", u, supplied);
      TableStatistics collected = catalog.statistics("T");
      assertSame(collected, catalog.statistics("t"), "computed once, kept");
      assertEquals(8, collected.rows());
      ColumnStatistics id = collected.column("id").orElseThrow();
      assertEquals(8, id.distinct(), 0.5);
      assertEquals(1, id.min());
      assertEquals(8, id.max());
      assertSame(collected.column("grp").orElseThrow(), collected.column("grp").orElseThrow(), "each column once");
      assertSame(supplied, catalog.statistics("u"));
      assertEquals(1e6, catalog.statistics("u").column("uid").orElseThrow().distinct());
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> catalog.statistics("v"));
      assertEquals("no table 'v' in the catalog (it has [t, u])", e.getMessage());
      assertThrows(NullPointerException.class, () -> new Catalog().register("x", t, null));
    }
  }
}
