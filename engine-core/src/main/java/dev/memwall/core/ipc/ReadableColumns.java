package dev.memwall.core.ipc;

import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.Table;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.dictionary.Dictionary;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.DictionaryEncoding;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Makes a {@link Table} of the batches read from an Arrow file, leaving out the columns whose
 * Arrow types memwall does not read (such as pyarrow's {@code large_string} and {@code timestamp}),
 * so that the other columns of such a file stay readable. Why each column was left out is kept in
 * the table's schema metadata ({@link Table#leftOut}), which is what a query that names one reports.
 */
final class ReadableColumns {
  private ReadableColumns() {}

  /**
   * The table of {@code roots} (all of {@code schema}) and {@code dictionaries}, read from
   * {@code file}, without the columns memwall does not read.
   *
   * <p>Ownership: the roots and dictionary vectors pass to this method: they end up in the table or
   * closed (the left-out columns' vectors, and dictionaries only they use), and on failure all are
   * closed before the exception leaves.
   */
  static Table own(Path file, Schema schema, List<VectorSchemaRoot> roots, Map<Long, Dictionary> dictionaries) {
    try {
      List<Field> fields = schema.getFields();
      boolean[] kept = new boolean[fields.size()];
      Map<String, String> metadata = new LinkedHashMap<>();
      if (schema.getCustomMetadata() != null) {
        metadata.putAll(schema.getCustomMetadata());
      }
      List<Field> keptFields = new ArrayList<>();
      Set<Long> keptDictionaries = new HashSet<>();
      for (int i = 0; i < fields.size(); i++) {
        Field field = fields.get(i);
        String problem = unreadable(field, dictionaries);
        kept[i] = problem == null;
        if (kept[i]) {
          keptFields.add(field);
          if (field.getDictionary() != null) {
            keptDictionaries.add(field.getDictionary().getId());
          }
        } else {
          metadata.put(Table.LEFT_OUT_METADATA_PREFIX + field.getName(),
              problem + " (in " + file + "; ArrowFiles.map left the column out)");
        }
      }
      if (keptFields.size() == fields.size()) {
        return Table.own(schema, roots, dictionaries);
      }
      Schema narrowed = new Schema(keptFields, metadata);
      List<VectorSchemaRoot> narrowedRoots = new ArrayList<>();
      for (VectorSchemaRoot root : roots) {
        List<FieldVector> vectors = new ArrayList<>();
        for (int i = 0; i < kept.length; i++) {
          FieldVector vector = root.getVector(i);
          if (kept[i]) {
            vectors.add(vector);
          } else {
            vector.close();
          }
        }
        narrowedRoots.add(new VectorSchemaRoot(narrowed, vectors, root.getRowCount()));
      }
      Map<Long, Dictionary> used = new HashMap<>();
      for (Map.Entry<Long, Dictionary> entry : dictionaries.entrySet()) {
        if (keptDictionaries.contains(entry.getKey())) {
          used.put(entry.getKey(), entry.getValue());
        } else {
          entry.getValue().getVector().close();
        }
      }
      return Table.own(narrowed, narrowedRoots, used);
    } catch (RuntimeException | Error e) {
      roots.forEach(VectorSchemaRoot::close); // closing a vector twice is harmless
      dictionaries.values().forEach(d -> d.getVector().close());
      throw e;
    }
  }

  /**
   * Why memwall cannot read column {@code field} (in memory format: a dictionary-encoded column
   * has its codes' type, its values are in {@code dictionaries}), in one line naming the column and
   * its Arrow type; null when it can.
   */
  static String unreadable(Field field, Map<Long, Dictionary> dictionaries) {
    DictionaryEncoding encoding = field.getDictionary();
    if (encoding != null) {
      Dictionary dictionary = dictionaries.get(encoding.getId());
      ArrowType values = dictionary == null ? null : dictionary.getVector().getField().getType();
      ArrowType.Int codes = encoding.getIndexType();
      int width = codes.getBitWidth();
      if (values instanceof ArrowType.Utf8 && codes.getIsSigned() && (width == 8 || width == 16 || width == 32)) {
        return null;
      }
      return "column '" + field.getName() + "' has Arrow type Dictionary(" + codes + " codes, " + values
          + " values), which memwall does not read (it reads signed 8, 16 or 32 bit codes of Utf8 values)";
    }
    try {
      ColumnType.of(field);
      return null;
    } catch (IllegalArgumentException e) { // also a malformed decimal scale in the field's metadata
      String message = e.getMessage();
      return message != null && message.contains("'" + field.getName() + "'") ? message
          : "column '" + field.getName() + "' of Arrow type " + field.getType() + " cannot be read: " + message;
    }
  }
}
