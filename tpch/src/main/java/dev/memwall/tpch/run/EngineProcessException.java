package dev.memwall.tpch.run;

/** An engine's child process ({@link EngineProcess}) could not open its engine, or died: why, and its exit status. */
public final class EngineProcessException extends RuntimeException {
  EngineProcessException(String message, Process process, String engine) {
    super(message + exitStatus(process, engine));
  }

  private static String exitStatus(Process process, String engine) {
    try {
      return process.waitFor(10, java.util.concurrent.TimeUnit.SECONDS)
          ? " (the " + engine + " process exited with status " + process.exitValue() + "; its messages are above)"
          : "";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "";
    }
  }
}
