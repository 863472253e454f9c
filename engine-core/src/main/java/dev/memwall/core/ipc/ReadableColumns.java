package dev.memwall.core.ipc;

import dev.memwall.core.vector.ReadableSchema;
import dev.memwall.core.vector.Table;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.dictionary.Dictionary;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Makes a {@link Table} of the batches read from an Arrow file, leaving out the columns whose
 * Arrow types memwall does not read ({@link ReadableSchema}: such as unsigned integers, times,
 * binary and nested columns), so that the other columns of such a file stay readable. Why each
 * column was left out is kept in the table's schema metadata ({@link Table#leftOut}), which is
 * what a query that names one reports.
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
      ReadableSchema readable = ReadableSchema.of(schema, id -> {
        Dictionary dictionary = dictionaries.get(id);
        return dictionary == null ? null : dictionary.getVector().getField().getType();
      }, "in " + file + "; ArrowFiles.map left the column out");
      if (readable.keepsAll()) {
        return Table.own(schema, roots, dictionaries);
      }
      boolean[] kept = readable.kept();
      Set<Long> keptDictionaries = new HashSet<>();
      for (int i = 0; i < kept.length; i++) {
        Field field = schema.getFields().get(i);
        if (kept[i] && field.getDictionary() != null) {
          keptDictionaries.add(field.getDictionary().getId());
        }
      }
      List<VectorSchemaRoot> narrowedRoots = new ArrayList<>();
      for (VectorSchemaRoot root : roots) {
        narrowedRoots.add(readable.narrow(root));
        for (int i = 0; i < kept.length; i++) {
          if (!kept[i]) {
            root.getVector(i).close();
          }
        }
      }
      Map<Long, Dictionary> used = new HashMap<>();
      for (Map.Entry<Long, Dictionary> entry : dictionaries.entrySet()) {
        if (keptDictionaries.contains(entry.getKey())) {
          used.put(entry.getKey(), entry.getValue());
        } else {
          entry.getValue().getVector().close();
        }
      }
      return Table.own(readable.schema(), narrowedRoots, used);
    } catch (RuntimeException | Error e) {
      roots.forEach(VectorSchemaRoot::close); // closing a vector twice is harmless
      dictionaries.values().forEach(d -> d.getVector().close());
      throw e;
    }
  }
}
