package dev.memwall.tpch.run;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.tpch.data.TpchDatabase;
import dev.memwall.tpch.data.TpchManifest;
import dev.memwall.tpch.verify.DuckDbOracle;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.SQLException;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.stream.Stream;

/**
 * A Parquet copy of a TPC-H data set, for an engine that reads Parquet as its users store their tables
 * (Comet's native scan): one file {@code TABLE.parquet} per table in {@code <data set>-parquet} beside the
 * data set, written by DuckDB from the tables {@link DuckDbOracle} loads (decimals {@code DECIMAL(15,2)},
 * dates {@code DATE}, strings {@code VARCHAR}, DuckDB's row groups of 122,880 rows).
 *
 * <p>Made once: {@link #ensure} returns a complete copy of the same data set without reading it. A copy is
 * complete when its {@value #COMPLETE} file holds the digest of the data set's manifest, so a data set
 * generated again (a new manifest) gets a new copy. The copy is written into a temporary directory and
 * renamed into place, so no reader sees half of one; a failed copy removes its temporary directory.
 *
 * <p>Thread safety: stateless. Two processes copying the same set at once each write their own temporary
 * directory; one that finds a complete copy in place once its own is written drops its own, so that a
 * copy another process may be reading is not replaced by an equal one (only a narrow window between that
 * check and the rename remains).
 */
public final class ParquetCopy {
  /** The file that marks a complete copy. */
  static final String COMPLETE = "_COMPLETE";

  private ParquetCopy() {}

  /** Where the copy of the data set in {@code dataDirectory} lives. */
  public static Path directoryOf(Path dataDirectory) {
    Path absolute = dataDirectory.toAbsolutePath().normalize();
    return absolute.resolveSibling(absolute.getFileName() + "-parquet");
  }

  /** Whether {@code dataDirectory} has a complete copy of its current data set. */
  public static boolean isComplete(Path dataDirectory) throws IOException {
    Path marker = directoryOf(dataDirectory).resolve(COMPLETE);
    return Files.isRegularFile(marker) && Files.readString(marker).equals(manifestDigest(dataDirectory));
  }

  /**
   * The copy of {@code database}, whose files lie in {@code dataDirectory}: the existing one when it is
   * complete, else a new one written with DuckDB on {@code threads} threads.
   *
   * @return the copy's directory
   * @throws IOException when the copy cannot be written (its temporary directory is removed)
   */
  public static Path ensure(Path dataDirectory, TpchDatabase database, EngineMemory memory, int threads)
      throws IOException, SQLException {
    Path target = directoryOf(dataDirectory);
    if (isComplete(dataDirectory)) {
      return target;
    }
    Path temporary = Files.createTempDirectory(target.getParent(), target.getFileName() + ".tmp-");
    try {
      try (DuckDbOracle oracle = DuckDbOracle.of(database, threads, memory)) {
        for (String table : database.tables().keySet()) {
          String file = temporary.resolve(table + ".parquet").toString().replace("'", "''");
          oracle.execute("COPY \"" + table + "\" TO '" + file + "' (FORMAT parquet)");
        }
      }
      Files.writeString(temporary.resolve(COMPLETE), manifestDigest(dataDirectory));
      if (isComplete(dataDirectory)) { // another process finished first
        deleteTree(temporary);
        return target;
      }
      deleteTree(target); // an incomplete or outdated copy
      Files.move(temporary, target, StandardCopyOption.ATOMIC_MOVE);
      return target;
    } catch (IOException | SQLException | RuntimeException e) {
      deleteTree(temporary);
      throw e;
    }
  }

  private static String manifestDigest(Path dataDirectory) throws IOException {
    try {
      byte[] manifest = Files.readAllBytes(dataDirectory.resolve(TpchManifest.FILE_NAME));
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(manifest));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
  }

  private static void deleteTree(Path directory) throws IOException {
    if (!Files.exists(directory)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(directory)) {
      paths.sorted(Comparator.reverseOrder()).forEach(path -> {
        try {
          Files.delete(path);
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      });
    } catch (UncheckedIOException e) {
      throw e.getCause();
    }
  }
}
