package dev.memwall.core.plan;

import dev.memwall.core.frequent.FrequentItem;
import dev.memwall.core.frequent.SpaceSaving;
import dev.memwall.core.frequent.StringSpaceSaving;
import dev.memwall.core.frequent.SummarySizing;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.plan.Step.FrequentValues;
import dev.memwall.core.vector.Column;
import dev.memwall.core.vector.DictionaryColumn;
import dev.memwall.core.vector.TableBuilder;
import dev.memwall.core.vector.VarCharColumn;
import java.util.List;

/**
 * One Space-Saving summary of a {@link FrequentValues} step's values (of the whole input, or of one
 * group): over longs, or over strings by the hash of their bytes ({@link StringSpaceSaving}). A
 * dictionary column's rows are counted by code: the summary of a whole input hashes each dictionary's
 * entries once (8 bytes an entry, charged); a group's summary hashes the entry of each row instead,
 * so that a thousand groups do not each hold the dictionary's hashes.
 *
 * <p>Ownership: charged to the memory it was created from until {@link #close}. Thread safety: one
 * writer.
 */
final class ValueSummary implements AutoCloseable {
  private final SpaceSaving summary;
  private final StringSpaceSaving strings;
  private final boolean hashEntriesOnce;

  /**
   * A summary laid out as {@code sizing}, over strings when {@code strings}, keeping each
   * dictionary's entry hashes when {@code hashEntriesOnce}.
   *
   * @throws dev.memwall.core.memory.BudgetExceededException if the memory cannot hold it
   */
  ValueSummary(SummarySizing sizing, boolean strings, boolean hashEntriesOnce, EngineMemory memory) {
    this.hashEntriesOnce = hashEntriesOnce;
    this.strings = strings ? StringSpaceSaving.create(memory, sizing) : null;
    this.summary = strings ? this.strings.summary() : SpaceSaving.create(memory, sizing);
  }

  void offer(long value) {
    summary.offer(value);
  }

  /** Counts the non-null string at {@code row} of {@code column}, plain or dictionary-encoded. */
  void offerString(Column column, int row) {
    switch (column) {
      case DictionaryColumn codes -> {
        VarCharColumn dictionary = codes.dictionary();
        int code = codes.code(row);
        if (hashEntriesOnce) {
          strings.offerHashed(strings.entryHashes(dictionary)[code], dictionary.bytes(), dictionary.offset(code),
              dictionary.byteLength(code));
        } else {
          strings.offer(dictionary.bytes(), dictionary.offset(code), dictionary.byteLength(code));
        }
      }
      case VarCharColumn plain -> strings.offer(plain.bytes(), plain.offset(row), plain.byteLength(row));
      default -> throw new IllegalStateException(column.name() + " is " + column.type()
          + ", not strings"); // the binder typed it STRING
    }
  }

  /** Adds {@code other}'s values to this summary's; {@code other} is left as it was. */
  void merge(ValueSummary other) {
    if (strings != null) {
      strings.merge(other.strings);
    } else {
      summary.merge(other.summary);
    }
  }

  /** The step's answer from this summary: the top k, or the values above the support. */
  List<FrequentItem> items(FrequentValues step) {
    return step.topK() ? summary.topK(step.k()).items() : summary.frequent(step.phi()).items();
  }

  /** Appends the value counted under {@code key}: its string, or the long itself. */
  void appendValue(TableBuilder builder, long key) {
    if (strings != null) {
      builder.appendString(strings.utf8(key));
    } else {
      builder.appendLong(key);
    }
  }

  @Override
  public void close() {
    if (strings != null) {
      strings.close();
    } else {
      summary.close();
    }
  }
}
