package dev.memwall.spark;

import dev.memwall.core.concurrent.QueryCancelledException;
import dev.memwall.core.memory.BudgetExceededException;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.MemoryBudget;
import java.lang.ref.Cleaner;
import java.lang.ref.Reference;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Values built once per JVM from a broadcast and shared by every task that uses the same broadcast in
 * the same way: memwall's table and hash table of a join's build side ({@link BroadcastBuilds}). A value
 * is keyed by the broadcast's id and a spec (what is built of it, compared by {@code equals}), and tied
 * to the broadcast's value object, its referent: a task that finds another referent under the same key
 * (the broadcast read again after Spark dropped it from memory, or a broadcast of an earlier Spark
 * context with the same id) builds anew. Rows are never compared.
 *
 * <p>Building: the first task to ask builds the value on its own thread, in a memory of its own (a
 * child of this cache's {@linkplain #memory memory}); every task asking meanwhile waits for that build
 * and shares it. A build that fails, or whose task is killed, is not kept: its memory is freed, the
 * entry removed, and the tasks that waited for it try again, one of them building (so a failure is
 * never cached; the next task retries). A build the budget cannot hold first makes room by freeing
 * the entries no task uses, least recently used first, and is tried again; when none is left it fails
 * with the budget's {@link BudgetExceededException}, leaving nothing behind.
 *
 * <p>Lifetime: each {@link Use} counts as a user until it is closed (a task closes its uses when it
 * ends, {@link TaskResources}). A value is freed when no task uses it and it can no longer be needed:
 * its referent became unreachable (a {@link Cleaner} watches it: Spark drops a broadcast's value from
 * its block manager once the driver no longer needs the broadcast, and then the garbage collector
 * clears it), or another build needed its memory, or the cache was {@linkplain #retire retired}. Why
 * both: the collector alone would keep memory Spark does not see until the heap happens to fill, as
 * off-heap memory does not press on the heap; eviction alone would keep an idle executor's builds for
 * good. An unused value whose broadcast is still alive is kept, so that the tasks of a stage that run one
 * after another on two cores share it.
 *
 * <p>Memory: every value is charged to this cache's budget, the executor's, until it is freed, and
 * {@link #allocatedBytes} reports it. Thread safety: every method may be called from any thread; the
 * values must be safe to read from several threads at once (a task probes on its own thread).
 *
 * @param <V> what is built: closed when freed, with its memory leak-checked after it
 */
final class BroadcastBuildCache<V extends AutoCloseable> {
  /** Watches the referents; its one daemon thread frees values and runs no query work. */
  private static final Cleaner CLEANER = Cleaner.create(
      Thread.ofPlatform().daemon().name("memwall broadcast build cleaner").factory());
  private static final Logger LOG = LoggerFactory.getLogger("dev.memwall.spark");
  /** How often a task waiting for another's build checks whether it was killed. */
  private static final long WAIT_MILLIS = 50;

  /** What builds a value, allocating only from {@code memory}; on a failure it frees what it allocated. */
  @FunctionalInterface
  interface Builder<V> {
    V build(EngineMemory memory);
  }

  private record Key(long id, Object spec) {}

  private final EngineMemory memory;
  /** The entries tasks may find, by key; guarded by this. */
  private final Map<Key, Entry> entries = new HashMap<>();
  /** The entries whose value is not freed yet (also those no longer in {@link #entries}); guarded by this. */
  private final Set<Entry> live = new HashSet<>();
  private final AtomicLong builds = new AtomicLong();
  private final AtomicLong evictions = new AtomicLong();
  private final AtomicLong leaks = new AtomicLong();
  /** A clock of uses, for least-recently-used order; guarded by this. */
  private long clock;
  private boolean retired;
  /** Whether {@link #memory} is closed (after {@link #retire}, once nothing is held); guarded by this. */
  private boolean memoryClosed;

  /** A cache whose values are charged to {@code budget}, which this cache then owns. */
  BroadcastBuildCache(MemoryBudget budget) {
    this.memory = EngineMemory.create(budget, 0); // nothing kept for reuse: freed builds go back at once
  }

  /**
   * The value built of broadcast {@code id} as {@code spec} says, from {@code referent}, the broadcast's
   * value: shared if built already or being built, else built now by {@code builder} on this thread.
   *
   * @param name what the value is, for the name of its memory
   * @param checkpoint run while waiting for another task's build; throws to stop waiting (a killed task)
   * @return the caller's use of the value, to close when it is done with it
   * @throws BudgetExceededException if the value does not fit the budget, even with no unused value left
   * @throws QueryCancelledException if the thread is interrupted while waiting
   */
  Use acquire(long id, Object spec, Object referent, String name, Builder<V> builder, Runnable checkpoint) {
    Key key = new Key(id, spec);
    while (true) {
      checkpoint.run();
      Entry entry;
      boolean building;
      Entry stale = null;
      synchronized (this) {
        if (retired) {
          throw new IllegalStateException("this cache of broadcast builds is retired");
        }
        entry = entries.get(key);
        if (entry != null && entry.referent.get() != referent) {
          stale = entry;
          entry = null;
        }
        building = entry == null;
        if (building) {
          entry = new Entry(key, referent);
          entries.put(key, entry);
          live.add(entry);
        }
        entry.users++;
        entry.lastUsed = ++clock;
      }
      if (stale != null) {
        drop(stale);
      }
      if (building) {
        return build(entry, referent, name, builder);
      }
      Use use = awaitOthers(entry, checkpoint);
      if (use != null) {
        return use;
      }
    }
  }

  /** Builds {@code entry}'s value on this thread, making room when the budget refuses it. */
  private Use build(Entry entry, Object referent, String name, Builder<V> builder) {
    try {
      while (true) {
        EngineMemory own = memory.child("broadcast " + entry.key.id() + " (" + name + ") in " + memory.budget().name(),
            memory.budget().limitBytes(), 0);
        try {
          V value = builder.build(own);
          builds.incrementAndGet();
          entry.built(value, own, CLEANER.register(referent, () -> dropCollected(entry))); // not the referent
          return new Use(entry, value);
        } catch (RuntimeException | Error e) {
          long needed = own.budget().peakBytes();
          closeAfter(own, e);
          BudgetExceededException refusal = BudgetExceededException.among(e);
          if (refusal == null || !evictUnused(needed + refusal.requestedBytes())) {
            throw e;
          }
        }
      }
    } catch (RuntimeException | Error e) {
      synchronized (this) {
        entries.remove(entry.key, entry);
        live.remove(entry);
        entry.users--;
      }
      entry.future.completeExceptionally(e);
      closeIfRetiredAndEmpty();
      throw e;
    } finally {
      Reference.reachabilityFence(referent); // watched only once registered
    }
  }

  /** Waits for another task's build of {@code entry}: its use, or null when that build failed. */
  private Use awaitOthers(Entry entry, Runnable checkpoint) {
    try {
      while (true) {
        try {
          return new Use(entry, entry.future.get(WAIT_MILLIS, TimeUnit.MILLISECONDS));
        } catch (TimeoutException stillBuilding) {
          checkpoint.run();
        }
      }
    } catch (ExecutionException failedThere) {
      release(entry); // nothing to free: the builder freed its memory; the next round builds
      return null;
    } catch (InterruptedException e) {
      release(entry);
      Thread.currentThread().interrupt();
      checkpoint.run();
      throw new QueryCancelledException(QueryCancelledException.Reason.INTERRUPTED,
          "interrupted while waiting for another task's build of broadcast " + entry.key.id());
    } catch (RuntimeException | Error e) {
      release(entry);
      throw e;
    }
  }

  /**
   * Frees unused values, least recently used first, until {@code bytes} are free or none is left;
   * returns whether it freed any.
   */
  private boolean evictUnused(long bytes) {
    List<Entry> victims = new ArrayList<>();
    synchronized (this) {
      List<Entry> unused = new ArrayList<>();
      for (Entry entry : entries.values()) {
        if (entry.users == 0 && entry.value != null) {
          unused.add(entry);
        }
      }
      unused.sort(Comparator.comparingLong(entry -> entry.lastUsed));
      long freed = 0;
      for (Entry entry : unused) {
        if (freed >= bytes && !victims.isEmpty()) {
          break;
        }
        entries.remove(entry.key);
        freed += entry.memory.allocatedBytes();
        victims.add(entry);
      }
    }
    for (Entry victim : victims) {
      evictions.incrementAndGet();
      free(victim);
    }
    return !victims.isEmpty();
  }

  /** Takes {@code entry} out of the cache: freed now if no task uses it, else by its last user. */
  private void drop(Entry entry) {
    boolean unused;
    synchronized (this) {
      entries.remove(entry.key, entry);
      unused = entry.users == 0 && entry.value != null;
    }
    if (unused) {
      free(entry);
    }
  }

  private void release(Entry entry) {
    boolean unused;
    synchronized (this) {
      entry.users--;
      entry.lastUsed = ++clock;
      unused = entry.users == 0 && entry.value != null && entries.get(entry.key) != entry;
    }
    if (unused) {
      free(entry);
    }
  }

  /**
   * Closes the value and its memory (a leak there throws), once; after the last, closes this cache's
   * memory if it is retired.
   */
  private void free(Entry entry) {
    synchronized (this) {
      if (entry.value == null || !live.remove(entry)) {
        return;
      }
    }
    entry.cleanable.clean(); // no longer watched (the action finds nothing to do)
    Throwable failure = null;
    try {
      entry.value.close();
    } catch (Exception e) {
      failure = e;
    }
    try {
      entry.memory.close();
    } catch (RuntimeException e) {
      leaks.incrementAndGet();
      failure = Failures.add(failure, e);
    }
    closeIfRetiredAndEmpty();
    Failures.rethrow(failure, "freeing the build of broadcast " + entry.key.id());
  }

  private void closeAfter(EngineMemory own, Throwable failure) {
    try {
      own.close();
    } catch (RuntimeException e) {
      leaks.incrementAndGet();
      failure.addSuppressed(e);
    }
  }

  /**
   * Takes every entry out: those no task uses are freed now, the others by their last user; this
   * cache's memory is closed after the last. No task may acquire afterwards.
   */
  void retire() {
    List<Entry> all;
    synchronized (this) {
      retired = true;
      all = new ArrayList<>(entries.values());
    }
    for (Entry entry : all) {
      drop(entry);
    }
    closeIfRetiredAndEmpty();
  }

  private void closeIfRetiredAndEmpty() {
    boolean close;
    synchronized (this) {
      close = retired && !memoryClosed && live.isEmpty() && entries.isEmpty();
      memoryClosed |= close;
    }
    if (close) {
      memory.close();
    }
  }

  /** Frees every value no task uses (what eviction would free first); returns how many. */
  int evictAllUnused() {
    long before = evictions.get();
    evictUnused(Long.MAX_VALUE);
    return (int) (evictions.get() - before);
  }

  /** The budget every value is charged to. */
  MemoryBudget budget() {
    return memory.budget();
  }

  /** Bytes the values not yet freed hold (built or being built). */
  long allocatedBytes() {
    return memory.allocatedBytes();
  }

  /** How many values are built or being built, and not yet freed. */
  synchronized int liveCount() {
    return live.size();
  }

  /** How many uses are open (tasks using or waiting for a value). */
  synchronized int userCount() {
    int users = 0;
    for (Entry entry : entries.values()) {
      users += entry.users;
    }
    for (Entry entry : live) {
      users += entries.get(entry.key) == entry ? 0 : entry.users;
    }
    return users;
  }

  /** How many values this cache has built (failed builds not counted). */
  long buildCount() {
    return builds.get();
  }

  /** How many unused values were freed to make room. */
  long evictionCount() {
    return evictions.get();
  }

  /** How many freed values or failed builds left memory allocated (a bug). */
  long leakCount() {
    return leaks.get();
  }

  @Override
  public synchronized String toString() {
    return "BroadcastBuildCache[" + live.size() + " builds, " + memory.allocatedBytes() + " of "
        + memory.budget().limitBytes() + " bytes, " + memory.budget().name() + "]";
  }

  /** One broadcast's value, once built. */
  private final class Entry {
    final Key key;
    final WeakReference<Object> referent;
    final CompletableFuture<V> future = new CompletableFuture<>();
    /** Set once built, under the cache's lock. */
    V value;
    EngineMemory memory;
    Cleaner.Cleanable cleanable;
    /** Guarded by the cache. */
    int users;
    long lastUsed;

    Entry(Key key, Object referent) {
      this.key = key;
      this.referent = new WeakReference<>(referent);
    }

    void built(V built, EngineMemory own, Cleaner.Cleanable watch) {
      synchronized (BroadcastBuildCache.this) {
        value = built;
        memory = own;
        cleanable = watch;
      }
      future.complete(built);
    }
  }

  /** What the cleaner runs once {@code entry}'s referent is unreachable (or the entry was freed before). */
  private void dropCollected(Entry entry) {
    try {
      drop(entry);
    } catch (RuntimeException | Error e) {
      LOG.warn("memwall could not free the build of broadcast {}", entry.key.id(), e); // counted as a leak
    }
  }

  /** A task's use of a shared value; {@link #close} (idempotent) ends it. */
  final class Use implements AutoCloseable {
    private final Entry entry;
    private final V value;
    private final AtomicBoolean closed = new AtomicBoolean();

    private Use(Entry entry, V value) {
      this.entry = entry;
      this.value = value;
    }

    /** The shared value; read-only, valid until this use is closed. */
    V value() {
      return value;
    }

    @Override
    public void close() {
      if (closed.compareAndSet(false, true)) {
        release(entry);
      }
    }
  }
}
