package dev.memwall.spark;

import dev.memwall.core.concurrent.CancellationToken;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.MemoryBudget;
import dev.memwall.core.plan.ExecutionContext;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.spark.TaskContext;
import org.apache.spark.memory.TaskMemoryManager;
import org.apache.spark.util.TaskCompletionListener;
import org.apache.spark.util.TaskFailureListener;
import org.apache.spark.util.TaskInterruptListener;

/**
 * What one piece of memwall work inside a Spark task (a partition reader, an accelerated operator)
 * runs with, tied to the task's life:
 *
 * <ul>
 *   <li>an {@link EngineMemory} whose budget is the memory Spark granted the task through a
 *       {@link TaskMemoryLease} (a {@code MemoryConsumer} of the task);
 *   <li>a {@link CancellationToken} that a task interruption (a kill, a cancelled job or stage) or a
 *       task failure cancels, so that memwall stops at its next checkpoint;
 *   <li>an {@link ExecutionContext} with both, on the task's thread ({@code threads(1)}, no executor:
 *       memwall starts no thread inside a Spark executor), whose spilling operators count what they
 *       write in {@link #spilledBytes}, as does a result written out when Spark asks for memory back
 *       ({@link #spillable});
 *   <li>the resources registered with {@link #own} (mapped tables, results), closed before the memory.
 * </ul>
 *
 * <p>{@link #close} frees everything, in reverse order of registration, then checks the engine memory
 * for leaks and returns the lease to Spark. Its owner calls it when done; a task completion listener
 * calls it too, so a task that fails or is killed before its owner gets there still frees everything.
 *
 * <p>Outside a Spark task (no {@link TaskContext}, as in a unit test), the budget is the requested
 * amount, unbacked, and nothing cancels the token but {@link #cancel}.
 *
 * <p>Thread safety: {@link #close} and {@link #cancel} may be called from any thread (Spark's listeners
 * run on the task thread or the thread killing it) and are idempotent; the rest is for the task thread.
 */
final class TaskResources implements AutoCloseable {
  /** The resources open in this JVM, for {@link #openCount} and {@link #allocatedBytes}. */
  private static final Set<TaskResources> OPEN = ConcurrentHashMap.newKeySet();
  /** Closes that found memwall memory still allocated (a leak memwall's engine memory reported). */
  private static final AtomicLong LEAKS = new AtomicLong();
  /** Bytes memwall's operators in this JVM's tasks wrote to spill files. */
  private static final AtomicLong SPILLED = new AtomicLong();
  /** Times memwall work in this JVM's tasks wrote what it held to disk because Spark asked for memory back. */
  private static final AtomicLong SPILLS_ON_REQUEST = new AtomicLong();

  private final String name;
  private final TaskMemoryLease lease;
  private final EngineMemory memory;
  private final CancellationToken token = new CancellationToken();
  private final ExecutionContext context;
  private final Deque<AutoCloseable> owned = new ArrayDeque<>();
  private final TaskContext task;
  /** Bytes this work's operators wrote to spill files. */
  private final AtomicLong spilled = new AtomicLong();
  /** What the work holds that it can write to disk on Spark's request; null: nothing. */
  private volatile TaskMemoryLease.Spillable held;
  private boolean closed;

  private TaskResources(String name, TaskContext task, TaskMemoryLease lease, MemoryBudget budget) {
    this.name = name;
    this.task = task;
    this.lease = lease;
    this.memory = EngineMemory.create(budget);
    this.context = ExecutionContext.builder(memory).threads(1).cancellation(token)
        .spillReports(report -> {
          spilled.addAndGet(report.spilledBytes());
          SPILLED.addAndGet(report.spilledBytes());
        }).build();
    if (lease != null) {
      lease.spillable(this::spillOnRequest);
    }
    OPEN.add(this);
  }

  /**
   * Resources for work named {@code name} in the current Spark task (if any), with a budget that Spark
   * grants as memwall reserves, up to {@code maxBytes} ({@link TaskMemoryLease}).
   */
  static TaskResources open(String name, long maxBytes) {
    TaskContext task = TaskContext.get();
    if (task == null) {
      return new TaskResources(name, null, null, MemoryBudget.of(name + " (no Spark task, unbacked)", maxBytes));
    }
    TaskResources resources = leased(name, task, task.taskMemoryManager(), maxBytes);
    task.addTaskInterruptListener((TaskInterruptListener) (context, reason) -> resources.cancel());
    task.addTaskFailureListener((TaskFailureListener) (context, error) -> resources.cancel());
    task.addTaskCompletionListener((TaskCompletionListener) context -> resources.close());
    return resources;
  }

  /**
   * Resources whose budget is a {@link TaskMemoryLease} of at most {@code maxBytes} from {@code manager}: the
   * task's ({@code task}), or, with no task, a memory manager of a test's own, which then closes them itself.
   */
  static TaskResources leased(String name, TaskContext task, TaskMemoryManager manager, long maxBytes) {
    TaskMemoryLease lease = new TaskMemoryLease(manager, maxBytes);
    try {
      MemoryBudget budget = lease.budget(name + (task == null ? "" : " in task " + task.taskAttemptId())
          + " (memory Spark granted as memwall needed it, at most " + maxBytes + " bytes, " + MemwallSettings.TASK_MEMORY
          + ")");
      return new TaskResources(name, task, lease, budget);
    } catch (RuntimeException | Error e) {
      lease.release();
      throw e;
    }
  }

  /** The lease behind the budget; null outside a Spark task. */
  TaskMemoryLease lease() {
    return lease;
  }

  EngineMemory memory() {
    return memory;
  }

  ExecutionContext context() {
    return context;
  }

  CancellationToken token() {
    return token;
  }

  /**
   * Stops with Spark's {@code TaskKilledException} if Spark has marked the task killed (cancels the token
   * first); a no-op outside a task.
   */
  void checkKilled() {
    if (task != null && task.isInterrupted()) {
      token.cancel();
      task.killTaskIfInterrupted();
    }
  }

  /** The most memwall memory this work has held at once. */
  long peakBytes() {
    return memory.budget().peakBytes();
  }

  /** Bytes this work's operators have written to spill files. */
  long spilledBytesOfTask() {
    return spilled.get();
  }

  /**
   * Sets what this work holds that it can write to disk when Spark asks the task's memwall memory back
   * ({@link TaskMemoryLease#spill}), after the memory kept for reuse; ignored outside a Spark task, where
   * nothing asks.
   */
  void spillable(TaskMemoryLease.Spillable held) {
    this.held = held;
  }

  /** Spark asks for {@code bytes} back: the memory kept for reuse first, then what the work holds. */
  private long spillOnRequest(long bytes) {
    long freed = memory.trim();
    TaskMemoryLease.Spillable holder = held;
    if (freed < bytes && holder != null) {
      freed += holder.spill(bytes - freed);
    }
    return freed;
  }

  /** Counts {@code bytes} written to disk because Spark asked for memory back. */
  void spilledOnRequest(long bytes) {
    spilled.addAndGet(bytes);
    SPILLED.addAndGet(bytes);
    SPILLS_ON_REQUEST.incrementAndGet();
  }

  /** Registers {@code resource} to be closed by {@link #close}, before the memory; returns it. */
  synchronized <T extends AutoCloseable> T own(T resource) {
    if (closed) {
      closeQuietly(resource, null);
      throw new IllegalStateException(name + " is closed");
    }
    owned.push(resource);
    return resource;
  }

  /** Asks memwall work running with {@link #context} to stop at its next checkpoint. */
  void cancel() {
    token.cancel();
  }

  /**
   * Closes what {@link #own} registered (last first), then the engine memory (throwing its
   * {@code MemoryLeakException} if memwall leaked), then returns the lease to Spark. Idempotent.
   */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    token.cancel();
    Throwable failure = null;
    while (!owned.isEmpty()) {
      failure = closeQuietly(owned.pop(), failure);
    }
    try {
      memory.close();
    } catch (RuntimeException e) {
      LEAKS.incrementAndGet();
      failure = Failures.add(failure, e);
    } finally {
      if (lease != null) {
        lease.release();
      }
      OPEN.remove(this);
    }
    Failures.rethrow(failure, "closing " + name);
  }

  /** {@link #close}, after {@code failure}: what closing throws is added to it as suppressed. */
  void closeAfter(Throwable failure) {
    try {
      close();
    } catch (RuntimeException | Error e) {
      failure.addSuppressed(e);
    }
  }

  /** How many resources are open in this JVM (all tasks): 0 once every task has ended. For tests and metrics. */
  static int openCount() {
    return OPEN.size();
  }

  /** Bytes memwall holds for the open resources of this JVM (all tasks). */
  static long allocatedBytes() {
    return OPEN.stream().mapToLong(resources -> resources.memory.allocatedBytes()).sum();
  }

  /** Bytes Spark has granted the open resources of this JVM and not been given back. */
  static long leasedBytes() {
    return OPEN.stream().mapToLong(resources -> resources.lease == null ? 0 : resources.lease.getUsed()).sum();
  }

  /** Bytes memwall's operators in this JVM's tasks have written to spill files. For tests and metrics. */
  static long spilledBytes() {
    return SPILLED.get();
  }

  /** How many times memwall work in this JVM's tasks spilled because Spark asked for memory back. For tests and metrics. */
  static long spillsOnRequest() {
    return SPILLS_ON_REQUEST.get();
  }

  /** How many closes in this JVM found memory memwall had not freed. */
  static long leakCount() {
    return LEAKS.get();
  }

  private static Throwable closeQuietly(AutoCloseable resource, Throwable failure) {
    try {
      resource.close();
      return failure;
    } catch (Exception e) {
      return Failures.add(failure, e);
    }
  }

  @Override
  public String toString() {
    return "TaskResources[" + name + ", " + memory.budget() + (lease != null ? ", " + lease : "") + "]";
  }
}
