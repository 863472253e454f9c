package dev.memwall.tpch.data;

import java.io.IOException;
import java.nio.file.Path;

/** A TPC-H data directory that cannot be created, written or read as a data set; names the directory. */
public final class DataDirectoryException extends IOException {
  private static final long serialVersionUID = 1L;

  private final transient Path directory;

  public DataDirectoryException(Path directory, String problem, Throwable cause) {
    super("TPC-H data directory " + directory + ": " + problem, cause);
    this.directory = directory;
  }

  /** The directory at fault. */
  public Path directory() {
    return directory;
  }
}
