package dev.memwall.core.concurrent;

import java.util.ArrayList;
import java.util.List;

/**
 * Runs a parallel step's tasks (a plan's pipeline workers, a partitioning pass): the first on the
 * calling thread, each other one on a new platform daemon thread; returns when all have finished
 * and rethrows the first failure (an interrupt while waiting is kept for the caller). Thread
 * safety: stateless.
 */
public final class Workers {
  private Workers() {}

  /** Runs every task to completion; rethrows the first failure after all have stopped. */
  public static void runAll(String threadName, List<Runnable> tasks) {
    List<Thread> threads = new ArrayList<>();
    Throwable[] failure = new Throwable[1];
    for (Runnable task : tasks.subList(1, tasks.size())) {
      Thread thread = Thread.ofPlatform().daemon().name(threadName).unstarted(task);
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
    boolean interrupted = false;
    for (Thread thread : threads) {
      while (true) {
        try {
          thread.join();
          break;
        } catch (InterruptedException e) {
          interrupted = true;
        }
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
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
