package dev.memwall.core.ipc;

import java.io.IOException;
import java.nio.file.Path;

/** An Arrow IPC file that is truncated, corrupt or not an Arrow file at all. */
public final class CorruptArrowFileException extends IOException {
  private static final long serialVersionUID = 1L;

  CorruptArrowFileException(Path file, String problem, Throwable cause) {
    super("corrupt Arrow file " + file + ": " + problem, cause);
  }
}
