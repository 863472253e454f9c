package dev.memwall.core.ipc;

import dev.memwall.core.vector.Table;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.LargeVarCharVector;
import org.apache.arrow.vector.TimeMicroVector;
import org.apache.arrow.vector.TimeStampMicroTZVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VectorLoader;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.VectorUnloader;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.ipc.ArrowFileWriter;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.apache.arrow.vector.ipc.ArrowWriter;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.apache.arrow.vector.ipc.message.IpcOption;
import org.apache.arrow.vector.types.MetadataVersion;

/**
 * Arrow IPC files and streams written the way other Arrow libraries write them (pyarrow's
 * {@code large_string}, {@code timestamp[us, tz=UTC]}, {@code time64} and {@code binary} columns,
 * the stream format), with Arrow Java's own writers.
 */
final class ForeignArrowFiles {
  /** The IPC layouts a writer can produce. */
  enum Layout { FILE, STREAM, LEGACY_STREAM }

  private ForeignArrowFiles() {}

  /**
   * Writes {@code batches} batches of {@code rows} rows with columns id (int64, row number),
   * ls (large_string "s" + id), ts (timestamp[us, UTC], id seconds), and two of types memwall does
   * not read: tm (time64[us], id microseconds) and bin (binary, id's bytes) to {@code file}.
   */
  static void writeWithLargeStringAndTimestamp(Path file, Layout layout, int batches, int rows,
      BufferAllocator allocator) throws IOException {
    try (BigIntVector id = new BigIntVector("id", allocator);
        LargeVarCharVector ls = new LargeVarCharVector("ls", allocator);
        TimeStampMicroTZVector ts = new TimeStampMicroTZVector("ts", allocator, "UTC");
        TimeMicroVector tm = new TimeMicroVector("tm", allocator);
        VarBinaryVector bin = new VarBinaryVector("bin", allocator);
        VectorSchemaRoot root = new VectorSchemaRoot(List.<FieldVector>of(id, ls, ts, tm, bin));
        FileChannel channel = open(file);
        ArrowWriter writer = writer(layout, root, null, channel)) {
      writer.start();
      for (int b = 0; b < batches; b++) {
        root.allocateNew();
        for (int i = 0; i < rows; i++) {
          long value = (long) b * rows + i;
          id.setSafe(i, value);
          ls.setSafe(i, ("s" + value).getBytes(StandardCharsets.UTF_8));
          ts.setSafe(i, value * 1_000_000);
          tm.setSafe(i, value);
          bin.setSafe(i, Long.toString(value).getBytes(StandardCharsets.UTF_8));
        }
        root.setRowCount(rows);
        writer.writeBatch();
      }
      writer.end();
    }
  }

  /** Writes every batch of {@code table}, with its dictionaries, to {@code file} in {@code layout}. */
  static void write(Path file, Layout layout, Table table, BufferAllocator allocator) throws IOException {
    try (VectorSchemaRoot staging = VectorSchemaRoot.create(table.schema(), allocator);
        FileChannel channel = open(file);
        ArrowWriter writer = writer(layout, staging, table.provider(), channel)) {
      writer.start();
      VectorLoader loader = new VectorLoader(staging);
      for (VectorSchemaRoot root : table.roots()) {
        try (ArrowRecordBatch batch = new VectorUnloader(root).getRecordBatch()) {
          loader.load(batch);
        }
        writer.writeBatch();
      }
      writer.end();
    }
  }

  static ArrowWriter writer(Layout layout, VectorSchemaRoot root, DictionaryProvider provider, FileChannel channel) {
    return switch (layout) {
      case FILE -> new ArrowFileWriter(root, provider, channel);
      case STREAM -> new ArrowStreamWriter(root, provider, channel);
      case LEGACY_STREAM -> new ArrowStreamWriter(root, provider, channel, new IpcOption(true, MetadataVersion.V4));
    };
  }

  static FileChannel open(Path file) throws IOException {
    return FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING,
        StandardOpenOption.WRITE);
  }
}
