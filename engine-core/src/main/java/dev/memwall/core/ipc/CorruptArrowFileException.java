package dev.memwall.core.ipc;

import java.io.IOException;
import java.nio.file.Path;

/**
 * An Arrow IPC file or stream that is truncated, corrupt, uses a feature memwall does not read
 * (compression, dictionaries replaced mid-stream), or is not Arrow at all. The message names the
 * file.
 */
public final class CorruptArrowFileException extends IOException {
  private static final long serialVersionUID = 1L;

  CorruptArrowFileException(Path file, String problem, Throwable cause) {
    this("Arrow file", file, problem, cause);
  }

  /** @param what what the file was read as: "Arrow file" or "Arrow IPC stream" */
  CorruptArrowFileException(String what, Path file, String problem, Throwable cause) {
    super("corrupt " + what + " " + file + ": " + problem, cause);
  }
}
