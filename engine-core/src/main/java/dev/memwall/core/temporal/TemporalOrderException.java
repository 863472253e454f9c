package dev.memwall.core.temporal;

/**
 * Thrown when a version is appended at a time not later than the entity's last append: an entity's
 * versions arrive in strictly increasing time, so two versions of one entity never share a time and
 * history is never rewritten. Nothing is recorded by the refused append.
 */
public final class TemporalOrderException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;
  private final long surrogate;
  private final long lastTime;
  private final long time;

  TemporalOrderException(long surrogate, long lastTime, long time) {
    super("entity " + surrogate + " has a version at " + lastTime + "; a new version must be later, not at " + time);
    this.surrogate = surrogate;
    this.lastTime = lastTime;
    this.time = time;
  }

  /** The entity whose version was refused. */
  public long surrogate() {
    return surrogate;
  }

  /** The time of the entity's last append. */
  public long lastTime() {
    return lastTime;
  }

  /** The refused time. */
  public long time() {
    return time;
  }
}
