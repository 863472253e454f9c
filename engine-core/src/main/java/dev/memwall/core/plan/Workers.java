package dev.memwall.core.plan;

import java.util.ArrayList;
import java.util.List;

/** Runs a pipeline's worker tasks: the first on the calling thread, the others on new threads. */
final class Workers {
  private Workers() {}

  /** Runs every task to completion; rethrows the first failure after all have stopped. */
  static void runAll(List<Runnable> tasks) {
    List<Thread> threads = new ArrayList<>();
    Throwable[] failure = new Throwable[1];
    for (Runnable task : tasks.subList(1, tasks.size())) {
      Thread thread = Thread.ofPlatform().daemon().name("memwall-worker").unstarted(task);
      thread.setUncaughtExceptionHandler((t, e) -> {
        synchronized (failure) {
          if (failure[0] == null) {
            failure[0] = e;
          }
        }
      });
      threads.add(thread);
      thread.start();
    }
    try {
      tasks.getFirst().run();
    } catch (RuntimeException | Error e) {
      synchronized (failure) {
        if (failure[0] == null) {
          failure[0] = e;
        }
      }
    }
    for (Thread thread : threads) {
      boolean interrupted = false;
      while (true) {
        try {
          thread.join();
          break;
        } catch (InterruptedException e) {
          interrupted = true;
        }
      }
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
    synchronized (failure) {
      switch (failure[0]) {
        case null -> { }
        case RuntimeException e -> throw e;
        case Error e -> throw e;
        default -> throw new IllegalStateException(failure[0]);
      }
    }
  }
}
