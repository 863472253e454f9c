package dev.memwall.tpch.run;

/** The DuckDB child process ({@link DuckDbProcess}) could not load the data, or died: why, and its exit status. */
public final class DuckDbProcessException extends RuntimeException {
  DuckDbProcessException(String message, Process process) {
    super(message + exitStatus(process));
  }

  private static String exitStatus(Process process) {
    try {
      return process.waitFor(10, java.util.concurrent.TimeUnit.SECONDS)
          ? " (the DuckDB process exited with status " + process.exitValue() + "; its messages are above)"
          : "";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "";
    }
  }
}
