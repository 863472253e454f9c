package dev.memwall.spark;

/**
 * Failures gathered while closing several things, every one closed however the others end: the
 * first is the one thrown, the later ones suppressed in it. Stateless.
 */
final class Failures {
  private Failures() {}

  /** {@code failure} with {@code next} suppressed in it, or {@code next} when there was none yet. */
  static Throwable add(Throwable failure, Throwable next) {
    if (failure == null) {
      return next;
    }
    failure.addSuppressed(next);
    return failure;
  }

  /**
   * Throws {@code failure} if there is one: an unchecked one as it is, a checked one in an {@link
   * IllegalStateException} saying that {@code what} failed.
   */
  static void rethrow(Throwable failure, String what) {
    if (failure instanceof RuntimeException r) {
      throw r;
    } else if (failure instanceof Error e) {
      throw e;
    } else if (failure != null) {
      throw new IllegalStateException(what + " failed", failure);
    }
  }
}
