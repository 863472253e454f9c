package dev.memwall.bench.report;

/**
 * Bad input to the report: a result file that is not JMH's JSON, an output directory that cannot be
 * written, an option that names nothing. The message is one line a user can act on, naming the file
 * or option at fault; the command line prints it without a stack trace.
 */
public final class ReportException extends Exception {
  private static final long serialVersionUID = 1L;

  public ReportException(String message) {
    super(message);
  }

  public ReportException(String message, Throwable cause) {
    super(message, cause);
  }
}
