package dev.memwall.index.page;

/**
 * A file that a {@link PageFile} refuses to open: not a memwall page file (wrong magic or too
 * short), another format version, or a page size other than the one asked for. The file is left
 * exactly as it was: nothing is written before the header has been checked.
 */
public final class PageFileFormatException extends RuntimeException {
  public PageFileFormatException(String message) {
    super(message);
  }
}
