package dev.memwall.core;

import java.util.List;

/**
 * Closes several resources as one step: every one is closed even when an earlier one fails, and one
 * exception reports them all. Elements that are not {@link AutoCloseable} are skipped. Thread safety:
 * stateless.
 */
public final class Closing {
  private Closing() {}

  /**
   * Closes every element; throws the first failure with the later ones suppressed (a checked one
   * wrapped in an {@link IllegalStateException} naming the element).
   */
  public static void closeAll(Iterable<?> elements) {
    closeAll(elements, null);
  }

  /**
   * Closes every element while {@code failure} (may be null) is being thrown: each close's failure is
   * added to it as suppressed; with none, as {@link #closeAll(Iterable)}.
   */
  public static void closeAll(Iterable<?> elements, Throwable failure) {
    RuntimeException first = null;
    for (Object element : elements) {
      if (element instanceof AutoCloseable closeable) {
        try {
          closeable.close();
        } catch (Exception e) {
          if (failure != null) {
            failure.addSuppressed(e);
          } else if (first == null) {
            first = e instanceof RuntimeException r ? r : new IllegalStateException("closing " + closeable + " failed", e);
          } else {
            first.addSuppressed(e);
          }
        }
      }
    }
    if (first != null) {
      throw first;
    }
  }

  /**
   * Runs {@code step} on a resource just made, and returns the resource; if the step throws, closes the
   * resource first (its close's failure suppressed) so that nothing made is left open.
   */
  public static <T extends AutoCloseable> T closeIfFails(T resource, Runnable step) {
    try {
      step.run();
    } catch (RuntimeException | Error e) {
      closeAll(List.of(resource), e);
      throw e;
    }
    return resource;
  }
}
