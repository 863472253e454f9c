package dev.memwall.core.ipc;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseIntVector;
import org.apache.arrow.vector.BaseLargeVariableWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.dictionary.Dictionary;
import org.apache.arrow.vector.types.pojo.DictionaryEncoding;
import org.apache.arrow.vector.util.ValueVectorUtility;

/**
 * The structural validation of mapped Arrow batches, before any of their buffers reaches memwall's
 * kernels or a native reader such as DuckDB, which reads offsets and dictionary indices without
 * bounds checks of its own (a flipped string offset crashed DuckDB's reader thread; a flipped
 * dictionary index surfaced as an {@code ArrayIndexOutOfBoundsException} deep in a query). For every
 * batch and dictionary: Arrow Java's buffer validation ({@link ValueVectorUtility#validate}: buffer
 * sizes against the row count and the type), string offsets that start at 0 or more, never decrease
 * and end inside the data buffer, and every non-null dictionary index inside its dictionary.
 *
 * <p>What it does not see: a wrong value that is well formed (a flipped byte in a price or a date,
 * in a validity bitmap, in the bytes of a string). Checksums catch those where the writer kept them
 * (memwall's TPC-H data sets do). String bytes are not checked to be UTF-8 (Arrow's full validation
 * does that, at several times the cost): a reader decodes them with replacement characters, which is
 * a wrong value, not a crash.
 *
 * <p>Cost: one pass over the string offsets and the dictionary indices, none over fixed-width data.
 * Thread safety: stateless.
 */
final class ArrowStructure {
  private ArrowStructure() {}

  /**
   * Checks {@code roots} (the record batches, in file order) and {@code dictionaries} read from
   * {@code file}.
   *
   * @param format what the file was read as, for the message ("Arrow file", "Arrow IPC stream")
   * @param firstBatch the number of {@code roots}' first batch in the file, for the message
   * @throws CorruptArrowFileException naming the file, the batch (or dictionary) and the column
   */
  static void check(String format, Path file, List<VectorSchemaRoot> roots, int firstBatch,
      Map<Long, Dictionary> dictionaries) throws CorruptArrowFileException {
    for (Dictionary dictionary : dictionaries.values()) {
      String problem = problem(dictionary.getVector());
      if (problem != null) {
        throw new CorruptArrowFileException(format, file, "dictionary " + dictionary.getEncoding().getId() + ": "
            + problem, null);
      }
    }
    for (int batch = 0; batch < roots.size(); batch++) {
      for (FieldVector vector : roots.get(batch).getFieldVectors()) {
        String problem = problem(vector);
        DictionaryEncoding encoding = vector.getField().getDictionary();
        if (problem == null && encoding != null) {
          Dictionary dictionary = dictionaries.get(encoding.getId());
          problem = indexProblem((BaseIntVector) vector, dictionary == null ? 0 : dictionary.getVector().getValueCount());
        }
        if (problem != null) {
          throw new CorruptArrowFileException(format, file, "record batch " + (firstBatch + batch) + ", column " + vector.getName()
              + ": " + problem, null);
        }
      }
    }
  }

  /** What is wrong with {@code vector}'s buffers or offsets, or null. */
  private static String problem(FieldVector vector) {
    try {
      ValueVectorUtility.validate(vector);
    } catch (RuntimeException e) {
      return e.getMessage();
    }
    int rows = vector.getValueCount();
    if (vector instanceof BaseVariableWidthVector strings) {
      return offsetProblem(strings.getOffsetBuffer(), BaseVariableWidthVector.OFFSET_WIDTH, rows,
          strings.getDataBuffer().capacity());
    }
    if (vector instanceof BaseLargeVariableWidthVector strings) {
      return offsetProblem(strings.getOffsetBuffer(), BaseLargeVariableWidthVector.OFFSET_WIDTH, rows,
          strings.getDataBuffer().capacity());
    }
    return null;
  }

  private static String offsetProblem(ArrowBuf offsets, int width, int rows, long dataBytes) {
    if (rows == 0) {
      return null;
    }
    if (offsets.capacity() < (long) (rows + 1) * width) {
      return "offset buffer of " + offsets.capacity() + " bytes is too small for " + rows + " rows";
    }
    long previous = width == 4 ? offsets.getInt(0) : offsets.getLong(0);
    if (previous < 0) {
      return "string offset " + previous + " at row 0 is negative";
    }
    for (int row = 1; row <= rows; row++) {
      long offset = width == 4 ? offsets.getInt((long) row * width) : offsets.getLong((long) row * width);
      if (offset < previous) {
        return "string offsets decrease at row " + (row - 1) + " (" + previous + " then " + offset + ")";
      }
      previous = offset;
    }
    if (previous > dataBytes) {
      return "string offsets end at " + previous + ", past the " + dataBytes + " bytes of string data";
    }
    return null;
  }

  private static String indexProblem(BaseIntVector indices, int size) {
    int rows = indices.getValueCount();
    boolean nulls = indices.getNullCount() > 0;
    ArrowBuf data = ((FieldVector) indices).getDataBuffer();
    int width = ((BaseFixedWidthVector) indices).getTypeWidth();
    if (data.capacity() < (long) rows * width) {
      return "index buffer of " + data.capacity() + " bytes is too small for " + rows + " rows";
    }
    for (int row = 0; row < rows; row++) {
      long index = switch (width) { // read straight from the buffer: this pass runs over every row on opening
        case 1 -> data.getByte(row);
        case 2 -> data.getShort(2L * row);
        case 4 -> data.getInt(4L * row);
        default -> data.getLong(8L * row);
      };
      if ((index < 0 || index >= size) && (!nulls || !indices.isNull(row))) {
        return "dictionary index " + index + " at row " + row + " is outside its dictionary of " + size + " values";
      }
    }
    return null;
  }
}
