package dev.memwall.core.vector;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongFunction;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.dictionary.Dictionary;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.DictionaryEncoding;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * The columns of an input schema memwall reads, and why it leaves out the others: what every way
 * in (a mapped file, a host's batches through {@link Table#borrow}, a streamed scan) uses, so that
 * a column of an Arrow type memwall does not read never makes the rest of its input unusable. The
 * {@link #schema() narrowed schema} holds the readable fields in their order, and for each left-out
 * column a one-line reason under {@link Table#LEFT_OUT_METADATA_PREFIX} in its metadata, which is
 * what a query naming that column reports ({@link Table#leftOut}).
 *
 * <p>Thread safety: immutable. {@link #narrow} makes a root over the same vectors and takes no
 * ownership of them.
 *
 * @param schema the readable columns, with the reasons for the others in the metadata
 * @param kept per column of the input schema, whether it is readable
 */
public record ReadableSchema(Schema schema, boolean[] kept) {
  /**
   * The readable part of {@code input}.
   *
   * @param dictionaryValues the Arrow type of dictionary {@code id}'s values, or null when the
   *     dictionary is missing (a dictionary-encoded column is in memory format: its field's type is
   *     that of its codes)
   * @param reader what leaves the columns out, for the reasons ("in /data/t.arrow; ArrowFiles.map
   *     left the column out")
   */
  public static ReadableSchema of(Schema input, LongFunction<ArrowType> dictionaryValues, String reader) {
    List<Field> fields = input.getFields();
    boolean[] kept = new boolean[fields.size()];
    Map<String, String> metadata = new LinkedHashMap<>();
    if (input.getCustomMetadata() != null) {
      metadata.putAll(input.getCustomMetadata());
    }
    List<Field> keptFields = new ArrayList<>();
    for (int i = 0; i < fields.size(); i++) {
      Field field = fields.get(i);
      String problem = unreadable(field, dictionaryValues);
      kept[i] = problem == null;
      if (kept[i]) {
        keptFields.add(field);
      } else {
        metadata.put(Table.LEFT_OUT_METADATA_PREFIX + field.getName(), problem + " (" + reader + ")");
      }
    }
    return new ReadableSchema(keptFields.size() == fields.size() ? input : new Schema(keptFields, metadata), kept);
  }

  /** {@link #of} with the dictionaries of {@code provider} (may be null: none). */
  public static ReadableSchema of(Schema input, DictionaryProvider provider, String reader) {
    return of(input, id -> {
      Dictionary dictionary = provider == null ? null : provider.lookup(id);
      return dictionary == null ? null : dictionary.getVector().getField().getType();
    }, reader);
  }

  /** Whether every column is readable (then {@link #schema} is the input's own). */
  public boolean keepsAll() {
    for (boolean k : kept) {
      if (!k) {
        return false;
      }
    }
    return true;
  }

  /**
   * A root of {@link #schema}'s columns over {@code root}'s vectors (the root itself when every
   * column is kept). Closing the new root closes the kept vectors; the caller decides which root to
   * close, and must close the left-out vectors itself if it owns them.
   *
   * @throws IllegalArgumentException when {@code root} does not have the input's columns
   */
  public VectorSchemaRoot narrow(VectorSchemaRoot root) {
    if (root.getFieldVectors().size() != kept.length) {
      throw new IllegalArgumentException("batch has " + root.getFieldVectors().size() + " columns, its schema "
          + kept.length);
    }
    if (keepsAll()) {
      return root;
    }
    List<FieldVector> vectors = new ArrayList<>();
    for (int i = 0; i < kept.length; i++) {
      if (kept[i]) {
        vectors.add(root.getVector(i));
      }
    }
    return new VectorSchemaRoot(schema, vectors, root.getRowCount());
  }

  /**
   * Why memwall cannot read column {@code field} (in memory format: a dictionary-encoded column has
   * its codes' type), in one line naming the column and its Arrow type; null when it can.
   */
  public static String unreadable(Field field, LongFunction<ArrowType> dictionaryValues) {
    DictionaryEncoding encoding = field.getDictionary();
    if (encoding != null) {
      ArrowType values = dictionaryValues.apply(encoding.getId());
      ArrowType.Int codes = encoding.getIndexType();
      int width = codes.getBitWidth();
      // a dictionary not given (a table of no batches, made for its schema) is taken as strings, as memwall
      // encodes only strings; a batch whose dictionary is missing fails when its column is made
      boolean strings = values == null || values instanceof ArrowType.Utf8 || values instanceof ArrowType.LargeUtf8;
      if (strings && codes.getIsSigned() && (width == 8 || width == 16 || width == 32)) {
        return null;
      }
      return "column '" + field.getName() + "' has Arrow type Dictionary(" + codes + " codes, " + values
          + " values), which memwall does not read (it reads signed 8, 16 or 32 bit codes of Utf8 or LargeUtf8 values)";
    }
    try {
      ColumnType.of(field);
      return null;
    } catch (IllegalArgumentException e) {
      String message = e.getMessage();
      return message != null && message.contains("'" + field.getName() + "'") ? message
          : "column '" + field.getName() + "' of Arrow type " + field.getType() + " cannot be read: " + message;
    }
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof ReadableSchema r && schema.equals(r.schema) && java.util.Arrays.equals(kept, r.kept);
  }

  @Override
  public int hashCode() {
    return schema.hashCode() * 31 + java.util.Arrays.hashCode(kept);
  }

  @Override
  public String toString() {
    return "ReadableSchema" + schema;
  }
}
