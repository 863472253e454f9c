package dev.memwall.core.output;

import static dev.memwall.core.expr.Expr.col;
import static dev.memwall.core.expr.Expr.lit;
import static dev.memwall.core.expr.Expr.substring;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.expr.Binder;
import dev.memwall.core.expr.Chunk;
import dev.memwall.core.expr.NamedExpr;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.PropertyLeakCheck;
import dev.memwall.core.output.OutputColumn.Target;
import dev.memwall.core.vector.Batch;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.Int32Column;
import dev.memwall.core.vector.Int64Column;
import dev.memwall.core.vector.ScratchBatch;
import dev.memwall.core.vector.Table;
import dev.memwall.core.vector.TableBuilder;
import dev.memwall.core.vector.TypedRows;
import dev.memwall.core.vector.VarCharColumn;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.function.Consumer;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.lifecycle.AddLifecycleHook;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.dictionary.Dictionary;

/**
 * Output columns of every kind against the input rows read one by one ({@link TypedRows}: booleans,
 * narrow integers, float32, dates, timestamps of every unit, decimals, large_utf8 and its
 * dictionary, nulls everywhere; the plain int32, date32, int64 and 64-bit decimal columns; an
 * integral and a FLOAT64 expression; SUBSTRINGs of plain and dictionary strings): the selected rows of a chunk written into a table in two runs, encoded
 * strings as codes or decoded, hold the selected input rows; rows written into a scratch batch by a
 * row map (repeats, any order, twice over the same batch) hold the mapped input rows. Binding says
 * by name what a target cannot hold.
 */
@AddLifecycleHook(PropertyLeakCheck.class)
class OutputColumnProperties {
  /** SUBSTRING's code points of {@code value} from {@code start} (1-based), at most {@code length}. */
  private static String substringOf(String value, int start, int length) {
    if (value == null) {
      return null;
    }
    int[] points = value.codePoints().toArray();
    int from = Math.min(start - 1, points.length);
    return new String(points, from, Math.min(length, points.length - from));
  }

  /** The outputs a scratch batch holds: every readable column and two computed ones. */
  private static List<NamedExpr> carried() {
    List<NamedExpr> columns = new ArrayList<>();
    TypedRows.COLUMNS.forEach(name -> columns.add(new NamedExpr(col(name), name)));
    columns.add(new NamedExpr(col("small").mul(lit(3)), "small3"));
    columns.add(new NamedExpr(col("real").mul(lit(2.0)), "real2"));
    return columns;
  }

  /** The expected value of output {@code name} at row {@code row} of {@code batch}, as getObject reads it. */
  private static Object expected(Batch batch, String name, int row) {
    return switch (name) {
      case "small3" -> batch.column("small").isNull(row) ? null : 3L * (Integer) batch.column("small").getObject(row);
      case "real2" -> batch.column("real").isNull(row) ? null : 2.0 * (Double) batch.column("real").getObject(row);
      case "text_sub" -> substringOf((String) batch.column("text").getObject(row), 2, 3);
      case "word_sub" -> substringOf((String) batch.column("word").getObject(row), 1, 2);
      default -> batch.column(name).getObject(row);
    };
  }

  @Property(tries = 40)
  void tableRowsAreTheSelectedInputRows(@ForAll long seed, EngineMemory memory) {
    Random random = new Random(seed);
    List<NamedExpr> columns = new ArrayList<>(carried());
    columns.add(new NamedExpr(substring(col("text"), 2, 3), "text_sub"));
    columns.add(new NamedExpr(substring(col("word"), 1, 2), "word_sub"));
    withChunk(random, memory, chunk -> {
      Binder binder = new Binder(chunk.batch().schema());
      OutputColumn[] outputs = bind(binder, columns, Target.TABLE);
      boolean[] encoded = new boolean[outputs.length];
      for (int c = 0; c < outputs.length; c++) {
        assertEquals(columns.get(c).name().equals("word"), outputs[c].dictionaryEncoded(), columns.get(c).name());
        encoded[c] = outputs[c].dictionaryEncoded() && random.nextBoolean();
      }
      try (TableBuilder builder = new TableBuilder(columns.stream().map(NamedExpr::name).toList(),
          Arrays.stream(outputs).map(OutputColumn::type).toList(), encoded, memory.arrow())) {
        for (OutputColumn output : outputs) {
          output.evaluate(chunk);
        }
        for (int c = 0; c < outputs.length; c++) {
          if (encoded[c]) {
            assertTrue(outputs[c].codesFit(builder.encoder(c)), "a small dictionary's codes fit a fresh encoder");
          }
        }
        writeInTwoRuns(builder, outputs, chunk, random);
        try (Table built = builder.build()) {
          assertHoldsSelectedRows(built, chunk, columns.stream().map(NamedExpr::name).toList(),
              (name, row) -> expected(chunk.batch(), name, row));
        }
      }
    });
  }

  /** An output's expected value at a row of the chunk's batch. */
  private interface Expected {
    Object at(String name, int row);
  }

  /** Writes the chunk's selected rows of {@code outputs} (evaluated) into {@code builder} in two runs split at random. */
  private static void writeInTwoRuns(TableBuilder builder, OutputColumn[] outputs, Chunk chunk, Random random) {
    int split = random.nextInt(chunk.selected() + 1);
    write(builder, outputs, chunk, 0, split);
    write(builder, outputs, chunk, split, chunk.selected() - split);
  }

  /** Checks that {@code built} holds the chunk's selected rows, in order, as {@code expected} says. */
  private static void assertHoldsSelectedRows(Table built, Chunk chunk, List<String> names, Expected expected) {
    int i = 0;
    for (Batch batch : built.batches()) {
      for (int r = 0; r < batch.rowCount(); r++, i++) {
        int row = chunk.start() + chunk.position(i);
        for (String name : names) {
          assertEquals(expected.at(name, row), batch.column(name).getObject(r), name + " of selected row " + row);
        }
      }
    }
    assertEquals(chunk.selected(), i);
  }

  /** Checks that the published scratch batch holds the mapped rows of the chunk's batch, as {@code expected} says. */
  private static void assertHoldsMappedRows(Mapped mapped, Chunk chunk, List<String> names, Expected expected) {
    for (int i = 0; i < mapped.positions().length; i++) {
      int row = chunk.start() + mapped.positions()[i];
      for (String name : names) {
        assertEquals(expected.at(name, row), mapped.published().column(name).getObject(i), name + " of mapped row " + row);
      }
    }
    assertEquals(mapped.positions().length, mapped.published().rowCount());
  }

  private static void write(TableBuilder builder, OutputColumn[] outputs, Chunk chunk, int from, int rows) {
    if (rows == 0) {
      return;
    }
    assertEquals(rows, builder.reserveRows(rows));
    int at = builder.nextRow();
    for (int c = 0; c < outputs.length; c++) {
      outputs[c].writeSelected(chunk, from, rows, builder, c, at);
    }
    builder.commitRows(rows);
  }

  @Property(tries = 40)
  void scratchRowsAreTheMappedInputRows(@ForAll long seed, EngineMemory memory) {
    Random random = new Random(seed);
    List<NamedExpr> columns = carried();
    List<String> names = columns.stream().map(NamedExpr::name).toList();
    ScratchBatch[] out = new ScratchBatch[1];
    try {
      for (int round = 0; round < 2; round++) {
        withChunk(random, memory, chunk -> {
          OutputColumn[] outputs = bind(new Binder(chunk.batch().schema()), columns, Target.SCRATCH_BATCH);
          if (out[0] == null) {
            out[0] = new ScratchBatch(names, Arrays.stream(outputs).map(OutputColumn::type).toList(), Chunk.CAPACITY,
                memory.arrow());
          }
          assertHoldsMappedRows(mapRows(outputs, chunk, out[0], random), chunk, names,
              (name, row) -> expected(chunk.batch(), name, row));
        });
      }
    } finally {
      if (out[0] != null) {
        out[0].close();
      }
    }
  }

  /**
   * The plain integral columns, which {@link TypedRows} does not make (int32, date32, int64 and
   * decimals in 64 bits, one of them without nulls, limits over-represented), and a computed one
   * beside them: written into a table in two runs and into a scratch batch by a row map, they hold
   * the input rows.
   */
  @Property(tries = 60)
  void plainIntegralColumnsHoldTheInputRows(@ForAll long seed, EngineMemory memory) {
    Random random = new Random(seed);
    List<String> names = List.of("i32", "day", "i64", "cents", "full");
    List<ColumnType> types = List.of(ColumnType.INT32, ColumnType.DATE, ColumnType.INT64, ColumnType.decimal(2),
        ColumnType.INT64);
    List<NamedExpr> columns = new ArrayList<>();
    names.forEach(name -> columns.add(new NamedExpr(col(name), name)));
    columns.add(new NamedExpr(col("i32").add(lit(1)), "i32_1"));
    int rowCount = 1 + random.nextInt(3 * Chunk.CAPACITY / 2);
    try (TableBuilder source = new TableBuilder(names, types, memory.arrow())) {
      for (int r = 0; r < rowCount; r++) {
        source.appendLongOrNull(nullOr(random, (long) pick(random, Integer.MIN_VALUE, Integer.MAX_VALUE)));
        source.appendLongOrNull(nullOr(random, (long) pick(random, -1_000_000, 1_000_000)));
        source.appendLongOrNull(nullOr(random, pick(random, Long.MIN_VALUE, Long.MAX_VALUE)));
        source.appendLongOrNull(nullOr(random, pick(random, -999_999_999_999_999_999L, 999_999_999_999_999_999L)));
        source.appendLong(pick(random, Long.MIN_VALUE, Long.MAX_VALUE)).endRow();
      }
      try (Table table = source.build()) {
        Batch batch = table.batches().getFirst();
        assertTrue(batch.column("i32") instanceof Int32Column && batch.column("day") instanceof Int32Column
            && batch.column("i64") instanceof Int64Column && batch.column("cents") instanceof Int64Column,
            "the plain column classes");
        Chunk chunk = chunkOver(batch, random);
        Binder binder = new Binder(batch.schema());
        OutputColumn[] outputs = bind(binder, columns, Target.TABLE);
        List<String> outputNames = columns.stream().map(NamedExpr::name).toList();
        try (TableBuilder builder = new TableBuilder(outputNames, Arrays.stream(outputs).map(OutputColumn::type).toList(),
            memory.arrow())) {
          for (OutputColumn output : outputs) {
            output.evaluate(chunk);
          }
          writeInTwoRuns(builder, outputs, chunk, random);
          try (Table built = builder.build()) {
            assertHoldsSelectedRows(built, chunk, outputNames, (name, row) -> plainExpected(batch, name, row));
          }
        }
        OutputColumn[] carried = bind(binder, columns, Target.SCRATCH_BATCH);
        try (ScratchBatch out = new ScratchBatch(outputNames, Arrays.stream(carried).map(OutputColumn::type).toList(),
            Chunk.CAPACITY, memory.arrow())) {
          assertHoldsMappedRows(mapRows(carried, chunk, out, random), chunk, outputNames,
              (name, row) -> plainExpected(batch, name, row));
        }
      }
    }
  }

  /** Output {@code name} of {@link #plainIntegralColumnsHoldTheInputRows} at {@code row}. */
  private static Object plainExpected(Batch batch, String name, int row) {
    if (name.equals("i32_1")) {
      return batch.column("i32").isNull(row) ? null : batch.column("i32").getLong(row) + 1;
    }
    return batch.column(name).getObject(row);
  }

  /** A random value of {@code [min, max]}, one time in eight a limit. */
  private static long pick(Random random, long min, long max) {
    return random.nextInt(8) == 0 ? (random.nextBoolean() ? min : max) : random.nextLong(min, max);
  }

  private static Long nullOr(Random random, long value) {
    return random.nextInt(10) == 0 ? null : value;
  }

  @Example
  void bindingNamesWhatATargetCannotHold(EngineMemory memory) {
    withChunk(new Random(7), memory, chunk -> {
      Binder binder = new Binder(chunk.batch().schema());
      NamedExpr literal = new NamedExpr(lit("x"), "label");
      NamedExpr sub = new NamedExpr(substring(col("text"), 1, 2), "prefix");
      var table = assertThrows(IllegalArgumentException.class, () -> OutputColumn.bind(binder, literal, Target.TABLE));
      assertEquals("string outputs must be columns or their SUBSTRINGs, not " + literal.expr(), table.getMessage());
      var scratch = assertThrows(IllegalArgumentException.class,
          () -> OutputColumn.bind(binder, sub, Target.SCRATCH_BATCH));
      assertEquals("a join carries string columns, not the expression " + sub.expr()
          + " named 'prefix'; project it after the join", scratch.getMessage());
      var unknown = assertThrows(IllegalArgumentException.class,
          () -> OutputColumn.bind(binder, new NamedExpr(col("nope"), "nope"), Target.TABLE));
      assertTrue(unknown.getMessage().contains("unknown column 'nope'"), unknown.getMessage());
      OutputColumn tableOnly = OutputColumn.bind(binder, sub, Target.TABLE);
      assertEquals(ColumnType.Kind.STRING, tableOnly.type().kind());
      tableOnly.evaluate(chunk);
      try (ScratchBatch out = new ScratchBatch(List.of("prefix"), List.of(tableOnly.type()), 4, memory.arrow())) {
        assertThrows(IllegalStateException.class,
            () -> tableOnly.writePositions(chunk, new int[] {0}, 1, out, 0, new VarCharColumn[1]));
      }
    });
  }

  /** The chunk positions a scratch batch's rows were mapped from, and the batch it published. */
  private record Mapped(int[] positions, Batch published) {}

  /**
   * Evaluates {@code outputs} over {@code chunk} and writes them into {@code out} by a random row map
   * of its selected rows (repeats, any order, up to a chunk's capacity), then publishes the rows.
   */
  private static Mapped mapRows(OutputColumn[] outputs, Chunk chunk, ScratchBatch out, Random random) {
    int count = chunk.selected() == 0 ? 0 : random.nextInt(Chunk.CAPACITY + 1);
    int[] positions = new int[Chunk.CAPACITY];
    for (int i = 0; i < count; i++) {
      positions[i] = chunk.position(random.nextInt(chunk.selected()));
    }
    VarCharColumn[] dictionaries = new VarCharColumn[outputs.length];
    for (int c = 0; c < outputs.length; c++) {
      outputs[c].evaluate(chunk);
      outputs[c].writePositions(chunk, positions, count, out, c, dictionaries);
    }
    return new Mapped(Arrays.copyOf(positions, count), out.publish(count, dictionaries));
  }

  private static OutputColumn[] bind(Binder binder, List<NamedExpr> columns, Target target) {
    return columns.stream().map(c -> OutputColumn.bind(binder, c, target)).toArray(OutputColumn[]::new);
  }

  /**
   * Runs {@code check} on a chunk over a random window of a batch of random {@link TypedRows}, with
   * a random selection (dense, some rows or none), freeing the batch afterwards.
   */
  private static void withChunk(Random random, EngineMemory memory, Consumer<Chunk> check) {
    List<TypedRows.Row> rows = TypedRows.random(random, 1 + random.nextInt(3 * Chunk.CAPACITY / 2));
    Dictionary dictionary = TypedRows.dictionary(memory.arrow());
    try (var values = dictionary.getVector();
        VectorSchemaRoot root = TypedRows.root(rows, memory.arrow());
        Table table = Table.borrow(root.getSchema(), List.of(root), TypedRows.provider(dictionary))) {
      check.accept(chunkOver(table.batches().getFirst(), random));
    }
  }

  /** A chunk over a random window of {@code batch} with a random selection (dense, some rows or none). */
  private static Chunk chunkOver(Batch batch, Random random) {
    int start = random.nextInt(batch.rowCount());
    int count = 1 + random.nextInt(Math.min(Chunk.CAPACITY, batch.rowCount() - start));
    Chunk chunk = new Chunk();
    chunk.reset(batch, start, count);
    if (random.nextInt(3) > 0) {
      int[] selection = new int[Chunk.CAPACITY];
      int share = random.nextInt(5);
      int n = 0;
      for (int k = 0; k < count; k++) {
        selection[n] = k;
        n += random.nextInt(4) < share ? 1 : 0;
      }
      chunk.select(selection, n);
    }
    return chunk;
  }
}
