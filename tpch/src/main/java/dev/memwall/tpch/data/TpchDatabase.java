package dev.memwall.tpch.data;

import dev.memwall.core.Closing;
import dev.memwall.core.ipc.ArrowFiles;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.vector.Table;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * The eight TPC-H tables of one complete data directory, memory-mapped zero-copy with
 * {@link ArrowFiles#map}. A table stored in several files is exposed as one {@link Table} whose
 * batches are those of all its files in order (their dictionaries are identical by construction,
 * see {@link TpchSchema}).
 *
 * <p>Ownership: the database owns every mapping and table it hands out; {@link #close} frees them
 * all, after which the tables must not be used. Thread safety: the tables are immutable and may be
 * read by many threads; {@link #close} must not race with readers. While open, the database holds a
 * shared {@link DataDirectoryLock} on its directory, so no run regenerates the files under it.
 *
 * <p>Trust: each file is checked before its buffers reach a query, against the checksums its manifest
 * keeps the first time the process opens it, or (a set written without checksums) by the structural
 * validation of {@link ArrowFiles#map} and a check of its layout against its table's (columns,
 * types, dictionaries, key order); see {@code DataSetVerification}.
 *
 * <p>Bad input: a directory without a valid {@link TpchManifest} gives {@link DataDirectoryException};
 * a file whose checksums differ, or whose layout is not its table's, gives {@link CorruptDataSetException}
 * naming the file, its table (and the batch where it can); a corrupt file without checksums gives
 * {@link dev.memwall.core.ipc.CorruptArrowFileException} naming the file (and the batch and column when
 * its structure is invalid).
 */
public final class TpchDatabase implements AutoCloseable {
  private final Path directory;
  private final TpchManifest manifest;
  private final Map<String, Table> tables;
  private final List<Table> mappings;
  private final DataDirectoryLock lock;

  private TpchDatabase(Path directory, TpchManifest manifest, Map<String, Table> tables, List<Table> mappings,
      DataDirectoryLock lock) {
    this.lock = lock;
    this.directory = directory;
    this.manifest = manifest;
    this.tables = tables;
    this.mappings = mappings;
  }

  /**
   * Opens the complete data set of {@code scaleFactor} in {@code dir}.
   *
   * Holds a shared {@link DataDirectoryLock} on {@code dir} until {@link #close}: waits while another
   * run generates the set, and makes a generator wait until this database is closed.
   *
   * @param memory the engine memory the mapped buffers are accounted to (mappings are not charged
   *     to its budget; they are file-backed)
   */
  public static TpchDatabase open(Path dir, double scaleFactor, EngineMemory memory) throws IOException {
    DataDirectoryLock lock = DataDirectoryLock.shared(dir);
    try {
      return open(dir, scaleFactor, memory, lock);
    } catch (IOException | RuntimeException e) {
      lock.close();
      throw e;
    }
  }

  /** Opens the set under {@code lock}, which the database owns from now on if this returns. */
  private static TpchDatabase open(Path dir, double scaleFactor, EngineMemory memory, DataDirectoryLock lock)
      throws IOException {
    TpchManifest manifest = TpchManifest.readValid(dir, scaleFactor).orElseThrow(() -> new DataDirectoryException(dir,
        "no complete data set of scale factor " + scaleFactor + " (missing or invalid " + TpchManifest.FILE_NAME + ")",
        null));
    Map<String, Table> tables = new LinkedHashMap<>();
    List<Table> mappings = new ArrayList<>();
    try {
      for (String name : TpchSchema.TABLE_NAMES) {
        int files = manifest.tables().get(name).files();
        List<Table> parts = new ArrayList<>();
        LayoutCheck.KeyOrder keys = new LayoutCheck.KeyOrder(name);
        for (int part = 1; part <= files; part++) {
          Table mapped = DataSetVerification.map(TpchManifest.file(dir, name, part), name, manifest, memory, keys);
          mappings.add(mapped);
          parts.add(mapped);
        }
        if (parts.size() == 1) {
          tables.put(name, parts.getFirst());
        } else {
          List<VectorSchemaRoot> roots = new ArrayList<>();
          parts.forEach(p -> roots.addAll(p.roots()));
          tables.put(name, Table.borrow(parts.getFirst().schema(), roots, parts.getFirst().provider()));
        }
        long rows = tables.get(name).rowCount();
        if (rows != manifest.rows(name)) {
          throw new DataDirectoryException(dir, name + " has " + rows + " rows, its manifest says "
              + manifest.rows(name), null);
        }
      }
    } catch (IOException | RuntimeException e) {
      mappings.forEach(Table::close);
      throw e;
    }
    return new TpchDatabase(dir, manifest, tables, mappings, lock);
  }

  /**
   * Generates the data set of {@code scaleFactor} under {@code cacheRoot} if it is not complete there
   * yet (see {@link TpchDataGenerator#ensure}) and opens it. Concurrent loads of one set, in threads
   * or processes, all succeed: one generates, the others wait for it, and all then share it. A file
   * whose checksums differ from its manifest's ({@link CorruptDataSetException}) is repaired by
   * generating it again ({@link TpchDataGenerator#repair}), once; a file still corrupt after that
   * throws the exception.
   */
  public static TpchDatabase load(Path cacheRoot, double scaleFactor, TpchDataGenerator generator,
      EngineMemory memory) throws IOException {
    Path dir = TpchDataGenerator.dataDirectory(cacheRoot, scaleFactor);
    java.util.Set<Path> repaired = new java.util.HashSet<>();
    for (int attempt = 0; attempt < 3 + repaired.size(); attempt++) {
      DataDirectoryLock lock = DataDirectoryLock.shared(dir);
      try {
        if (TpchManifest.readValid(dir, scaleFactor).isPresent()) {
          return open(dir, scaleFactor, memory, lock);
        }
      } catch (CorruptDataSetException e) {
        lock.close();
        if (!repaired.add(e.file())) {
          throw e; // repaired once already and still corrupt: the disk or memory is failing
        }
        generator.repair(dir, scaleFactor, e.table(), TpchManifest.part(e.file()), e.getMessage(), memory);
        continue;
      } catch (IOException | RuntimeException e) {
        lock.close();
        throw e;
      }
      lock.close();
      generator.ensure(dir, scaleFactor, memory);
    }
    throw new DataDirectoryException(dir, "its data set was deleted or regenerated by another run each time this one"
        + " generated it; run one generator at a time", null);
  }

  /**
   * The table {@code name}: lineitem, orders, customer, part, partsupp, supplier, nation or region.
   *
   * @throws IllegalArgumentException for any other name
   */
  public Table table(String name) {
    return tables.get(TpchSchema.checkName(name));
  }

  /** All tables by name. */
  public Map<String, Table> tables() {
    return java.util.Collections.unmodifiableMap(tables);
  }

  public Path directory() {
    return directory;
  }

  public TpchManifest manifest() {
    return manifest;
  }

  public double scaleFactor() {
    return manifest.scaleFactor();
  }

  @Override
  public void close() {
    try {
      Closing.closeAll(mappings);
    } finally {
      lock.close();
    }
  }
}
