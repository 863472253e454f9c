package dev.memwall.core.machine;

/**
 * One CPU cache as the operating system describes it.
 *
 * @param level 1, 2, 3...
 * @param type "Data", "Instruction" or "Unified"
 * @param sizeBytes capacity
 * @param lineBytes coherency line size
 * @param ways associativity (0 when unknown)
 */
public record CacheLevel(int level, String type, long sizeBytes, int lineBytes, int ways) {
  /** Whether the cache holds data (a data or unified cache). */
  public boolean holdsData() {
    return !type.equalsIgnoreCase("Instruction");
  }
}
