package dev.memwall.core.ipc;

import dev.memwall.core.memory.ArrowSegments;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.vector.ReadableSchema;
import dev.memwall.core.vector.Table;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
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
import org.apache.arrow.vector.types.pojo.DictionaryEncoding;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.arrow.vector.util.DictionaryUtility;

/**
 * Arrow IPC files (the Arrow "file" format, uncompressed) written by Arrow Java and read back
 * <em>zero-copy</em>: {@link #map} memory-maps the file and every vector buffer is a slice of the
 * mapping, so opening a multi-GiB table costs a footer parse, not a copy. Arrow IPC streams (the
 * format without a footer) saved to a file are mapped the same way, after a walk over their
 * message headers; columns of Arrow types memwall does not read are left out (see {@link #map}).
 *
 * <p>The Arrow file format carries no checksums. {@link #map} cross-checks what it can before
 * trusting a file: the magic at both ends, the footer length, the schema at the start against the
 * footer's, that the footer's blocks lie back to back between them, and each block's lengths
 * against its message's own (a stream's: that every message lies within the file); all buffer
 * accesses are bounds-checked.
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
   * Writes every batch of {@code table}, with its dictionaries, to {@code file} atomically: into the
   * temporary sibling {@code <file>.tmp}, renamed over {@code file} once complete. The table's buffers
   * are only read.
   *
   * <p>On failure the temporary file is removed and {@code file} is left as it was. An I/O failure is a
   * {@link FileSystemException} naming the file it happened on and the system's reason (such as "No
   * space left on device", which the channel itself reports without a file name).
   */
  public static void write(Path file, Table table, BufferAllocator allocator) throws IOException {
    Path temporary = file.resolveSibling(file.getFileName() + ".tmp");
    try {
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
      } catch (FileSystemException | ClosedChannelException e) {
        throw e; // named already, or an interrupt
      } catch (IOException e) {
        throw named(temporary, e);
      }
      Files.move(temporary, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException | RuntimeException e) {
      try {
        Files.deleteIfExists(temporary);
      } catch (IOException suppressed) {
        e.addSuppressed(suppressed);
      }
      throw e;
    }
  }

  /** {@code e}, which names no file, as a {@link FileSystemException} naming {@code file}. */
  private static FileSystemException named(Path file, IOException e) {
    FileSystemException named = new FileSystemException(file.toString(), null, e.getMessage());
    named.initCause(e);
    return named;
  }

  /**
   * Maps {@code file} read-only and returns its batches without copying them. The mapping stays
   * until the table and every vector taken from it are closed.
   *
   * <p>Both Arrow IPC formats are read: the file format ({@code ARROW1} magic, footer) and the
   * stream format (what {@code ArrowStreamWriter} and pyarrow's {@code new_stream} write: messages
   * back to back after a continuation marker or, before Arrow 0.15, a bare length), told apart by
   * their first bytes. A stream is walked message by message and checked as a file is, and its
   * batches are slices of the mapping too.
   *
   * <p>Columns of Arrow types memwall does not read (such as unsigned integers, {@code time64},
   * {@code binary} and nested types, which pyarrow writes) are left out of the table, so the others
   * stay readable; a query naming one fails with a one-line message naming the column, its Arrow
   * type and the file ({@link Table#leftOut}).
   *
   * <p>Before the table is returned, every batch's structure is validated (field nodes and buffer
   * sizes before loading, string offsets and dictionary indices after), so that no corrupt offset or index reaches a
   * kernel or a native reader; {@link #mapTrusted} skips that pass.
   *
   * @throws CorruptArrowFileException naming the file when it is truncated, corrupt, compressed, a
   *     stream that replaces or extends a dictionary after record batches, or not Arrow at all; a
   *     batch whose structure is invalid also names the batch and the column
   * @throws java.nio.file.FileSystemException (such as NoSuchFileException) when it cannot be opened
   */
  public static Table map(Path file, EngineMemory memory) throws IOException {
    return map(file, memory, true);
  }

  /**
   * As {@link #map}, without the structural validation of the batches' buffers: for data the caller
   * has verified itself (checksums it keeps) or trusts, where one pass over every string offset and
   * dictionary index on opening costs too much. The checks of the file's layout and of each batch's
   * metadata (field node lengths and buffer sizes, which loading itself relies on) still run. A file
   * with a corrupt offset or index read this way can make a query fail with an internal error or, in
   * native readers such as DuckDB, crash the process.
   */
  public static Table mapTrusted(Path file, EngineMemory memory) throws IOException {
    return map(file, memory, false);
  }

  /**
   * The structural validation {@link #map} runs, for a file mapped with {@link #mapTrusted} of which a
   * reader reads only some record batches and columns, so that it pays for what it reads (the pass
   * touches every string offset and dictionary index it checks, and the pages under them): the named
   * columns of {@code batches} and their dictionaries.
   *
   * @param batches consecutive record batches of {@code file}, such as a {@link Table#borrow} of some
   *     of its roots
   * @param firstBatch the number of {@code batches}' first batch in the file, for the message
   * @param columns the columns to check, by name; a name the table lacks is ignored
   * @throws CorruptArrowFileException naming the file, the record batch and the column
   */
  public static void checkStructure(Path file, Table batches, int firstBatch, Collection<String> columns)
      throws CorruptArrowFileException {
    Map<Long, Dictionary> dictionaries = new HashMap<>();
    List<VectorSchemaRoot> views = new ArrayList<>(batches.roots().size());
    for (VectorSchemaRoot root : batches.roots()) {
      List<FieldVector> vectors = new ArrayList<>(columns.size());
      for (String column : columns) {
        FieldVector vector = root.getVector(column);
        if (vector == null) {
          continue;
        }
        vectors.add(vector);
        DictionaryEncoding encoding = vector.getField().getDictionary();
        if (encoding != null && batches.dictionaries().containsKey(encoding.getId())) {
          dictionaries.put(encoding.getId(), batches.dictionaries().get(encoding.getId()));
        }
      }
      views.add(new VectorSchemaRoot(vectors)); // a view over the table's vectors: never closed here
    }
    ArrowStructure.check("Arrow file", file, views, firstBatch, dictionaries);
  }

  private static Table map(Path file, EngineMemory memory, boolean validate) throws IOException {
    BufferAllocator allocator = memory.arrow();
    Arena arena = Arena.ofShared();
    MemorySegment mapping;
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
      mapping = channel.map(FileChannel.MapMode.READ_ONLY, 0, channel.size(), arena);
    } catch (IOException | RuntimeException e) {
      arena.close();
      throw e; // missing, not permitted, not mappable: says nothing about the contents
    }
    boolean stream = isStream(mapping);
    String format = stream ? "Arrow IPC stream" : "Arrow file";
    // The footer is parsed straight from the mapping rather than through ArrowFileReader, which
    // copies every dictionary batch into fresh buffers sized by unvalidated footer fields (a
    // corrupt footer made it leak those buffers or attempt a multi-GiB allocation); a stream is
    // walked the same way rather than read through ArrowStreamReader, which copies every batch and
    // allocates each message's body, sized by the message's unchecked length, before reading it.
    // Fresh, empty dictionary vectors of the right types; filled zero-copy from the mapping below.
    Map<Long, Dictionary> dictionaries = new HashMap<>();
    List<VectorSchemaRoot> roots = new ArrayList<>();
    ReadableSchema readable;
    ArrowBuf whole = null;
    try {
      List<Part> parts;
      Schema written;
      if (stream) {
        parts = walkStream(file, mapping);
        written = MessageSerializer.deserializeSchema(parts.removeFirst().message());
      } else {
        ArrowFooter footer = readFooter(file, mapping);
        checkLayout(file, mapping, footer);
        written = footer.getSchema();
        parts = new ArrayList<>();
        for (ArrowBlock block : footer.getDictionaries()) {
          parts.add(new Part(block, readMessage(file, mapping, block, MessageHeader.DictionaryBatch)));
        }
        for (ArrowBlock block : footer.getRecordBatches()) {
          parts.add(new Part(block, readMessage(file, mapping, block, MessageHeader.RecordBatch)));
        }
      }
      List<Field> fields = new ArrayList<>();
      for (Field field : written.getFields()) {
        fields.add(DictionaryUtility.toMemoryFormat(field, allocator, dictionaries));
      }
      Schema schema = new Schema(fields, written.getCustomMetadata());
      readable = ReadableSchema.of(schema, id -> {
        Dictionary dictionary = dictionaries.get(id);
        return dictionary == null ? null : dictionary.getVector().getField().getType();
      }, "in " + file + "; ArrowFiles.map left the column out");
      Set<Long> used = new HashSet<>();
      for (Field field : readable.schema().getFields()) {
        if (field.getDictionary() != null) {
          used.add(field.getDictionary().getId());
        }
      }
      whole = allocator.wrapForeignAllocation(new MappedFile(mapping, arena));
      for (Part part : parts) {
        ArrowBlock block = part.block();
        if (part.message().headerType() == MessageHeader.DictionaryBatch) {
          DictionaryBatch header = (DictionaryBatch) part.message().header(new DictionaryBatch());
          Dictionary dictionary = dictionaries.get(header.id());
          if (dictionary == null || header.isDelta() || !roots.isEmpty()) {
            throw new CorruptArrowFileException(format, file, dictionary == null
                ? "unexpected dictionary batch for id " + header.id()
                : (header.isDelta() ? "extends" : "replaces") + " dictionary " + header.id() + " at offset "
                    + block.getOffset() + (roots.isEmpty() ? "" : ", after record batches")
                    + "; memwall reads one dictionary per column, written before the first record batch", null);
          }
          if (used.contains(header.id())) {
            FieldVector values = dictionary.getVector();
            load(new VectorSchemaRoot(List.of(values)), format, file, "dictionary " + header.id(),
                deserialize(header.data(), whole, block), List.of(values.getField()), new boolean[] {true});
          }
        } else {
          RecordBatch header = (RecordBatch) part.message().header(new RecordBatch());
          VectorSchemaRoot root = VectorSchemaRoot.create(readable.schema(), allocator);
          roots.add(root);
          load(root, format, file, "record batch " + (roots.size() - 1), deserialize(header, whole, block),
              fields, readable.kept());
        }
      }
      dictionaries.keySet().removeIf(id -> {
        if (used.contains(id)) {
          return false;
        }
        dictionaries.get(id).getVector().close(); // a left-out column's: never loaded
        return true;
      });
      if (validate) {
        ArrowStructure.check(format, file, roots, 0, dictionaries);
      }
    } catch (IOException | RuntimeException e) {
      roots.forEach(VectorSchemaRoot::close);
      dictionaries.values().forEach(d -> d.getVector().close());
      if (whole == null) {
        arena.close();
      }
      throw e instanceof CorruptArrowFileException c ? c : new CorruptArrowFileException(format, file, e.getMessage(), e);
    } finally {
      if (whole != null) {
        whole.close(); // exactly once: from here on the batches' and dictionaries' slices hold the mapping
      }
    }
    return Table.own(readable.schema(), roots, dictionaries);
  }

  /**
   * Loads {@code batch}'s {@code kept} columns into {@code root} (of those columns), after
   * {@link BatchLayout} checked them; closes {@code batch}.
   */
  private static void load(VectorSchemaRoot root, String format, Path file, String what, ArrowRecordBatch batch,
      List<Field> fields, boolean[] kept) throws CorruptArrowFileException {
    try (batch; ArrowRecordBatch readable = BatchLayout.keep(format, file, what, batch, fields, kept)) {
      new VectorLoader(root).load(readable);
    }
  }

  /** One message of a file or stream: where it lies, and its metadata (read from the mapping). */
  private record Part(ArrowBlock block, Message message) {}

  /**
   * Whether {@code mapping} starts as an Arrow IPC stream rather than a file: with the continuation
   * marker, or (the format before Arrow 0.15) with the length of a schema message that fits.
   */
  private static boolean isStream(MemorySegment mapping) {
    long size = mapping.byteSize();
    if (size < 4 || (size >= MAGIC.length && hasMagic(mapping, 0))) {
      return false;
    }
    int length = mapping.get(ValueLayout.JAVA_INT_UNALIGNED, 0);
    if (length == CONTINUATION) {
      return true;
    }
    if (length <= 0 || length > size - 4) {
      return false;
    }
    try {
      return Message.getRootAsMessage(mapping.asSlice(4, length).asByteBuffer().order(ByteOrder.LITTLE_ENDIAN))
          .headerType() == MessageHeader.Schema;
    } catch (RuntimeException e) {
      return false; // not a flatbuffer at all
    }
  }

  /**
   * The messages of the Arrow IPC stream {@code mapping}, in order, up to its end-of-stream marker
   * or its end: a schema, then dictionary and record batches. Checks that each message's metadata
   * and body lie within the file (before anything is allocated for them) and that record batches
   * are uncompressed; each is then checked as a file's blocks are.
   */
  private static List<Part> walkStream(Path file, MemorySegment mapping) throws CorruptArrowFileException {
    String format = "Arrow IPC stream";
    long size = mapping.byteSize();
    List<Part> parts = new ArrayList<>();
    long position = 0;
    while (position < size) {
      long start = position;
      int length = CONTINUATION;
      for (int prefix = 0; length == CONTINUATION && prefix < 2; prefix++) { // marker, then length
        if (size - position < 4) {
          throw new CorruptArrowFileException(format, file, "truncated in the message at offset " + start, null);
        }
        length = mapping.get(ValueLayout.JAVA_INT_UNALIGNED, position);
        position += 4;
      }
      if (length == 0) {
        break; // end-of-stream marker
      }
      if (length < 0 || length > size - position) {
        throw new CorruptArrowFileException(format, file, "the message at offset " + start + " has " + length
            + " bytes of metadata but the file ends " + (size - position) + " bytes later (truncated?)", null);
      }
      byte type;
      long body;
      try {
        Message message = Message.getRootAsMessage(
            mapping.asSlice(position, length).asByteBuffer().order(ByteOrder.LITTLE_ENDIAN));
        type = message.headerType();
        body = message.bodyLength();
      } catch (RuntimeException e) {
        throw new CorruptArrowFileException(format, file, "cannot read the message at offset " + start + " (" + e + ")", e);
      }
      position += length;
      if (body < 0 || body > size - position) {
        throw new CorruptArrowFileException(format, file, "the message at offset " + start + " has a body of "
            + body + " bytes but the file ends " + (size - position) + " bytes later (truncated?)", null);
      }
      byte expected = parts.isEmpty() ? MessageHeader.Schema
          : type == MessageHeader.DictionaryBatch ? type : MessageHeader.RecordBatch;
      ArrowBlock block = new ArrowBlock(start, (int) (position - start), body);
      parts.add(new Part(block, readMessage(format, file, mapping, block, expected)));
      position += body;
    }
    if (parts.isEmpty()) {
      throw new CorruptArrowFileException(format, file, "no schema message (" + size + " bytes)", null);
    }
    return parts;
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
    return readMessage("Arrow file", file, mapping, block, expectedType);
  }

  /**
   * The metadata of the message in {@code block}, after checking that it lies within the file,
   * agrees with the block's lengths, has the expected type and (a record batch) is uncompressed.
   *
   * @param format what the file is read as, for the messages: "Arrow file" or "Arrow IPC stream"
   */
  private static Message readMessage(String format, Path file, MemorySegment mapping, ArrowBlock block,
      byte expectedType) throws CorruptArrowFileException {
    long size = mapping.byteSize();
    if (block.getOffset() < 0 || block.getMetadataLength() < 8 || block.getBodyLength() < 0
        || block.getOffset() > size || block.getMetadataLength() > size - block.getOffset()
        || block.getBodyLength() > size - block.getOffset() - block.getMetadataLength()) {
      throw new CorruptArrowFileException(format, file, "block at offset " + block.getOffset()
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
      throw new CorruptArrowFileException(format, file, "message length " + length + " at offset " + block.getOffset()
          + " disagrees with the footer's metadata length " + block.getMetadataLength(), null);
    }
    var buffer = mapping.asSlice(position, length).asByteBuffer().order(ByteOrder.LITTLE_ENDIAN);
    Message message = Message.getRootAsMessage(buffer);
    if (message.bodyLength() != block.getBodyLength()) {
      throw new CorruptArrowFileException(format, file, "message body length " + message.bodyLength() + " at offset "
          + block.getOffset() + " disagrees with the footer's " + block.getBodyLength(), null);
    }
    if (message.headerType() != expectedType) {
      throw new CorruptArrowFileException(format, file, "expected message type " + MessageHeader.name(expectedType)
          + " at offset " + block.getOffset() + ", found " + message.headerType(), null);
    }
    if (expectedType == MessageHeader.RecordBatch) {
      RecordBatch header = (RecordBatch) message.header(new RecordBatch());
      if (header.compression() != null) {
        throw new CorruptArrowFileException(format, file, "compressed record batches are not supported (memwall maps files zero-copy)", null);
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
