package dev.memwall.substrait;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.UInt4Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowFileWriter;

/** An Arrow file with a column memwall does not read, for the tests of what a catalog leaves out. */
public final class UnreadableColumnFile {
  private UnreadableColumnFile() {}

  /**
   * Writes {@code file} with {@code rows} rows of {@code id BIGINT} (0, 1, ...) and {@code unsigned}, a
   * {@code uint32} column (7 times the id); the vectors are freed before this returns.
   */
  public static void write(Path file, String unsigned, int rows, BufferAllocator allocator) throws IOException {
    try (BigIntVector id = new BigIntVector("id", allocator);
        UInt4Vector values = new UInt4Vector(unsigned, allocator)) {
      for (int i = 0; i < rows; i++) {
        id.setSafe(i, i);
        values.setSafe(i, i * 7);
      }
      id.setValueCount(rows);
      values.setValueCount(rows);
      VectorSchemaRoot root = VectorSchemaRoot.of(id, values);
      try (FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
          ArrowFileWriter writer = new ArrowFileWriter(root, null, channel)) {
        writer.start();
        writer.writeBatch();
        writer.end();
      }
    }
  }
}
