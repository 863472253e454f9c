package dev.memwall.core.frequent;

import java.util.Arrays;

/**
 * The counters in a standing answer ({@link StandingQuery}), as a dense list with each counter's
 * position, so that membership, entry and exit are constant time and reading the answer copies a
 * prefix of an array. The list's first part, the low segment, holds the members with the smallest
 * count: the paper's {@code Set_k} (Das, Agrawal and El Abbadi 2008, Algorithm 5), the only members
 * that can leave the answer next.
 *
 * <p>Bad input: the callers keep the contracts stated per method (a counter's membership as each
 * method expects); nothing is checked. Thread safety: none; the summary's one writer.
 */
final class MemberList {
  /** Members: the low segment at {@code [0, low)}, the others at {@code [low, size)}. */
  private final int[] order;
  /** Each counter's index in {@link #order}, or -1 for a counter not in the answer. */
  private final int[] position;
  private int size;
  private int low;

  MemberList(int counters) {
    order = new int[counters];
    position = new int[counters];
    Arrays.fill(position, -1);
  }

  /** The bytes the two arrays of a list for {@code counters} counters hold. */
  static long bytesFor(int counters) {
    return 2L * Integer.BYTES * counters;
  }

  boolean contains(int counter) {
    return position[counter] >= 0;
  }

  boolean inLow(int counter) {
    int p = position[counter];
    return p >= 0 && p < low;
  }

  int size() {
    return size;
  }

  int lowSize() {
    return low;
  }

  /** The {@code i}-th member; the low segment's are {@code 0 .. lowSize() - 1}. */
  int member(int i) {
    return order[i];
  }

  /** Adds {@code counter}, not a member, outside the low segment. */
  void add(int counter) {
    order[size] = counter;
    position[counter] = size++;
  }

  /** Moves member {@code counter} from outside the low segment into it. */
  void promote(int counter) {
    swap(position[counter], low++);
  }

  /** Moves member {@code counter} out of the low segment; it stays a member. */
  void demote(int counter) {
    swap(position[counter], --low);
  }

  /** Empties the low segment; its counters stay members. */
  void resetLow() {
    low = 0;
  }

  /** Takes member {@code counter} out of the answer. */
  void remove(int counter) {
    if (inLow(counter)) {
      demote(counter);
    }
    swap(position[counter], --size);
    position[counter] = -1;
  }

  /** Takes every counter of the low segment out of the answer, in time proportional to their number. */
  void removeLow() {
    int n = low;
    for (int i = 0; i < n; i++) {
      position[order[i]] = -1;
    }
    // the holes [0, n) take the entries from the end of [n, size)
    int hole = 0;
    for (int from = size - 1; from >= n && hole < n; from--, hole++) {
      order[hole] = order[from];
      position[order[hole]] = hole;
    }
    size -= n;
    low = 0;
  }

  /** Takes every counter out of the answer. */
  void clear() {
    for (int i = 0; i < size; i++) {
      position[order[i]] = -1;
    }
    size = 0;
    low = 0;
  }

  private void swap(int i, int j) {
    int a = order[i];
    int b = order[j];
    order[i] = b;
    order[j] = a;
    position[b] = i;
    position[a] = j;
  }
}
