package dev.memwall.tpch.run;

import java.io.IOException;
import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * This JVM's JIT compiler threads: how long they have been busy, and a wait until they are idle.
 *
 * <p>The runner lets the compared engine run only once memwall's compilers have finished what
 * memwall's runs gave them. On a machine of few cores they would otherwise take cores from the
 * other engine's runs, and clear memwall's backlog in time that is not memwall's: each of memwall's
 * first runs would start with the compiles of the one before done, which a fresh process running
 * one query after another does not see.
 *
 * <p>Busy time is read on Linux from {@code /proc/self/task/<tid>/schedstat} (nanoseconds on a
 * CPU) of the threads named {@code C1 CompilerThre...} and {@code C2 CompilerThre...}; elsewhere
 * the JVM's accumulated compilation time ({@link CompilationMXBean}) stands in, which moves only
 * when a compile ends. Thread safety: stateless.
 */
final class CompilerThreads {
  /** Idle means busy for at most {@link #IDLE_SHARE} of one core over a window this long. */
  static final Duration WINDOW = Duration.ofMillis(100);
  /** The share of one core the compilers may use over {@link #WINDOW} and still count as idle. */
  static final double IDLE_SHARE = 0.05;
  /** How long {@link #awaitIdle()} waits at most: a JIT never done (a flood of recompiles) must not hang the run. */
  static final Duration LIMIT = Duration.ofSeconds(10);

  private static final Path TASKS = Path.of("/proc/self/task");

  private CompilerThreads() {
  }

  /**
   * Waits until the compilers are idle (see {@link #WINDOW}), at most {@link #LIMIT}; returns whether
   * they went idle. Returns at once where their busy time cannot be read at all.
   */
  static boolean awaitIdle() {
    return awaitIdle(CompilerThreads::busyNanos, LIMIT);
  }

  /**
   * Waits until {@code busyNanos} grows by at most {@link #IDLE_SHARE} of {@link #WINDOW} over a
   * window, at most {@code limit}; returns whether it did. A reading below 0 (unknown) ends the wait
   * at once, returning false.
   */
  static boolean awaitIdle(LongSupplier busyNanos, Duration limit) {
    long deadline = System.nanoTime() + limit.toNanos();
    long window = WINDOW.toNanos();
    long allowed = (long) (window * IDLE_SHARE);
    long before = busyNanos.getAsLong();
    while (before >= 0) {
      sleep(window);
      long after = busyNanos.getAsLong();
      if (after >= 0 && after - before <= allowed) {
        return true;
      }
      if (System.nanoTime() - deadline >= 0) {
        return false;
      }
      before = after;
    }
    return false;
  }

  /**
   * How long this JVM's compiler threads have been busy, in nanoseconds: their CPU time where Linux's
   * {@code /proc} tells it, else the JVM's accumulated compilation time; -1 when neither is known.
   */
  static long busyNanos() {
    long fromProc = cpuNanosFromProc();
    if (fromProc >= 0) {
      return fromProc;
    }
    CompilationMXBean compiler = ManagementFactory.getCompilationMXBean();
    return compiler != null && compiler.isCompilationTimeMonitoringSupported()
        ? TimeUnit.MILLISECONDS.toNanos(compiler.getTotalCompilationTime()) : -1;
  }

  /** The compiler threads' CPU time from {@code /proc}, or -1 where it cannot be read or none is found. */
  static long cpuNanosFromProc() {
    if (!Files.isDirectory(TASKS)) {
      return -1;
    }
    long total = 0;
    boolean found = false;
    try (DirectoryStream<Path> tasks = Files.newDirectoryStream(TASKS)) {
      for (Path task : tasks) {
        try {
          if (isCompiler(Files.readString(task.resolve("comm")))) {
            total += onCpuNanos(Files.readString(task.resolve("schedstat")));
            found = true;
          }
        } catch (IOException | RuntimeException e) {
          // the thread ended between the listing and the read, or the kernel keeps no schedstat:
          // the sum of the others (or -1, below) is still a reading
        }
      }
    } catch (IOException e) {
      return -1;
    }
    return found ? total : -1;
  }

  /** Whether a thread's {@code comm} (its name, cut to 15 bytes) is one of HotSpot's compiler threads. */
  static boolean isCompiler(String comm) {
    return comm.startsWith("C1 CompilerThre") || comm.startsWith("C2 CompilerThre");
  }

  /** The first field of a {@code schedstat} line: nanoseconds spent on a CPU. */
  static long onCpuNanos(String schedstat) {
    String line = schedstat.strip();
    int space = line.indexOf(' ');
    return Long.parseLong(space < 0 ? line : line.substring(0, space));
  }

  private static void sleep(long nanos) {
    try {
      TimeUnit.NANOSECONDS.sleep(nanos);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for the JIT compilers to go idle", e);
    }
  }
}
