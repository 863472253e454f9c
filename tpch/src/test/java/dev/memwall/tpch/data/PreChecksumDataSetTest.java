package dev.memwall.tpch.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.ipc.ArrowFiles;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.LeakCheck;
import dev.memwall.core.vector.Column;
import dev.memwall.core.vector.Table;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.dictionary.Dictionary;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * A data set written before memwall kept checksums (its manifest has none) gets, besides the
 * structural validation, a check of each file's layout against its table's when it is opened
 * ({@link TpchDatabase#open}) or checked ({@link DataSetCheck}): valid Arrow files with swapped
 * columns, swapped key values under the right names, of another table, with a column of another
 * type, with a dictionary out of order, or parts of a table swapped, each end in a
 * {@link CorruptDataSetException} naming the file and table, never in a query's wrong answer;
 * {@link TpchDatabase#load} repairs the set.
 */
@ExtendWith(LeakCheck.class)
class PreChecksumDataSetTest {
  private static final double SF = 0.01;

  @TempDir Path cache;
  private Path dir;
  private final Map<Path, byte[]> pristine = new HashMap<>();

  @BeforeEach
  void generateAsAnOlderVersionDid() throws IOException {
    dir = TpchDataGenerator.dataDirectory(cache, SF);
    try (EngineMemory memory = EngineMemory.create("generate")) {
      TpchManifest manifest = new TpchDataGenerator(2, true, 20_000).ensure(dir, SF, memory); // lineitem in 3 files
      new TpchManifest(manifest.formatVersion(), SF, manifest.tables()).write(dir); // no checksums
    }
    try (Stream<Path> files = Files.list(dir)) {
      for (Path file : files.filter(f -> f.toString().endsWith(".arrow")).toList()) {
        pristine.put(file, Files.readAllBytes(file));
      }
    }
    DataSetVerification.forget();
  }

  @Test
  void anIntactSetWithoutChecksumsOpensAndChecksClean(EngineMemory memory) throws IOException {
    assertEquals(3, TpchManifest.readValid(dir, SF).orElseThrow().tables().get("lineitem").files());
    try (TpchDatabase db = TpchDatabase.open(dir, SF, memory)) {
      assertTrue(db.manifest().checksums().isEmpty());
      assertEquals(60_175, db.table("lineitem").rowCount());
    }
    DataSetCheck.Result result = DataSetCheck.check(dir, SF, memory);
    assertFalse(result.checksummed());
    assertEquals(List.of(), result.damage());
  }

  @Test
  void wellFormedFilesOfAnotherLayoutAreNamedErrors(EngineMemory memory) throws IOException {
    Path nation = TpchManifest.file(dir, "nation", 1);
    Path region = TpchManifest.file(dir, "region", 1);
    Path part = TpchManifest.file(dir, "part", 1);
    Path lineitem2 = TpchManifest.file(dir, "lineitem", 2);
    Path lineitem3 = TpchManifest.file(dir, "lineitem", 3);
    // nation: n_nationkey, n_name, n_regionkey, n_comment
    refused(memory, nation, "column 0 is n_regionkey (Int(32, true)), where nation has n_nationkey (Int(32, true))"
        + " (another name)", () -> rewrite(nation, memory, new int[] {2, 1, 0, 3},
            List.of("n_regionkey", "n_name", "n_nationkey", "n_comment"), Map.of()));
    refused(memory, nation, "key column n_nationkey is out of order: row 2 of record batch 0 holds 1, the row's"
        + " number says 2", () -> rewrite(nation, memory, new int[] {2, 1, 0, 3},
            List.of("n_nationkey", "n_name", "n_regionkey", "n_comment"), Map.of()));
    refused(memory, nation, "column 0 is r_regionkey", () -> Files.copy(region, nation,
        StandardCopyOption.REPLACE_EXISTING));
    refused(memory, nation, "it has 3 columns, nation has 4: n_comment is missing", () -> rewrite(nation, memory,
        new int[] {0, 1, 2}, List.of("n_nationkey", "n_name", "n_regionkey"), Map.of()));
    refused(memory, nation, "column 1 is n_name (Utf8, nullable)", () -> rewrite(nation, memory, new int[] {0, 1, 2, 3},
        List.of("n_nationkey", "n_name", "n_regionkey", "n_comment"), Map.of(1, true)));
    refused(memory, part, "the dictionary of p_brand is not its 25 values in sorted order",
        () -> reverseDictionary(part, "p_brand", memory));
    refused(memory, lineitem3, "key column l_orderkey is out of order: row 0 of record batch 0 holds ", () -> {
      Files.move(lineitem2, dir.resolve("swap"));
      Files.move(lineitem3, lineitem2);
      Files.move(dir.resolve("swap"), lineitem3);
    });
  }

  @Test
  void loadRepairsASetWithoutChecksumsAndKeepsChecksumsFromThenOn(EngineMemory memory) throws IOException {
    Path nation = TpchManifest.file(dir, "nation", 1);
    rewrite(nation, memory, new int[] {2, 1, 0, 3}, List.of("n_nationkey", "n_name", "n_regionkey", "n_comment"),
        Map.of()); // key values swapped under the right names
    try (TpchDatabase db = TpchDatabase.load(cache, SF, new TpchDataGenerator(1, true, 20_000), memory)) {
      Column keys = db.table("nation").batches().getFirst().column("n_nationkey");
      for (int row = 0; row < 25; row++) {
        assertEquals(row, keys.getLong(row));
      }
      assertFalse(db.manifest().checksums().isEmpty(), "the set is generated again, with checksums");
    }
    for (var file : pristine.entrySet()) {
      assertArrayEquals(file.getValue(), Files.readAllBytes(file.getKey()), file.getKey().toString());
    }
  }

  /** Damages {@code file} with {@code fault}; opening and checking the set must both name it; then restores it. */
  private void refused(EngineMemory memory, Path file, String expected, Fault fault) throws IOException {
    fault.apply();
    try {
      DataSetVerification.forget();
      CorruptDataSetException e = assertThrows(CorruptDataSetException.class, () -> TpchDatabase.open(dir, SF, memory));
      assertEquals(file, e.file(), e.getMessage());
      String table = file.getFileName().toString().split("-")[0];
      assertEquals(table, e.table());
      assertTrue(e.getMessage().startsWith("corrupt TPC-H data file " + file + " (table " + table + "): " + expected),
          e.getMessage());
      DataSetCheck.Result result = DataSetCheck.check(dir, SF, memory);
      assertEquals(List.of(new DataSetCheck.Damage(file, table, TpchManifest.part(file), e.getMessage())),
          result.damage());
    } finally {
      for (var original : pristine.entrySet()) {
        Files.write(original.getKey(), original.getValue());
      }
    }
  }

  @FunctionalInterface
  private interface Fault {
    void apply() throws IOException;
  }

  /**
   * Writes {@code file} again from its own batches: the columns at {@code order}, named {@code names},
   * those in {@code nullable} declared nullable.
   */
  private static void rewrite(Path file, EngineMemory memory, int[] order, List<String> names,
      Map<Integer, Boolean> nullable) throws IOException {
    try (Table mapped = ArrowFiles.map(file, memory)) {
      List<Field> fields = new ArrayList<>();
      for (int i = 0; i < order.length; i++) {
        Field field = mapped.schema().getFields().get(order[i]);
        fields.add(new Field(names.get(i), new org.apache.arrow.vector.types.pojo.FieldType(
            nullable.getOrDefault(i, field.isNullable()), field.getType(), field.getDictionary(), field.getMetadata()),
            field.getChildren()));
      }
      Schema schema = new Schema(fields);
      List<VectorSchemaRoot> roots = new ArrayList<>();
      for (VectorSchemaRoot root : mapped.roots()) {
        List<FieldVector> vectors = Arrays.stream(order).mapToObj(root::getVector).toList();
        roots.add(new VectorSchemaRoot(fields, vectors, root.getRowCount()));
      }
      ArrowFiles.write(file, Table.borrow(schema, roots, mapped.provider()), memory.arrow());
    }
  }

  /** Writes {@code file} again with the dictionary of {@code column} in reverse order (its codes unchanged). */
  private static void reverseDictionary(Path file, String column, EngineMemory memory) throws IOException {
    try (Table mapped = ArrowFiles.map(file, memory);
        VarCharVector reversed = new VarCharVector(column + "-dictionary", memory.arrow())) {
      long id = mapped.schema().findField(column).getDictionary().getId();
      Dictionary original = mapped.dictionaries().get(id);
      VarCharVector values = (VarCharVector) original.getVector();
      int count = values.getValueCount();
      reversed.allocateNew(count);
      for (int i = 0; i < count; i++) {
        reversed.setSafe(i, values.get(count - 1 - i));
      }
      reversed.setValueCount(count);
      Map<Long, Dictionary> dictionaries = new HashMap<>(mapped.dictionaries());
      dictionaries.put(id, new Dictionary(reversed, original.getEncoding()));
      var provider = new org.apache.arrow.vector.dictionary.DictionaryProvider.MapDictionaryProvider(
          dictionaries.values().toArray(Dictionary[]::new));
      ArrowFiles.write(file, Table.borrow(mapped.schema(), mapped.roots(), provider), memory.arrow());
      assertFalse(new String(values.get(0), StandardCharsets.UTF_8).equals(
          new String(reversed.get(0), StandardCharsets.UTF_8)));
    }
  }
}
