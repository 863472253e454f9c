package dev.memwall.substrait;

/**
 * A Substrait plan, or a part of it, that memwall does not run: a relation, function, type or
 * literal outside the supported subset, or a reference it cannot resolve (an unknown table or
 * column). Thrown while the plan is converted, before any of it runs. The message names the
 * construct and its position as the path of relation kinds from the root, for example
 * {@code root > sort > aggregate > filter: function 'regexp_match'}.
 */
public final class UnsupportedPlanException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final String position;

  /** A refusal of {@code what} at {@code position} (the path of relation kinds from the root). */
  public UnsupportedPlanException(String position, String what) {
    super(position + ": " + what);
    this.position = position;
  }

  /** The path of relation kinds from the root to the refused construct. */
  public String position() {
    return position;
  }
}
