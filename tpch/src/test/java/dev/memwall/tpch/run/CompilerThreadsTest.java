package dev.memwall.tpch.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class CompilerThreadsTest {
  private static final long WINDOW = CompilerThreads.WINDOW.toNanos();

  @Test
  void waitsWhileTheCompilersAreBusyAndReturnsOnceAWindowPassesQuietly() {
    AtomicInteger reads = new AtomicInteger();
    // busy for a whole window at each of the first three readings, then no more
    long start = System.nanoTime();
    boolean idle = CompilerThreads.awaitIdle(() -> Math.min(reads.getAndIncrement(), 3) * WINDOW, Duration.ofSeconds(10));
    assertTrue(idle);
    assertEquals(5, reads.get(), "three busy windows, then the quiet one");
    assertTrue(System.nanoTime() - start >= 4 * WINDOW, "it waited out every window");
  }

  @Test
  void aLittleCompilingStillCountsAsIdle() {
    AtomicInteger reads = new AtomicInteger();
    long allowed = (long) (WINDOW * CompilerThreads.IDLE_SHARE);
    assertTrue(CompilerThreads.awaitIdle(() -> reads.getAndIncrement() * allowed, Duration.ofSeconds(10)));
    assertEquals(2, reads.get());
  }

  @Test
  void givesUpAtItsLimitWhenTheCompilersNeverRest() {
    AtomicInteger reads = new AtomicInteger();
    long start = System.nanoTime();
    assertFalse(CompilerThreads.awaitIdle(() -> reads.getAndIncrement() * WINDOW, Duration.ofMillis(350)));
    long waited = System.nanoTime() - start;
    assertTrue(waited >= Duration.ofMillis(350).toNanos() && waited < Duration.ofSeconds(5).toNanos(), waited + " ns");
  }

  @Test
  void anUnknownReadingEndsTheWaitAtOnce() {
    long start = System.nanoTime();
    assertFalse(CompilerThreads.awaitIdle(() -> -1, Duration.ofSeconds(10)));
    assertTrue(System.nanoTime() - start < WINDOW);
  }

  @Test
  void readsTheCompilerThreadsOfThisJvm() {
    assertTrue(CompilerThreads.isCompiler("C2 CompilerThre\n"));
    assertTrue(CompilerThreads.isCompiler("C1 CompilerThre"));
    assertFalse(CompilerThreads.isCompiler("main"));
    assertEquals(123456789L, CompilerThreads.onCpuNanos("123456789 2000 17\n"));
    if (Files.isDirectory(Path.of("/proc/self/task"))) {
      // this JVM has compiled the test framework by now, so its compilers have used some CPU
      assertTrue(CompilerThreads.cpuNanosFromProc() > 0, "the compiler threads found under /proc");
    }
    assertTrue(CompilerThreads.busyNanos() >= 0);
  }
}
