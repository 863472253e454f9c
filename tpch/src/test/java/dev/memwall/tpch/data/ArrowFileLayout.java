package dev.memwall.tpch.data;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BufferLayout;
import org.apache.arrow.vector.TypeLayout;
import org.apache.arrow.vector.ipc.ArrowFileReader;
import org.apache.arrow.vector.ipc.ReadChannel;
import org.apache.arrow.vector.ipc.message.ArrowBlock;
import org.apache.arrow.vector.ipc.message.ArrowBuffer;
import org.apache.arrow.vector.ipc.message.ArrowDictionaryBatch;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.apache.arrow.vector.ipc.message.MessageSerializer;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * Where each buffer of an Arrow file lies, by kind, read with Arrow Java's own reader: the fault
 * injection flips bytes of one kind of buffer at a time. Test-only; flat schemas (TPC-H's).
 */
final class ArrowFileLayout {
  private ArrowFileLayout() {}

  /** The kinds of bytes of an Arrow file a fault can hit. */
  enum Kind {
    FIXED_WIDTH, VALIDITY, OFFSETS, DICTIONARY_INDICES, STRING_DATA, DICTIONARY_VALUES, BATCH_METADATA
  }

  /** One span of a file: its kind, the column ("" for metadata), the batch (-1 for a dictionary) and its bytes. */
  record Span(Path file, Kind kind, String column, int batch, long offset, long length) {}

  static List<Span> spans(Path file) throws IOException {
    List<Span> spans = new ArrayList<>();
    try (BufferAllocator allocator = new RootAllocator();
         FileChannel channel = FileChannel.open(file, StandardOpenOption.READ);
         ArrowFileReader reader = new ArrowFileReader(channel, allocator)) {
      List<Field> fields = reader.getVectorSchemaRoot().getSchema().getFields();
      List<ArrowBlock> batches = reader.getRecordBlocks();
      for (int batch = 0; batch < batches.size(); batch++) {
        ArrowBlock block = batches.get(batch);
        spans.add(new Span(file, Kind.BATCH_METADATA, "", batch, block.getOffset(), block.getMetadataLength()));
        channel.position(block.getOffset());
        try (ArrowRecordBatch records = MessageSerializer.deserializeRecordBatch(new ReadChannel(channel), block,
            allocator)) {
          List<ArrowBuffer> buffers = records.getBuffersLayout();
          long body = block.getOffset() + block.getMetadataLength();
          int next = 0;
          for (Field field : fields) {
            for (BufferLayout layout : TypeLayout.getTypeLayout(field.getType()).getBufferLayouts()) {
              ArrowBuffer buffer = buffers.get(next++);
              Kind kind = switch (layout.getType()) {
                case VALIDITY -> Kind.VALIDITY;
                case OFFSET -> Kind.OFFSETS;
                case DATA -> field.getDictionary() != null ? Kind.DICTIONARY_INDICES
                    : field.getType() instanceof ArrowType.Utf8 ? Kind.STRING_DATA : Kind.FIXED_WIDTH;
                default -> throw new IllegalStateException("unexpected buffer " + layout + " of " + field);
              };
              spans.add(new Span(file, kind, field.getName(), batch, body + buffer.getOffset(), buffer.getSize()));
            }
          }
        }
      }
      for (ArrowBlock block : reader.getDictionaryBlocks()) {
        channel.position(block.getOffset());
        try (ArrowDictionaryBatch dictionary = MessageSerializer.deserializeDictionaryBatch(new ReadChannel(channel),
            block, allocator)) {
          long body = block.getOffset() + block.getMetadataLength();
          for (ArrowBuffer buffer : dictionary.getDictionary().getBuffersLayout()) {
            spans.add(new Span(file, Kind.DICTIONARY_VALUES, "dictionary " + dictionary.getDictionaryId(), -1,
                body + buffer.getOffset(), buffer.getSize()));
          }
        }
      }
    }
    return spans;
  }
}
