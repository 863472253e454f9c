package dev.memwall.core.concurrent;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.LockSupport;

/**
 * The queue lock of Mellor-Crummey and Scott (1991), the mutex Johnson, Pandis and Ailamaki (2008)
 * recommend for short critical sections that many threads contend for: each acquirer appends its own
 * {@link Node} to the queue with one atomic swap of the tail and then waits on a word of its own node,
 * so waiters do not share a cache line; the holder hands the lock to its successor directly, in
 * arrival order.
 *
 * <p>Waiting: a waiter spins {@code spinLimit} times ({@link Thread#onSpinWait()} each) on its node,
 * then parks. A node's state word goes WAITING to PARKED (by the waiter, compare-and-set, before it
 * parks) or to GRANTED (by the releaser, get-and-set): whichever comes second sees the other, so a
 * releaser that finds PARKED unparks the waiter and no wake-up is lost. Parking matters on machines
 * whose virtual processors are preempted: a waiter spinning behind a descheduled holder burns the
 * core the holder needs. Handing the lock to a parked waiter costs a wake-up during which no running
 * thread holds it, and a waiter that is itself descheduled delays everyone queued behind it (the
 * convoys of the paper); this lock does not skip such waiters as preemption-safe variants do. Once
 * waiters park, every hand-off waits for a wake-up and the queue tends to stay that way, so where
 * threads outnumber cores a lock that lets a running thread take it ({@link TatasLock}, the JDK's
 * locks) keeps going while this one crawls: use it where each contending thread has a core.
 *
 * <p><b>Nodes.</b> {@link #lock(Node)} and {@link #unlock(Node)} take a node the caller keeps,
 * typically one per thread and critical section nesting depth. From {@code lock(node)} until {@code
 * unlock(node)} returns the node is part of this lock's queue: it must not be used for another lock
 * held at the same time (refused with {@link IllegalStateException}, as is locking again with it:
 * the lock is not re-entrant) and must not be touched by another thread. After {@code unlock(node)}
 * it is free for the next acquire, of this or any lock. {@link #lock()} and {@link #unlock()} use a
 * node per thread and lock (a {@link ThreadLocal} lookup per call).
 *
 * <p>Misuse: {@code unlock(node)} with a node that does not hold this lock (a double unlock, a node
 * that never locked it) throws {@link IllegalMonitorStateException}, checked on the node, which
 * only its thread writes; with the per-thread form that covers every unlock by a thread that does
 * not hold the lock. A node shared between threads defeats the check: undefined.
 *
 * <p>Thread safety: any number of threads, each with its own nodes.
 */
public final class McsLock implements ShortLock {
  private static final int WAITING = 0;
  private static final int PARKED = 1;
  private static final int GRANTED = 2;
  private static final VarHandle TAIL;
  private static final VarHandle NEXT;
  private static final VarHandle WAIT;

  static {
    try {
      MethodHandles.Lookup lookup = MethodHandles.lookup();
      TAIL = lookup.findVarHandle(McsLock.class, "tail", Node.class);
      NEXT = lookup.findVarHandle(Node.class, "next", Node.class);
      WAIT = lookup.findVarHandle(Node.class, "state", int.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  /**
   * One acquirer's place in a lock's queue; see the class documentation for its lifetime. Thread
   * safety: used by one thread at a time.
   */
  public static final class Node {
    /** The successor in the queue; written by it (release), read by this node's thread. */
    private Node next;
    /** WAITING, PARKED or GRANTED; written by the releaser and by this node's waiting thread. */
    private int state;
    /** The thread to unpark; written before the node is queued, read by the predecessor. */
    private Thread thread;
    /** The lock this node is queued in or holds, else null; this node's thread only. */
    private McsLock holding;

    /** A free node. */
    public Node() {}

    /** Whether the node is in a lock's queue or holds a lock (its thread only). */
    public boolean inUse() {
      return holding != null;
    }
  }

  private final int spinLimit;
  private final ThreadLocal<Node> nodes = ThreadLocal.withInitial(Node::new);

  @SuppressWarnings("unused") // through TAIL
  private volatile Node tail;

  /** A free lock whose waiters spin 1,024 times before parking (see {@link ShortLock}). */
  public McsLock() {
    this(SpinThenPark.DEFAULT_SPINS);
  }

  /**
   * A free lock whose waiters spin {@code spinLimit} times before parking (0: park at once); a
   * negative limit throws {@link IllegalArgumentException}.
   */
  public McsLock(int spinLimit) {
    this.spinLimit = SpinThenPark.checkSpinLimit(spinLimit);
  }

  /** Acquires with this thread's node for this lock. */
  @Override
  public void lock() {
    lock(nodes.get());
  }

  /** Releases what {@link #lock()} acquired on this thread. */
  @Override
  public void unlock() {
    unlock(nodes.get());
  }

  /**
   * Waits until this thread holds the lock, queued with {@code node}; a node already in use throws
   * {@link IllegalStateException}.
   */
  public void lock(Node node) {
    if (node.holding != null) {
      throw new IllegalStateException(node.holding == this
          ? "McsLock is not re-entrant: the node already holds or waits for this lock"
          : "an McsLock queue node may serve one lock at a time; this one is in use");
    }
    node.holding = this;
    node.thread = Thread.currentThread();
    NEXT.set(node, null);
    WAIT.set(node, WAITING);
    Node predecessor = (Node) TAIL.getAndSet(this, node);
    if (predecessor != null) {
      NEXT.setRelease(predecessor, node);
      awaitGrant(node);
    }
  }

  private void awaitGrant(Node node) {
    SpinThenPark wait = new SpinThenPark(spinLimit);
    while (true) {
      int state = (int) WAIT.getAcquire(node);
      if (state == GRANTED) {
        break;
      }
      if (wait.spin()) {
        continue;
      }
      if (state == WAITING) {
        WAIT.compareAndSet(node, WAITING, PARKED); // fails only if granted meanwhile
      } else {
        LockSupport.park(this);
        wait.noteInterrupt();
      }
    }
    wait.restoreInterrupt();
  }

  /**
   * Releases the lock held with {@code node} and hands it to the next waiter, if any; a node that
   * does not hold this lock throws {@link IllegalMonitorStateException}.
   */
  public void unlock(Node node) {
    if (node.holding != this) {
      throw new IllegalMonitorStateException("unlock of an McsLock with a node that does not hold it");
    }
    node.holding = null;
    Node successor = (Node) NEXT.getAcquire(node);
    if (successor == null) {
      if (TAIL.compareAndSet(this, node, null)) {
        return;
      }
      successor = awaitSuccessor(node);
    }
    Thread waiter = successor.thread; // read before the grant: the successor may reuse its node after
    if ((int) WAIT.getAndSet(successor, GRANTED) == PARKED) {
      LockSupport.unpark(waiter);
    }
  }

  /** A successor has swapped the tail but not linked itself yet: wait for the link. */
  private Node awaitSuccessor(Node node) {
    SpinThenPark wait = new SpinThenPark(spinLimit);
    Node successor;
    while ((successor = (Node) NEXT.getAcquire(node)) == null) {
      wait.backOff(this);
    }
    wait.restoreInterrupt();
    return successor;
  }

  /** Whether some thread holds the lock or waits for it at this moment (for monitoring and tests). */
  public boolean isLocked() {
    return TAIL.getAcquire(this) != null;
  }

  /** Whether {@code node} is the last in the queue at this moment (for tests ordering waiters). */
  boolean isTail(Node node) {
    return TAIL.getAcquire(this) == node;
  }

  @Override
  public String toString() {
    return isLocked() ? "McsLock[held]" : "McsLock[free]";
  }
}
