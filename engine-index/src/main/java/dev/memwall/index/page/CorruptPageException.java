package dev.memwall.index.page;

import java.nio.file.Path;

/**
 * A page whose stored checksum does not match its contents (a torn write, a flipped bit, a page
 * written somewhere else), or a header or commit record that cannot be read: the message names
 * the file and the page, and nothing of the page was handed to the caller.
 */
public final class CorruptPageException extends RuntimeException {
  private final Path file;
  private final long page;

  public CorruptPageException(Path file, long page, String detail) {
    super("corrupt page " + page + " in " + file + ": " + detail);
    this.file = file;
    this.page = page;
  }

  public Path file() {
    return file;
  }

  public long page() {
    return page;
  }
}
