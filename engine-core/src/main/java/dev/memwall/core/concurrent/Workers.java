package dev.memwall.core.concurrent;

import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Runs a parallel step's tasks (a plan's pipeline workers, a partitioning pass): the first on the
 * calling thread, each other one on the running query's {@linkplain ExecutionControl executor} if
 * the host gave one, else on one of memwall's own platform daemon threads, named for the step while
 * it runs a task of it. Those threads are kept for {@value #IDLE_SECONDS} seconds after their last
 * task, so that the next step reuses them: a query runs dozens of steps, and starting a thread, which
 * the calling thread does before it runs its own task, costs as much as a short task (far more in
 * sandboxed kernels such as gVisor). Every task runs with the query's {@link ExecutionControl}
 * bound, so its checkpoints see cancellation. Returns when all tasks have finished and rethrows the
 * first failure; a failure also aborts the other tasks at their next checkpoint.
 *
 * <p>Deadlock freedom: each task is claimed exactly once, by whichever thread gets to it first. When
 * the calling thread has finished its own task it claims and runs every task no thread has started
 * yet, so an executor that is saturated, rejects tasks, or is the calling thread's own pool only
 * costs parallelism.
 *
 * <p>Interrupts: an interrupt of the calling thread while it waits aborts the query's tasks (their
 * next checkpoint throws {@link QueryCancelledException}); the call still waits for them to stop, so
 * nothing runs on after it returns, and the thread's interrupt status is kept. Thread safety: safe
 * from any thread.
 */
public final class Workers {
  /** Seconds an own thread waits for its next task before it ends. */
  private static final int IDLE_SECONDS = 30;
  /** The name of an own thread between tasks. */
  private static final String IDLE_NAME = "memwall-idle";
  /** memwall's own threads: as many as the steps running at once ask for, none left when idle. */
  private static final ExecutorService OWN_THREADS = new ThreadPoolExecutor(0, Integer.MAX_VALUE, IDLE_SECONDS,
      TimeUnit.SECONDS, new SynchronousQueue<>(), Thread.ofPlatform().daemon().name(IDLE_NAME).factory());

  private Workers() {}

  /** Runs every task to completion; rethrows the first failure after all have stopped. */
  public static void runAll(String threadName, List<Runnable> tasks) {
    if (tasks.isEmpty()) {
      return;
    }
    ExecutionControl control = ExecutionControl.current();
    Step step = new Step(control, tasks);
    Executor executor = control.executor().orElse(null);
    for (int i = 1; i < tasks.size(); i++) {
      int task = i;
      Runnable run = () -> step.claimAndRun(task);
      if (executor == null) {
        OWN_THREADS.execute(() -> {
          Thread thread = Thread.currentThread();
          thread.setName(threadName);
          try {
            run.run();
          } finally {
            thread.setName(IDLE_NAME);
          }
        });
      } else {
        try {
          executor.execute(run);
        } catch (RejectedExecutionException rejected) {
          // the calling thread runs it below
        }
      }
    }
    for (int i = 0; i < tasks.size(); i++) {
      step.claimAndRun(i);
    }
    step.awaitAll();
    step.rethrow();
  }

  /** One call's tasks, who claimed them, and the first failure. */
  private static final class Step {
    private final ExecutionControl control;
    private final List<Runnable> tasks;
    private final AtomicBoolean[] claimed;
    private final CountDownLatch finished;
    private Throwable failure;

    Step(ExecutionControl control, List<Runnable> tasks) {
      this.control = control;
      this.tasks = tasks;
      this.claimed = new AtomicBoolean[tasks.size()];
      for (int i = 0; i < claimed.length; i++) {
        claimed[i] = new AtomicBoolean();
      }
      this.finished = new CountDownLatch(tasks.size());
    }

    /** Runs task {@code i} on this thread unless another thread has claimed it. */
    void claimAndRun(int i) {
      if (!claimed[i].compareAndSet(false, true)) {
        return;
      }
      try {
        control.runBound(() -> {
          control.check();
          tasks.get(i).run();
        });
      } catch (Throwable e) {
        synchronized (this) {
          if (failure == null) {
            failure = e;
          }
        }
        control.abort(e);
      } finally {
        finished.countDown();
      }
    }

    void awaitAll() {
      boolean interrupted = false;
      while (true) {
        try {
          finished.await();
          break;
        } catch (InterruptedException e) {
          interrupted = true;
          control.abort(new QueryCancelledException(QueryCancelledException.Reason.INTERRUPTED,
              "query interrupted (thread " + Thread.currentThread().getName() + ")"));
        }
      }
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }

    synchronized void rethrow() {
      switch (failure) {
        case null -> { }
        case RuntimeException e -> throw e;
        case Error e -> throw e;
        default -> throw new IllegalStateException(failure);
      }
    }
  }
}
