package dev.memwall.index.page;

/**
 * A page file cannot grow: its configured page limit is reached or the file system refused the
 * space. The operation that needed the page changed nothing that was committed; the file stays
 * readable at its last commit.
 */
public final class PageFileFullException extends RuntimeException {
  public PageFileFullException(String message, Throwable cause) {
    super(message, cause);
  }

  public PageFileFullException(String message) {
    super(message);
  }
}
