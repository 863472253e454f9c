package dev.memwall.core.ipc;

import dev.memwall.core.memory.ArrowSegments;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.vector.Table;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.flatbuf.DictionaryBatch;
import org.apache.arrow.flatbuf.Footer;
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
import org.apache.arrow.vector.ipc.ArrowFileWriter;
import org.apache.arrow.vector.ipc.message.ArrowBlock;
import org.apache.arrow.vector.ipc.message.ArrowFooter;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.apache.arrow.vector.ipc.message.MessageSerializer;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.arrow.vector.util.DictionaryUtility;

/**
 * Arrow IPC files (the Arrow "file" format, uncompressed) written by Arrow Java and read back
 * <em>zero-copy</em>: {@link #map} memory-maps the file and every vector buffer is a slice of the
 * mapping, so opening a multi-GiB table costs a footer parse, not a copy.
 *
 * <p>The Arrow file format carries no checksums. {@link #map} cross-checks what it can before
 * trusting a file: the magic at both ends, the footer length, the schema at the start against the
 * footer's, that the footer's blocks lie back to back between them, and each block's lengths
 * against its message's own; all buffer accesses are bounds-checked.
 *
 * <p>Writes are atomic: data goes to a temporary sibling that is renamed over the target only once
 * complete, so a crash never leaves a half-written file under the final name.
 *
 * <p>Thread safety: stateless; the returned tables follow {@link Table}'s rules.
 */
public final class ArrowFiles {
  private static final int CONTINUATION = 0xFFFFFFFF;
  private static final byte[] MAGIC = "ARROW1".getBytes(StandardCharsets.US_ASCII);

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
   * @throws java.nio.file.FileSystemException (such as NoSuchFileException) when it cannot be opened
   */
  public static Table map(Path file, EngineMemory memory) throws IOException {
    BufferAllocator allocator = memory.arrow();
    Arena arena = Arena.ofShared();
    MemorySegment mapping;
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
      mapping = channel.map(FileChannel.MapMode.READ_ONLY, 0, channel.size(), arena);
    } catch (IOException | RuntimeException e) {
      arena.close();
      throw e; // missing, not permitted, not mappable: says nothing about the contents
    }
    // The footer is parsed straight from the mapping rather than through ArrowFileReader, which
    // copies every dictionary batch into fresh buffers sized by unvalidated footer fields (a
    // corrupt footer made it leak those buffers or attempt a multi-GiB allocation).
    // Fresh, empty dictionary vectors of the right types; filled zero-copy from the mapping below.
    Map<Long, Dictionary> dictionaries = new HashMap<>();
    List<VectorSchemaRoot> roots = new ArrayList<>();
    ArrowBuf whole = null;
    try {
      ArrowFooter footer = readFooter(file, mapping);
      checkLayout(file, mapping, footer);
      List<Field> fields = new ArrayList<>();
      for (Field field : footer.getSchema().getFields()) {
        fields.add(DictionaryUtility.toMemoryFormat(field, allocator, dictionaries));
      }
      Schema schema = new Schema(fields, footer.getSchema().getCustomMetadata());
      List<ArrowBlock> recordBlocks = footer.getRecordBatches();
      List<ArrowBlock> dictionaryBlocks = footer.getDictionaries();
      whole = allocator.wrapForeignAllocation(new MappedFile(mapping, arena));
      for (ArrowBlock block : dictionaryBlocks) {
        Message message = readMessage(file, mapping, block, MessageHeader.DictionaryBatch);
        DictionaryBatch header = (DictionaryBatch) message.header(new DictionaryBatch());
        Dictionary dictionary = dictionaries.get(header.id());
        if (dictionary == null || header.isDelta()) {
          throw new CorruptArrowFileException(file, "unexpected dictionary batch for id " + header.id(), null);
        }
        try (ArrowRecordBatch batch = deserialize(header.data(), whole, block)) {
          new VectorLoader(new VectorSchemaRoot(List.of(dictionary.getVector()))).load(batch);
        }
      }
      for (ArrowBlock block : recordBlocks) {
        Message message = readMessage(file, mapping, block, MessageHeader.RecordBatch);
        RecordBatch header = (RecordBatch) message.header(new RecordBatch());
        VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator);
        roots.add(root);
        try (ArrowRecordBatch batch = deserialize(header, whole, block)) {
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
   * The record batch in {@code block}, its buffers slices of the mapping. The body slice carries
   * one more reference on the mapping, which
   * {@link MessageSerializer#deserializeRecordBatch(RecordBatch, ArrowBuf)} consumes on success
   * and this method gives back on failure.
   */
  private static ArrowRecordBatch deserialize(RecordBatch header, ArrowBuf whole, ArrowBlock block)
      throws IOException {
    ArrowBuf body = whole.slice(block.getOffset() + block.getMetadataLength(), block.getBodyLength());
    whole.getReferenceManager().retain();
    try {
      return MessageSerializer.deserializeRecordBatch(header, body);
    } catch (IOException | RuntimeException e) {
      whole.getReferenceManager().release();
      throw e;
    }
  }

  /** The footer of the Arrow file {@code mapping}, after checking the magic and footer length. */
  private static ArrowFooter readFooter(Path file, MemorySegment mapping) throws CorruptArrowFileException {
    long size = mapping.byteSize();
    long tail = size - MAGIC.length - 4;
    if (size < 2L * MAGIC.length + 2 + 4 || !hasMagic(mapping, 0) || !hasMagic(mapping, size - MAGIC.length)) {
      throw new CorruptArrowFileException(file, "no Arrow file magic at its start and end ("
          + size + " bytes; truncated or not an Arrow file)", null);
    }
    int footerLength = mapping.get(ValueLayout.JAVA_INT_UNALIGNED, tail);
    if (footerLength <= 0 || footerLength > tail - MAGIC.length - 2) {
      throw new CorruptArrowFileException(file, "footer length " + footerLength + " does not fit in "
          + size + " bytes", null);
    }
    try {
      var buffer = mapping.asSlice(tail - footerLength, footerLength).asByteBuffer().order(ByteOrder.LITTLE_ENDIAN);
      return new ArrowFooter(Footer.getRootAsFooter(buffer));
    } catch (RuntimeException | OutOfMemoryError e) {
      // Garbage lengths inside the footer's flatbuffer can ask for impossible heap arrays.
      throw new CorruptArrowFileException(file, "cannot read its footer (" + e + ")", e);
    }
  }

  /**
   * Checks that the schema at the start of the file equals the footer's, and that the footer's
   * blocks cover the messages between the leading schema message and the footer back to back, as
   * Arrow writers lay them out (at most an 8-byte end-of-stream marker before the footer). The
   * format has no checksums; this is what catches a corrupt footer that still parses, such as one
   * listing fewer batches than the file holds.
   */
  private static void checkLayout(Path file, MemorySegment mapping, ArrowFooter footer)
      throws CorruptArrowFileException {
    long size = mapping.byteSize();
    long footerStart = size - MAGIC.length - 4 - mapping.get(ValueLayout.JAVA_INT_UNALIGNED, size - MAGIC.length - 4);
    long position = 8; // magic and padding
    int length = mapping.get(ValueLayout.JAVA_INT_UNALIGNED, position);
    position += 4;
    if (length == CONTINUATION) {
      length = mapping.get(ValueLayout.JAVA_INT_UNALIGNED, position);
      position += 4;
    }
    if (length <= 0 || length > footerStart - position) {
      throw new CorruptArrowFileException(file, "bad schema message length " + length, null);
    }
    boolean sameSchema;
    try {
      Message schemaMessage = Message.getRootAsMessage(
          mapping.asSlice(position, length).asByteBuffer().order(ByteOrder.LITTLE_ENDIAN));
      sameSchema = schemaMessage.headerType() == MessageHeader.Schema && footer.getSchema().equals(Schema.convertSchema(
          (org.apache.arrow.flatbuf.Schema) schemaMessage.header(new org.apache.arrow.flatbuf.Schema())));
    } catch (RuntimeException | OutOfMemoryError e) {
      sameSchema = false; // garbage lengths can ask for impossible heap arrays
    }
    if (!sameSchema) {
      throw new CorruptArrowFileException(file, "the schema in its footer differs from the one at its start", null);
    }
    position += length;
    List<ArrowBlock> blocks = new ArrayList<>(footer.getDictionaries());
    blocks.addAll(footer.getRecordBatches());
    blocks.sort(Comparator.comparingLong(ArrowBlock::getOffset));
    for (ArrowBlock block : blocks) {
      if (block.getOffset() != position) {
        throw new CorruptArrowFileException(file, "footer lists a block at offset " + block.getOffset()
            + " but the previous message ends at " + position, null);
      }
      position = block.getOffset() + block.getMetadataLength() + block.getBodyLength();
    }
    long gap = footerStart - position;
    if (gap < 0 || gap > 8) {
      throw new CorruptArrowFileException(file, "the footer's blocks end at offset " + position
          + " but the footer starts at " + footerStart, null);
    }
  }

  private static boolean hasMagic(MemorySegment mapping, long offset) {
    return mapping.asSlice(offset, MAGIC.length).mismatch(MemorySegment.ofArray(MAGIC)) == -1;
  }

  private static Message readMessage(Path file, MemorySegment mapping, ArrowBlock block, byte expectedType)
      throws CorruptArrowFileException {
    long size = mapping.byteSize();
    if (block.getOffset() < 0 || block.getMetadataLength() < 8 || block.getBodyLength() < 0
        || block.getOffset() > size || block.getMetadataLength() > size - block.getOffset()
        || block.getBodyLength() > size - block.getOffset() - block.getMetadataLength()) {
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
    if (length <= 0 || position + length != block.getOffset() + block.getMetadataLength()) {
      throw new CorruptArrowFileException(file, "message length " + length + " at offset " + block.getOffset()
          + " disagrees with the footer's metadata length " + block.getMetadataLength(), null);
    }
    var buffer = mapping.asSlice(position, length).asByteBuffer().order(ByteOrder.LITTLE_ENDIAN);
    Message message = Message.getRootAsMessage(buffer);
    if (message.bodyLength() != block.getBodyLength()) {
      throw new CorruptArrowFileException(file, "message body length " + message.bodyLength() + " at offset "
          + block.getOffset() + " disagrees with the footer's " + block.getBodyLength(), null);
    }
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
