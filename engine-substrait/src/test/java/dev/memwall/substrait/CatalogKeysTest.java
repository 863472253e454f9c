package dev.memwall.substrait;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.LeakCheck;
import dev.memwall.core.vector.Table;
import dev.memwall.substrait.optimizer.ForeignKey;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Keys and foreign keys a host declares for the catalog's tables: kept as the table spells its
 * columns, refused when they name nothing or reference no declared key.
 */
@ExtendWith(LeakCheck.class)
class CatalogKeysTest {

  @Test
  void declaredKeysAreKeptPerTableInTheTablesSpelling(EngineMemory memory) {
    try (Table t = Fixture.t(memory); Table u = Fixture.u(memory)) {
      Catalog catalog = new Catalog().register("t", t).register("u", u);
      long version = catalog.version();
      catalog.declareKey("T", List.of("ID")).declareKey("t", List.of("id")).declareKey("t", List.of("grp", "day"));
      assertEquals(List.of(List.of("id"), List.of("grp", "day")), catalog.keys("t"));
      assertEquals(List.of(), catalog.keys("u"));
      assertEquals(List.of(), catalog.keys("nowhere"));
      assertEquals(version, catalog.version(), "a key changes no table's declaration");
    }
  }

  @Test
  void aKeyOfNoTableNoColumnOrNoColumnsIsRefused(EngineMemory memory) {
    try (Table t = Fixture.t(memory)) {
      Catalog catalog = new Catalog().register("t", t);
      assertEquals("no table 'v' in the catalog (it has [t])", assertThrows(IllegalArgumentException.class,
          () -> catalog.declareKey("v", List.of("id"))).getMessage());
      assertEquals("table 't' has no column 'nope' for a key", assertThrows(IllegalArgumentException.class,
          () -> catalog.declareKey("t", List.of("id", "nope"))).getMessage());
      assertEquals("a key of table 't' needs at least one column", assertThrows(IllegalArgumentException.class,
          () -> catalog.declareKey("t", List.of())).getMessage());
      assertEquals(List.of(), catalog.keys("t"), "a refused key leaves none behind");
    }
  }

  @Test
  void foreignKeysAreKeptInTheTablesSpellingOnceEach(EngineMemory memory) {
    try (Table t = Fixture.t(memory); Table u = Fixture.u(memory)) {
      Catalog catalog = new Catalog().register("t", t).register("u", u).declareKey("u", List.of("uid"));
      catalog.declareForeignKey("T", List.of("GRP"), "U", List.of("UID")).declareForeignKey("t", List.of("grp"), "u",
          List.of("uid"));
      assertEquals(List.of(new ForeignKey(List.of("grp"), "u", List.of("uid"))), catalog.foreignKeys("t"));
      assertEquals(List.of(), catalog.foreignKeys("u"));
      assertEquals(List.of(), catalog.foreignKeys("nowhere"));
    }
  }

  @Test
  void aForeignKeyToNoDeclaredKeyOrOfNoColumnIsRefused(EngineMemory memory) {
    try (Table t = Fixture.t(memory); Table u = Fixture.u(memory)) {
      Catalog catalog = new Catalog().register("t", t).register("u", u);
      assertEquals("a foreign key of table 't' references [uid], which is not a key declared for table 'u' (it has [])",
          assertThrows(IllegalArgumentException.class,
              () -> catalog.declareForeignKey("t", List.of("grp"), "u", List.of("uid"))).getMessage());
      catalog.declareKey("u", List.of("uid"));
      assertEquals("no table 'v' in the catalog (it has [t, u])", assertThrows(IllegalArgumentException.class,
          () -> catalog.declareForeignKey("t", List.of("grp"), "v", List.of("uid"))).getMessage());
      assertEquals("table 't' has no column 'nope' for a foreign key", assertThrows(IllegalArgumentException.class,
          () -> catalog.declareForeignKey("t", List.of("nope"), "u", List.of("uid"))).getMessage());
      assertEquals("table 'u' has no column 'label2' for a referenced key", assertThrows(IllegalArgumentException.class,
          () -> catalog.declareForeignKey("t", List.of("grp"), "u", List.of("label2"))).getMessage());
      assertEquals("a foreign key of table 't' needs as many columns as it references, at least one: [grp, day] and"
          + " [uid]", assertThrows(IllegalArgumentException.class,
              () -> catalog.declareForeignKey("t", List.of("grp", "day"), "u", List.of("uid"))).getMessage());
      assertEquals(List.of(), catalog.foreignKeys("t"), "a refused foreign key leaves none behind");
    }
  }
}
