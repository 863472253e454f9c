package dev.memwall.core.plan;

import static dev.memwall.core.expr.Expr.col;
import static dev.memwall.core.expr.Expr.lit;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.expr.Expr;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.operator.Aggregate;
import dev.memwall.core.operator.SortKey;
import dev.memwall.core.vector.Batch;
import dev.memwall.core.vector.BatchStream;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.Table;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.channels.Channels;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;

/**
 * A plan over a stream of batches gives what the same plan gives over a table of the same batches,
 * executed or streamed out, for every plan shape, batch split and thread count; the stream's batches are all closed afterwards
 * (the host's allocator is back to zero), also when the plan fails.
 */
class StreamingScanProperties {
  private static final Schema SCHEMA = new Schema(List.of(
      ColumnType.INT64.toField("k", true, null),
      ColumnType.decimal(2).toField("price", true, null),
      ColumnType.STRING.toField("name", true, null)));

  @Property(tries = 60)
  void streamedAndTableScansAgree(@ForAll long seed, @ForAll @IntRange(min = 1, max = 3) int threads,
      @ForAll @IntRange(min = 0, max = 5) int shape) {
    Random random = new Random(seed);
    List<Row> rows = rows(random);
    List<Integer> splits = splits(random, rows.size());
    try (BufferAllocator host = new RootAllocator(); EngineMemory memory = EngineMemory.create("streaming")) {
      ExecutionContext context = new ExecutionContext(memory, threads);
      List<List<Object>> expected;
      List<VectorSchemaRoot> tableBatches = batches(rows, splits, host);
      try (Table table = Table.borrow(SCHEMA, tableBatches, null); Table result = plan(Plan.scan(table), shape)
          .execute(context)) {
        expected = rowsOf(result);
      } finally {
        tableBatches.forEach(VectorSchemaRoot::close);
      }
      if (shape < 4) { // no ORDER BY: row order is unspecified
        sort(expected);
      }
      Iterator<VectorSchemaRoot> streamed = batches(rows, splits, host).iterator();
      try (BatchStream stream = BatchStream.of(SCHEMA, streamed, null);
          Table result = plan(Plan.scan(stream), shape).execute(context)) {
        List<List<Object>> actual = rowsOf(result);
        if (shape < 4) {
          sort(actual);
        }
        assertEquals(expected, actual, "stream in, table out");
      }
      Iterator<VectorSchemaRoot> again = batches(rows, splits, host).iterator();
      try (BatchStream stream = BatchStream.of(SCHEMA, again, null);
          ArrowReader result = plan(Plan.scan(stream), shape).stream(context, host)) {
        List<List<Object>> actual = rowsOf(result);
        if (shape < 4) {
          sort(actual);
        }
        assertEquals(expected, actual, "stream in, stream out");
      } catch (IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
      assertEquals(0, host.getAllocatedMemory(), "every streamed batch was closed");
    }
  }

  @Property(tries = 10)
  void anIpcStreamIsReadBatchByBatchThroughAnArrowReader(@ForAll long seed,
      @ForAll @IntRange(min = 1, max = 2) int threads) throws IOException {
    Random random = new Random(seed);
    List<Row> rows = rows(random);
    List<Integer> splits = splits(random, rows.size());
    try (BufferAllocator host = new RootAllocator(); EngineMemory memory = EngineMemory.create("ipc stream")) {
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      List<VectorSchemaRoot> batches = batches(rows, splits, host);
      try (VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, host);
          ArrowStreamWriter writer = new ArrowStreamWriter(root, null, Channels.newChannel(bytes))) {
        writer.start();
        for (VectorSchemaRoot batch : batches) {
          try (var unloaded = new org.apache.arrow.vector.VectorUnloader(batch).getRecordBatch()) {
            new org.apache.arrow.vector.VectorLoader(root).load(unloaded);
          }
          writer.writeBatch();
        }
        writer.end();
      } finally {
        batches.forEach(VectorSchemaRoot::close);
      }
      try (BatchStream stream = BatchStream.of(new ArrowStreamReader(new ByteArrayInputStream(bytes.toByteArray()), host));
          Table result = Plan.scan(stream).aggregate(List.of(), Aggregate.countStar("n"), Aggregate.sum(col("price"), "s"))
              .execute(new ExecutionContext(memory, threads))) {
        List<Object> row = rowsOf(result).getFirst();
        assertEquals((long) rows.size(), row.get(0));
        Long cents = rows.stream().filter(r -> r.priceCents() != null).mapToLong(Row::priceCents).reduce(Long::sum)
            .stream().boxed().findFirst().orElse(null);
        assertEquals(cents == null ? null : java.math.BigDecimal.valueOf(cents, 2), row.get(1));
      }
      assertEquals(0, host.getAllocatedMemory());
    }
  }

  @Test
  void aStreamIsScannedOnceAndAFailedScanClosesWhatItHeld() {
    try (BufferAllocator host = new RootAllocator(); EngineMemory memory = EngineMemory.create("once")) {
      List<Row> rows = rows(new Random(1));
      ExecutionContext context = new ExecutionContext(memory, 2);
      Iterator<VectorSchemaRoot> batches = batches(rows, splits(new Random(2), rows.size()), host).iterator();
      try (BatchStream stream = BatchStream.of(SCHEMA, batches, null)) {
        Plan plan = Plan.scan(stream).filter(col("k").gt(lit(0)));
        plan.execute(context).close();
        var e = assertThrows(IllegalStateException.class, () -> plan.execute(context).close());
        assertTrue(e.getMessage().contains("scanned once"), e.getMessage());
      }
      assertEquals(0, host.getAllocatedMemory());

      // a batch of another schema half-way: a named error, every batch closed, nothing leaked
      List<VectorSchemaRoot> good = batches(rows, List.of(rows.size()), host);
      VectorSchemaRoot other = VectorSchemaRoot.create(new Schema(List.of(ColumnType.INT32.toField("x", true, null))), host);
      Iterator<VectorSchemaRoot> mixed = List.of(good.getFirst(), other).iterator();
      try (BatchStream stream = BatchStream.of(SCHEMA, mixed, null)) {
        var e = assertThrows(IllegalArgumentException.class,
            () -> Plan.scan(stream).aggregate(List.of(), Aggregate.countStar("n")).execute(context).close());
        assertTrue(e.getMessage().contains("batch 1"), e.getMessage());
      }
      assertEquals(0, host.getAllocatedMemory());
      assertEquals(0, memory.allocatedBytes());
    }
  }

  private static Plan plan(Plan scan, int shape) {
    return switch (shape) {
      case 0 -> scan.filter(col("k").gt(lit(-50)));
      case 1 -> scan.filter(Expr.not(Expr.isNull(col("price")))).project(col("k").as("k"), col("name").as("name"));
      case 2 -> scan.aggregate(List.of(col("name").as("name")), Aggregate.sum(col("price"), "p"),
          Aggregate.countStar("n"));
      case 3 -> scan.filter(col("k").lt(lit(60))).aggregate(List.of(col("k").as("k")), Aggregate.max(col("price"), "m"));
      case 4 -> scan.orderBy(SortKey.asc("name"), SortKey.desc("k"), SortKey.asc("price"));
      default -> scan.filter(col("k").ne(lit(7))).orderBy(SortKey.desc("price"), SortKey.asc("k"), SortKey.asc("name"))
          .limit(17);
    };
  }

  private record Row(Long k, Long priceCents, String name) {}

  private static List<Row> rows(Random random) {
    int n = random.nextInt(4) == 0 ? random.nextInt(5) : random.nextInt(40_000);
    List<Row> rows = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      Long k = random.nextInt(20) == 0 ? null : switch (random.nextInt(10)) {
        case 0 -> Long.MAX_VALUE;
        case 1 -> Long.MIN_VALUE + 1;
        default -> (long) random.nextInt(200) - 100;
      };
      Long price = random.nextInt(15) == 0 ? null : (long) random.nextInt(1_000_000);
      String name = random.nextInt(25) == 0 ? null : "n" + random.nextInt(300);
      rows.add(new Row(k, price, name));
    }
    return rows;
  }

  /** Batch sizes adding up to {@code rows}, some of them empty. */
  private static List<Integer> splits(Random random, int rows) {
    List<Integer> sizes = new ArrayList<>();
    int left = rows;
    while (left > 0) {
      int size = random.nextInt(8) == 0 ? 0 : Math.min(left, 1 + random.nextInt(Math.max(1, rows / 3 + 1)));
      sizes.add(size);
      left -= size;
    }
    return sizes;
  }

  private static List<VectorSchemaRoot> batches(List<Row> rows, List<Integer> sizes, BufferAllocator allocator) {
    List<VectorSchemaRoot> batches = new ArrayList<>();
    int at = 0;
    for (int size : sizes) {
      VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, allocator);
      BigIntVector k = (BigIntVector) root.getVector(0);
      BigIntVector price = (BigIntVector) root.getVector(1);
      VarCharVector name = (VarCharVector) root.getVector(2);
      root.allocateNew();
      for (int i = 0; i < size; i++) {
        Row row = rows.get(at + i);
        if (row.k() == null) {
          k.setNull(i);
        } else {
          k.setSafe(i, row.k());
        }
        if (row.priceCents() == null) {
          price.setNull(i);
        } else {
          price.setSafe(i, row.priceCents());
        }
        if (row.name() == null) {
          name.setNull(i);
        } else {
          name.setSafe(i, row.name().getBytes(StandardCharsets.UTF_8));
        }
      }
      root.setRowCount(size);
      batches.add(root);
      at += size;
    }
    return batches;
  }

  private static List<List<Object>> rowsOf(Table result) {
    List<List<Object>> rows = new ArrayList<>();
    for (Batch batch : result.batches()) {
      for (int r = 0; r < batch.rowCount(); r++) {
        List<Object> row = new ArrayList<>();
        for (var column : batch.columns()) {
          Object value = column.getObject(r);
          row.add(value == null ? null : value instanceof CharSequence text ? text.toString() : value);
        }
        rows.add(row);
      }
    }
    return rows;
  }

  /** The rows of a standard Arrow stream, as {@link #rowsOf(Table)} gives them. */
  private static List<List<Object>> rowsOf(ArrowReader reader) throws IOException {
    List<List<Object>> rows = new ArrayList<>();
    VectorSchemaRoot root = reader.getVectorSchemaRoot();
    while (reader.loadNextBatch()) {
      for (int r = 0; r < root.getRowCount(); r++) {
        List<Object> row = new ArrayList<>();
        for (var vector : root.getFieldVectors()) {
          Object value = vector.getObject(r);
          row.add(value == null ? null : value instanceof org.apache.arrow.vector.util.Text text ? text.toString() : value);
        }
        rows.add(row);
      }
    }
    return rows;
  }

  private static void sort(List<List<Object>> rows) {
    rows.sort((a, b) -> a.toString().compareTo(b.toString()));
  }
}
