package dev.memwall.core.ipc;

import dev.memwall.core.memory.ArrowSegments;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.vector.Table;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.flatbuf.DictionaryBatch;
import org.apache.arrow.flatbuf.Message;
import org.apache.arrow.flatbuf.MessageHeader;
import org.apache.arrow.flatbuf.RecordBatch;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.ForeignAllocation;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorLoader;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.VectorUnloader;
import org.apache.arrow.vector.dictionary.Dictionary;
import org.apache.arrow.vector.ipc.ArrowFileReader;
import org.apache.arrow.vector.ipc.ArrowFileWriter;
import org.apache.arrow.vector.ipc.message.ArrowBlock;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.apache.arrow.vector.ipc.message.MessageSerializer;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Arrow IPC files (the Arrow "file" format, uncompressed) written by Arrow Java and read back
 * <em>zero-copy</em>: {@link #map} memory-maps the file and every vector buffer is a slice of the
 * mapping, so opening a multi-GiB table costs a footer parse, not a copy.
 *
 * <p>Writes are atomic: data goes to a temporary sibling that is renamed over the target only once
 * complete, so a crash never leaves a half-written file under the final name.
 *
 * <p>Thread safety: stateless; the returned tables follow {@link Table}'s rules.
 */
public final class ArrowFiles {
  private static final int CONTINUATION = 0xFFFFFFFF;

  private ArrowFiles() {}

  /**
   * Writes every batch of {@code table}, with its dictionaries, to {@code file} atomically.
   * The table's buffers are only read.
   */
  public static void write(Path file, Table table, BufferAllocator allocator) throws IOException {
    Path temporary = file.resolveSibling(file.getFileName() + ".tmp");
    try (VectorSchemaRoot staging = VectorSchemaRoot.create(table.schema(), allocator);
        FileChannel channel = FileChannel.open(temporary, StandardOpenOption.CREATE,
            StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE);
        ArrowFileWriter writer = new ArrowFileWriter(staging, table.provider(), channel)) {
      writer.start();
      VectorLoader loader = new VectorLoader(staging);
      for (VectorSchemaRoot root : table.roots()) {
        try (ArrowRecordBatch batch = new VectorUnloader(root).getRecordBatch()) {
          loader.load(batch);
        }
        writer.writeBatch();
      }
      writer.end();
      channel.force(true);
    } catch (IOException | RuntimeException e) {
      Files.deleteIfExists(temporary);
      throw e;
    }
    Files.move(temporary, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
  }

  /**
   * Maps {@code file} read-only and returns its batches without copying them. The mapping stays
   * until the table and every vector taken from it are closed.
   *
   * @throws CorruptArrowFileException naming the file when it is truncated, corrupt, compressed or
   *     not an Arrow file
   */
  public static Table map(Path file, EngineMemory memory) throws IOException {
    BufferAllocator allocator = memory.arrow();
    Schema schema;
    List<ArrowBlock> recordBlocks;
    List<ArrowBlock> dictionaryBlocks;
    // Fresh, empty dictionary vectors of the right types; filled zero-copy from the mapping below.
    Map<Long, Dictionary> dictionaries = new HashMap<>();
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ);
        ArrowFileReader reader = new ArrowFileReader(channel, allocator)) {
      schema = reader.getVectorSchemaRoot().getSchema();
      recordBlocks = reader.getRecordBlocks();
      dictionaryBlocks = reader.getDictionaryBlocks();
      for (Map.Entry<Long, Dictionary> entry : reader.getDictionaryVectors().entrySet()) {
        Dictionary template = entry.getValue();
        dictionaries.put(entry.getKey(),
            new Dictionary(template.getVector().getField().createVector(allocator), template.getEncoding()));
      }
    } catch (IOException | RuntimeException e) {
      dictionaries.values().forEach(d -> d.getVector().close());
      throw new CorruptArrowFileException(file, "cannot read its footer (" + e.getMessage() + ")", e);
    }

    Arena arena = Arena.ofShared();
    List<VectorSchemaRoot> roots = new ArrayList<>();
    ArrowBuf whole = null;
    try {
      MemorySegment mapping;
      try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
        mapping = channel.map(FileChannel.MapMode.READ_ONLY, 0, channel.size(), arena);
      }
      whole = allocator.wrapForeignAllocation(new MappedFile(mapping, arena));
      for (ArrowBlock block : dictionaryBlocks) {
        Message message = readMessage(file, mapping, block, MessageHeader.DictionaryBatch);
        DictionaryBatch header = (DictionaryBatch) message.header(new DictionaryBatch());
        Dictionary dictionary = dictionaries.get(header.id());
        if (dictionary == null || header.isDelta()) {
          throw new CorruptArrowFileException(file, "unexpected dictionary batch for id " + header.id(), null);
        }
        try (ArrowRecordBatch batch = MessageSerializer.deserializeRecordBatch(header.data(), body(whole, block))) {
          new VectorLoader(new VectorSchemaRoot(List.of(dictionary.getVector()))).load(batch);
        }
      }
      for (ArrowBlock block : recordBlocks) {
        Message message = readMessage(file, mapping, block, MessageHeader.RecordBatch);
        RecordBatch header = (RecordBatch) message.header(new RecordBatch());
        VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator);
        roots.add(root);
        try (ArrowRecordBatch batch = MessageSerializer.deserializeRecordBatch(header, body(whole, block))) {
          new VectorLoader(root).load(batch);
        }
      }
      whole.close();
      return Table.own(schema, roots, dictionaries);
    } catch (IOException | RuntimeException e) {
      roots.forEach(VectorSchemaRoot::close);
      dictionaries.values().forEach(d -> d.getVector().close());
      if (whole != null) {
        whole.close();
      } else {
        arena.close();
      }
      throw e instanceof CorruptArrowFileException c ? c
          : new CorruptArrowFileException(file, e.getMessage(), e);
    }
  }

  /**
   * The body of {@code block} as a slice of the mapping, with one more reference on the mapping:
   * {@link MessageSerializer#deserializeRecordBatch(RecordBatch, ArrowBuf)} consumes one.
   */
  private static ArrowBuf body(ArrowBuf whole, ArrowBlock block) {
    whole.getReferenceManager().retain();
    return whole.slice(block.getOffset() + block.getMetadataLength(), block.getBodyLength());
  }

  private static Message readMessage(Path file, MemorySegment mapping, ArrowBlock block, byte expectedType)
      throws CorruptArrowFileException {
    long end = block.getOffset() + block.getMetadataLength() + block.getBodyLength();
    if (block.getOffset() < 0 || block.getMetadataLength() < 8 || block.getBodyLength() < 0 || end > mapping.byteSize()) {
      throw new CorruptArrowFileException(file, "block at offset " + block.getOffset()
          + " extends past the end of the file (" + mapping.byteSize() + " bytes)", null);
    }
    long position = block.getOffset();
    int length = mapping.get(ValueLayout.JAVA_INT_UNALIGNED, position);
    position += 4;
    if (length == CONTINUATION) {
      length = mapping.get(ValueLayout.JAVA_INT_UNALIGNED, position);
      position += 4;
    }
    if (length <= 0 || position + length > block.getOffset() + block.getMetadataLength()) {
      throw new CorruptArrowFileException(file, "bad message length " + length + " at offset " + block.getOffset(), null);
    }
    var buffer = mapping.asSlice(position, length).asByteBuffer().order(ByteOrder.LITTLE_ENDIAN);
    Message message = Message.getRootAsMessage(buffer);
    if (message.headerType() != expectedType) {
      throw new CorruptArrowFileException(file, "expected message type " + MessageHeader.name(expectedType)
          + " at offset " + block.getOffset() + ", found " + message.headerType(), null);
    }
    if (expectedType == MessageHeader.RecordBatch) {
      RecordBatch header = (RecordBatch) message.header(new RecordBatch());
      if (header.compression() != null) {
        throw new CorruptArrowFileException(file, "compressed record batches are not supported (memwall maps files zero-copy)", null);
      }
    }
    return message;
  }

  /** The mapping as an Arrow foreign allocation: released (unmapped) with its last buffer. */
  private static final class MappedFile extends ForeignAllocation {
    private final MemorySegment mapping;
    private final Arena arena;

    MappedFile(MemorySegment mapping, Arena arena) {
      super(mapping.byteSize(), mapping.address());
      this.mapping = mapping;
      this.arena = arena;
      ArrowSegments.register(mapping);
    }

    @Override
    protected void release0() {
      ArrowSegments.unregister(mapping);
      arena.close();
    }
  }
}
