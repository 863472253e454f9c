package dev.memwall.core.temporal;

import dev.memwall.core.memory.EngineMemory;
import java.util.Objects;

/**
 * The {@link TemporalStore} of an in-memory table: the {@link EntityDirectory} and, per part, one
 * heap array per entity with its used length, every array grown through the {@link HeapCharge} so
 * that the charge is their capacity. {@link #segment} and {@link #room} return the live array, so a
 * layout writes in place; a refused growth leaves array and charge as they were.
 */
final class HeapStore implements TemporalStore {
  private final HeapCharge charge;
  private final EntityDirectory directory;
  /** {@code arrays[p][e]}: segment p of entity e. */
  private final long[][][] arrays;
  /** {@code lengths[p][e]}: its used longs. */
  private final int[][] lengths;

  HeapStore(EngineMemory memory, int parts) {
    this.charge = new HeapCharge(Objects.requireNonNull(memory, "memory"));
    this.directory = new EntityDirectory(charge);
    this.arrays = new long[parts][0][];
    this.lengths = new int[parts][0];
    charge.reserve(16L * parts); // the per-part references of arrays and lengths
  }

  @Override
  public int parts() {
    return arrays.length;
  }

  @Override
  public int entities() {
    return directory.size();
  }

  @Override
  public int find(long surrogate) {
    return directory.find(surrogate);
  }

  @Override
  public long surrogate(int entity) {
    return directory.surrogate(entity);
  }

  @Override
  public long lastTime(int entity) {
    return directory.lastTime(entity);
  }

  @Override
  public void setLastTime(int entity, long time) {
    directory.setLastTime(entity, time);
  }

  @Override
  public int prepare() {
    return directory.prepare();
  }

  @Override
  public void commit(long surrogate, long time) {
    directory.commit(surrogate, time);
  }

  @Override
  public long[] segment(int part, int entity) {
    return arrays[part][entity];
  }

  @Override
  public int length(int part, int entity) {
    return entity < lengths[part].length ? lengths[part][entity] : 0;
  }

  @Override
  public long[] room(int part, int entity, int minLength) {
    if (entity >= arrays[part].length) {
      arrays[part] = charge.grow(arrays[part], entity + 1);
      lengths[part] = charge.grow(lengths[part], entity + 1);
    }
    long[] own = arrays[part][entity];
    own = charge.grow(own == null ? new long[0] : own, minLength); // a refused append's array is kept
    arrays[part][entity] = own;
    return own;
  }

  @Override
  public void store(int part, int entity, long[] array, int length) {
    arrays[part][entity] = array;
    lengths[part][entity] = length;
  }

  @Override
  public long chargedBytes() {
    return charge.charged();
  }

  @Override
  public void close() {
    charge.releaseAll();
  }
}
