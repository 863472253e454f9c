package dev.memwall.tpch.verify;

import dev.memwall.core.vector.Table;
import java.io.IOException;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorLoader;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.VectorUnloader;
import org.apache.arrow.vector.dictionary.Dictionary;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.arrow.vector.util.DictionaryUtility;

/**
 * An {@link ArrowReader} over the batches of a memwall {@link Table}, for export through the Arrow C
 * stream interface. Batches and dictionaries are handed over zero-copy (reference-counted buffers).
 *
 * <p>Ownership: the table stays the caller's and must outlive the reader; closing the reader frees
 * only its own references. Thread safety: not thread-safe (one consumer).
 */
final class TableArrowReader extends ArrowReader {
  private final Table table;
  private int next;
  private boolean dictionariesLoaded;

  TableArrowReader(Table table, BufferAllocator allocator) {
    super(allocator);
    this.table = table;
  }

  @Override
  protected Schema readSchema() {
    // ArrowReader expects the IPC ("message") form, in which dictionary fields carry the value type.
    DictionaryProvider provider = table.provider();
    List<Field> fields = table.schema().getFields().stream()
        .map(field -> DictionaryUtility.toMessageFormat(field, provider, new HashSet<>()))
        .toList();
    return new Schema(fields, table.schema().getCustomMetadata());
  }

  @Override
  public boolean loadNextBatch() throws IOException {
    prepareLoadNextBatch();
    if (!dictionariesLoaded) {
      for (Map.Entry<Long, Dictionary> entry : getDictionaryVectors().entrySet()) {
        transfer(table.dictionaries().get(entry.getKey()).getVector(), entry.getValue().getVector());
      }
      dictionariesLoaded = true;
    }
    if (next >= table.roots().size()) {
      return false;
    }
    VectorSchemaRoot source = table.roots().get(next++);
    try (ArrowRecordBatch batch = new VectorUnloader(source).getRecordBatch()) {
      new VectorLoader(getVectorSchemaRoot()).load(batch);
    }
    return true;
  }

  private static void transfer(FieldVector source, FieldVector target) {
    try (ArrowRecordBatch batch = new VectorUnloader(new VectorSchemaRoot(List.of(source))).getRecordBatch()) {
      new VectorLoader(new VectorSchemaRoot(List.of(target))).load(batch);
    }
  }

  @Override
  public long bytesRead() {
    return 0;
  }

  @Override
  protected void closeReadSource() {}
}
