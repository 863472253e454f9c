package dev.memwall.core.ipc;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.BufferLayout;
import org.apache.arrow.vector.BufferLayout.BufferType;
import org.apache.arrow.vector.TypeLayout;
import org.apache.arrow.vector.compression.CompressionUtil;
import org.apache.arrow.vector.ipc.message.ArrowFieldNode;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * The check of a record batch's metadata against its schema <em>before</em> Arrow Java's
 * {@code VectorLoader} loads it, and the selection of the columns memwall reads.
 *
 * <p>Why before: loading trusts the metadata. A field node shorter than its batch makes the loader
 * fill the "missing" rows, writing into the buffers, which are slices of a read-only mapping (the
 * process dies of SIGSEGV); a buffer smaller than its node's length makes it reallocate, sized by
 * the unchecked length. So every kept column's node must have the batch's length and a null count
 * within it, and each of its buffers must hold that many rows (validity bits unless the bitmap is
 * empty and the rows are all valid or all null, offsets, fixed-width values); the string offsets and dictionary indices inside the
 * buffers are {@link ArrowStructure}'s to check, after loading. The check reads metadata only, so it
 * runs for trusted files too.
 *
 * <p>Why select: the columns memwall leaves out (nested, view and other types it does not read)
 * would be loaded only to be closed, and their nested lengths (a list's child sized by its offsets)
 * cannot be checked from metadata. They are skipped, their nodes and buffers counted but not
 * loaded. Thread safety: stateless.
 */
final class BatchLayout {
  private BatchLayout() {}

  /**
   * A batch of {@code batch}'s {@code kept} columns, after checking their layout.
   *
   * @param fields the batch's schema, in memory format (a dictionary-encoded column has its codes'
   *     type)
   * @param kept which of {@code fields} to keep; only flat types may be kept
   * @param what the batch, for the message ("record batch 3", "dictionary 0")
   * @return a batch that holds its own reference on each buffer: the caller closes it (and still
   *     owns {@code batch})
   * @throws CorruptArrowFileException naming the file, the batch and the column
   */
  static ArrowRecordBatch keep(String format, Path file, String what, ArrowRecordBatch batch, List<Field> fields,
      boolean[] kept) throws CorruptArrowFileException {
    if (batch.getBodyCompression().getCodec() != CompressionUtil.CodecType.NO_COMPRESSION.getType()) {
      throw new CorruptArrowFileException(format, file, what + " is compressed ("
          + CompressionUtil.CodecType.fromCompressionType(batch.getBodyCompression().getCodec())
          + "); memwall maps uncompressed batches only", null);
    }
    if (batch.getLength() < 0) {
      throw new CorruptArrowFileException(format, file, what + " has a negative length " + batch.getLength(), null);
    }
    Iterator<ArrowFieldNode> nodes = batch.getNodes().iterator();
    Iterator<ArrowBuf> buffers = batch.getBuffers().iterator();
    Iterator<Long> variadicCounts = batch.getVariadicBufferCounts() == null ? Collections.emptyIterator()
        : batch.getVariadicBufferCounts().iterator();
    List<ArrowFieldNode> keptNodes = new ArrayList<>();
    List<ArrowBuf> keptBuffers = new ArrayList<>();
    for (int i = 0; i < fields.size(); i++) {
      Field field = fields.get(i);
      String column = what + ", column " + field.getName();
      if (kept[i]) {
        ArrowFieldNode node = next(nodes, format, file, column, "field node");
        List<ArrowBuf> own = new ArrayList<>();
        TypeLayout layout = TypeLayout.getTypeLayout(field.getType());
        for (int b = 0; b < layout.getBufferLayouts().size(); b++) {
          own.add(next(buffers, format, file, column, "buffer"));
        }
        String problem = problem(node, batch.getLength(), layout, own);
        if (problem != null) {
          throw new CorruptArrowFileException(format, file, column + ": " + problem, null);
        }
        keptNodes.add(node);
        keptBuffers.addAll(own);
      } else {
        skip(field, nodes, buffers, variadicCounts, format, file, column);
      }
    }
    if (nodes.hasNext() || buffers.hasNext()) {
      throw new CorruptArrowFileException(format, file, what + " has " + batch.getNodes().size() + " field nodes and "
          + batch.getBuffers().size() + " buffers, more than its schema's columns use", null);
    }
    return new ArrowRecordBatch(batch.getLength(), keptNodes, keptBuffers, batch.getBodyCompression(),
        List.of(), false, true); // kept columns are flat: no variadic buffers
  }

  /** What is wrong with a flat column's node and buffers in a batch of {@code rows}, or null. */
  private static String problem(ArrowFieldNode node, int rows, TypeLayout layout, List<ArrowBuf> buffers) {
    if (node.getLength() != rows) {
      return "field node of " + node.getLength() + " rows in a batch of " + rows;
    }
    if (node.getNullCount() < 0 || node.getNullCount() > rows) {
      return "null count " + node.getNullCount() + " outside the batch's " + rows + " rows";
    }
    boolean variableWidth = layout.getBufferTypes().contains(BufferType.OFFSET);
    for (int b = 0; b < buffers.size(); b++) {
      BufferLayout buffer = layout.getBufferLayouts().get(b);
      long needed;
      if (buffer.getType() == BufferType.VALIDITY) {
        // The loader makes its own bitmap only for an empty buffer of a column with no nulls or only
        // nulls; any other it takes as written, however short (and too short, it reallocates)
        boolean uniform = node.getNullCount() == 0 || node.getNullCount() == rows;
        needed = uniform && buffers.get(b).capacity() == 0 ? 0 : (rows + 7L) / 8;
      } else if (buffer.getType() == BufferType.OFFSET) {
        needed = rows == 0 ? 0 : (rows + 1L) * buffer.getTypeBitWidth() / 8;
      } else if (variableWidth) {
        needed = 0; // the strings' bytes: as many as the offsets say, checked after loading
      } else {
        needed = ((long) rows * buffer.getTypeBitWidth() + 7) / 8;
      }
      long size = buffers.get(b).capacity();
      if (size < needed) {
        return buffer.getType().getName().toLowerCase(Locale.ROOT) + " buffer of " + size
            + " bytes is too small for " + rows + " rows (needs " + needed + ")";
      }
    }
    return null;
  }

  /** Steps over a left-out column's nodes and buffers, its children's included. */
  private static void skip(Field field, Iterator<ArrowFieldNode> nodes, Iterator<ArrowBuf> buffers,
      Iterator<Long> variadicCounts, String format, Path file, String column) throws CorruptArrowFileException {
    next(nodes, format, file, column, "field node");
    TypeLayout layout = TypeLayout.getTypeLayout(field.getType());
    long count = layout.getBufferLayouts().size();
    if (!layout.isFixedBufferCount()) {
      count += next(variadicCounts, format, file, column, "variadic buffer count");
      if (count < 0 || count > Integer.MAX_VALUE) {
        throw new CorruptArrowFileException(format, file, column + ": variadic buffer count out of range", null);
      }
    }
    for (long b = 0; b < count; b++) {
      next(buffers, format, file, column, "buffer");
    }
    for (Field child : field.getChildren()) {
      skip(child, nodes, buffers, variadicCounts, format, file, column + "." + child.getName());
    }
  }

  private static <T> T next(Iterator<T> items, String format, Path file, String column, String item)
      throws CorruptArrowFileException {
    if (!items.hasNext()) {
      throw new CorruptArrowFileException(format, file, column + ": no " + item + " left in the batch's metadata",
          null);
    }
    return items.next();
  }
}
