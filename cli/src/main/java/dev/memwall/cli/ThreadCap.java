package dev.memwall.cli;

import java.io.PrintWriter;

/**
 * The limit on {@code --threads}: at most {@value #PER_CORE} per core of the machine. Each query
 * thread holds its own hash tables, partitions and buffers, so memory grows with the thread count
 * (10,000 threads more than doubled a run's memory), while beyond a few threads per core nothing runs
 * faster. A larger request is cut to the limit with a one-line warning, not refused, so that scripts
 * written for a bigger machine still run.
 */
final class ThreadCap {
  /** Threads allowed per core. */
  static final int PER_CORE = 4;

  private ThreadCap() {}

  /**
   * The threads to use: {@code requested} (all cores when null) cut to {@value #PER_CORE} per core,
   * with a warning on {@code err} when cut. A request below 1 is returned as is, for the caller to
   * refuse with its own message.
   */
  static int threads(Integer requested, int cores, PrintWriter err) {
    if (requested == null) {
      return cores;
    }
    long limit = (long) PER_CORE * Math.max(1, cores);
    if (requested <= limit) {
      return requested;
    }
    err.println("warning: --threads " + requested + " is more than " + PER_CORE + " per core on this " + cores
        + "-core machine; using " + limit);
    err.flush();
    return (int) limit;
  }
}
