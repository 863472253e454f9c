package dev.memwall.tpch.data;

import dev.memwall.core.ipc.ArrowFiles;
import dev.memwall.core.ipc.CorruptArrowFileException;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.vector.Table;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A whole TPC-H data set checked on demand ({@code memwall check}), whether or not this process has
 * opened it before: every file against the checksums its manifest keeps, and every batch's structure
 * (buffer sizes, string offsets, dictionary indices) and every file's columns and dictionaries
 * against its table's ({@link LayoutCheck}), each pass timed on its own. A set written without
 * checksums gets the structural pass only, with its files' key order checked too.
 *
 * <p>Holds a shared {@link DataDirectoryLock} while it reads. Thread safety: stateless.
 */
public final class DataSetCheck {
  private DataSetCheck() {}

  /**
   * One damaged file.
   *
   * @param table its table
   * @param part its part number
   * @param problem the named error: a {@link CorruptDataSetException}'s or {@link CorruptArrowFileException}'s message
   */
  public record Damage(Path file, String table, int part, String problem) {}

  /**
   * What a check found.
   *
   * @param files data files checked
   * @param bytes their bytes
   * @param checksumNanos the time of the checksum pass (0 for a set without checksums)
   * @param structureNanos the time of the structural pass
   * @param checksummed whether the set keeps checksums
   * @param damage the damaged files, empty when the set is intact
   */
  public record Result(int files, long bytes, long checksumNanos, long structureNanos, boolean checksummed,
      List<Damage> damage) {
    public Result {
      damage = List.copyOf(damage);
    }
  }

  /**
   * Checks the complete data set of {@code scaleFactor} in {@code dir}.
   *
   * @throws DataDirectoryException when {@code dir} holds no complete data set of that scale factor
   */
  public static Result check(Path dir, double scaleFactor, EngineMemory memory) throws IOException {
    try (DataDirectoryLock reading = DataDirectoryLock.shared(dir)) {
      TpchManifest manifest = TpchManifest.readValid(dir, scaleFactor).orElseThrow(() -> new DataDirectoryException(dir,
          "no complete data set of scale factor " + scaleFactor + " (missing or invalid " + TpchManifest.FILE_NAME + ")",
          null));
      record Unread(Path file, String table, int part, boolean checksummed) {}
      List<Damage> damage = new ArrayList<>();
      List<Unread> intact = new ArrayList<>();
      int files = 0;
      long bytes = 0;
      long checksumNanos = 0;
      for (String table : TpchSchema.TABLE_NAMES) {
        for (int part = 1; part <= manifest.tables().get(table).files(); part++) {
          Path file = TpchManifest.file(dir, table, part);
          files++;
          bytes += Files.size(file);
          var expected = manifest.checksums(file);
          if (expected.isEmpty()) {
            intact.add(new Unread(file, table, part, false));
            continue;
          }
          long start = System.nanoTime();
          try {
            DataSetVerification.verify(file, table, expected.get(), memory);
            intact.add(new Unread(file, table, part, true));
          } catch (CorruptDataSetException e) {
            damage.add(new Damage(file, table, part, e.getMessage()));
          } finally {
            checksumNanos += System.nanoTime() - start;
          }
        }
      }
      long start = System.nanoTime();
      Map<String, LayoutCheck.KeyOrder> keys = new HashMap<>();
      for (Unread file : intact) {
        LayoutCheck.KeyOrder order = keys.computeIfAbsent(file.table(), LayoutCheck.KeyOrder::new);
        try (Table mapped = ArrowFiles.map(file.file(), memory)) {
          LayoutCheck.checkSchema(file.file(), file.table(), mapped);
          if (!file.checksummed()) {
            order.check(file.file(), mapped);
          }
        } catch (CorruptArrowFileException | CorruptDataSetException e) {
          damage.add(new Damage(file.file(), file.table(), file.part(), e.getMessage()));
          order.skip();
        }
      }
      long structureNanos = System.nanoTime() - start;
      return new Result(files, bytes, checksumNanos, structureNanos, !manifest.checksums().isEmpty(), damage);
    }
  }
}
