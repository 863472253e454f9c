package dev.memwall.tpch.run;

/**
 * An engine will not run a query as asked: the SQL path's planner refuses its text (a construct it
 * does not support, named in the message). Thrown before anything of the query runs; the
 * {@link TpchRunner} reports the query as refused with the message and runs the others, rather than
 * running it some other way.
 */
public final class QueryRefusedException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** How a refused query's failure text starts in a {@link TpchRunner.QueryReport}. */
  static final String PREFIX = "refused: ";

  public QueryRefusedException(String reason, Throwable cause) {
    super(PREFIX + reason, cause);
  }
}
