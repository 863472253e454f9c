package dev.memwall.sql;

/** SQL text that does not parse, or does not validate against the catalog's tables; the message says where. */
public final class SqlException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public SqlException(String message, Throwable cause) {
    super(message, cause);
  }
}
