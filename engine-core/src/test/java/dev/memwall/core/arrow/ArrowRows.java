package dev.memwall.core.arrow;

import dev.memwall.core.vector.Batch;
import dev.memwall.core.vector.Table;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.Channels;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.dictionary.Dictionary;
import org.apache.arrow.vector.ipc.ArrowFileReader;
import org.apache.arrow.vector.ipc.ArrowFileWriter;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.DictionaryEncoding;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.arrow.vector.util.ByteArrayReadableSeekableByteChannel;
import org.apache.arrow.vector.util.Text;

/**
 * Test helpers: rows of memwall tables and of Arrow readers as comparable Java values (strings as
 * {@link String}, dates as {@link LocalDate}, decimals as {@link java.math.BigDecimal} of the
 * column's scale), and a reader's stream written to IPC bytes.
 */
final class ArrowRows {
  /** Rows and batch sizes of a stream. */
  record Stream(Schema schema, List<Integer> batchRows, List<List<Object>> rows) {}

  private ArrowRows() {}

  /** The rows of {@code table} as memwall itself reads them. */
  static List<List<Object>> rows(Table table) {
    List<List<Object>> rows = new ArrayList<>();
    for (Batch batch : table.batches()) {
      for (int r = 0; r < batch.rowCount(); r++) {
        List<Object> row = new ArrayList<>();
        for (var column : batch.columns()) {
          row.add(column.getObject(r));
        }
        rows.add(row);
      }
    }
    return rows;
  }

  /** Every remaining batch of {@code reader}, which must be of a schema without dictionaries. */
  static Stream read(ArrowReader reader) throws IOException {
    VectorSchemaRoot root = reader.getVectorSchemaRoot();
    List<Integer> sizes = new ArrayList<>();
    List<List<Object>> rows = new ArrayList<>();
    while (reader.loadNextBatch()) {
      sizes.add(root.getRowCount());
      rows.addAll(rows(root));
    }
    return new Stream(root.getSchema(), sizes, rows);
  }

  /** The rows of one standard batch. */
  static List<List<Object>> rows(VectorSchemaRoot root) {
    List<List<Object>> rows = new ArrayList<>();
    for (int r = 0; r < root.getRowCount(); r++) {
      List<Object> row = new ArrayList<>();
      for (FieldVector vector : root.getFieldVectors()) {
        row.add(value(vector, r));
      }
      rows.add(row);
    }
    return rows;
  }

  private static Object value(FieldVector vector, int row) {
    if (vector.isNull(row)) {
      return null;
    }
    return switch (vector) {
      case DateDayVector dates -> LocalDate.ofEpochDay(dates.get(row));
      default -> vector.getObject(row) instanceof Text text ? text.toString() : vector.getObject(row);
    };
  }

  /** The reader's whole stream in Arrow's IPC stream format. */
  static byte[] writeStream(TableReader reader) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ArrowStreamWriter writer = new ArrowStreamWriter(reader.getVectorSchemaRoot(), null, Channels.newChannel(bytes))) {
      writer.start();
      while (reader.loadNextBatch()) {
        writer.writeBatch();
      }
      writer.end();
    }
    return bytes.toByteArray();
  }

  /** The reader's whole stream in Arrow's IPC file format. */
  static byte[] writeFile(TableReader reader) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ArrowFileWriter writer = new ArrowFileWriter(reader.getVectorSchemaRoot(), null, Channels.newChannel(bytes))) {
      writer.start();
      while (reader.loadNextBatch()) {
        writer.writeBatch();
      }
      writer.end();
    }
    return bytes.toByteArray();
  }

  /** Reads back bytes of {@link #writeStream}. */
  static Stream readStream(byte[] bytes, BufferAllocator allocator) {
    try (ArrowStreamReader reader = new ArrowStreamReader(new ByteArrayInputStream(bytes), allocator)) {
      return read(reader);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Reads back bytes of {@link #writeFile}. */
  static Stream readFile(byte[] bytes, BufferAllocator allocator) {
    try (ArrowFileReader reader = new ArrowFileReader(new ByteArrayReadableSeekableByteChannel(bytes), allocator)) {
      return read(reader);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Strings as rows of one column each. */
  static List<List<Object>> column(Object... values) {
    List<List<Object>> rows = new ArrayList<>();
    for (Object value : values) {
      rows.add(Arrays.asList(value));
    }
    return rows;
  }

  /** A dictionary-encoded string field with codes of {@code bits} (8, 16 or 32). */
  static DictionaryEncoding encoding(long id, int bits) {
    return new DictionaryEncoding(id, false, new ArrowType.Int(bits, true));
  }

  /** A table owning {@code roots} and {@code dictionaries}. */
  static Table own(Schema schema, List<VectorSchemaRoot> roots, List<Dictionary> dictionaries) {
    return Table.own(schema, roots, dictionaries.stream().collect(
        Collectors.toMap(d -> d.getEncoding().getId(), d -> d)));
  }
}
