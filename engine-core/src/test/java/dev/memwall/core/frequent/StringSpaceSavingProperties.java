package dev.memwall.core.frequent;

import static dev.memwall.core.frequent.Guarantees.checkFrequent;
import static dev.memwall.core.frequent.Guarantees.checkTopK;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.PropertyLeakCheck;
import dev.memwall.core.vector.DictionaryColumn;
import dev.memwall.core.vector.Table;
import dev.memwall.core.vector.TableBuilder;
import dev.memwall.core.vector.VarCharColumn;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Assume;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.DoubleRange;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.lifecycle.AddLifecycleHook;

/**
 * Strings counted by hash keep Space-Saving's guarantees and come back as the strings counted: fed
 * one by one, from a plain string column, from a dictionary-encoded one (with nulls skipped), and
 * merged; a dictionary-encoded column counted by code in a long summary and decoded at the end
 * answers as the strings do.
 */
@AddLifecycleHook(PropertyLeakCheck.class)
class StringSpaceSavingProperties {

  /** A Zipf stream of strings: the empty string, multi-byte ones, prefixes of one another, long ones. */
  private static String[] strings(int length, int distinct, double skew, long seed) {
    long[] ranks = Streams.zipf(length, distinct, skew, Streams.Keys.SMALL, seed);
    String[] values = new String[length];
    for (int i = 0; i < length; i++) {
      int r = (int) ranks[i];
      values[i] = switch (r % 4) {
        case 0 -> "x".repeat(r / 4);
        case 1 -> "ß€" + r;
        case 2 -> "key-" + r + "-".repeat(r % 13);
        default -> Long.toString(Long.MIN_VALUE + r);
      };
    }
    return values;
  }

  private static Map<String, Long> exact(String[] values) {
    Map<String, Long> counts = new HashMap<>();
    for (String value : values) {
      if (value != null) {
        counts.merge(value, 1L, Long::sum);
      }
    }
    return counts;
  }

  private static List<Guarantees.Reported<String>> resolved(StringSpaceSaving summary, List<FrequentItem> items) {
    return items.stream().map(i -> new Guarantees.Reported<>(summary.value(i.key()), i.count(), i.error(),
        i.guaranteed())).toList();
  }

  @Property(tries = 60)
  void stringsOneByOneAndMergedKeepTheBounds(@ForAll @IntRange(min = 0, max = 8000) int length,
      @ForAll @IntRange(min = 1, max = 2000) int distinct, @ForAll @DoubleRange(min = 0, max = 2) double skew,
      @ForAll @IntRange(min = 1, max = 200) int counters, @ForAll @IntRange(min = 0, max = 30) int k,
      @ForAll long seed, EngineMemory memory) {
    String[] values = strings(length, distinct, skew, seed);
    Map<String, Long> exact = exact(values);
    try (StringSpaceSaving whole = StringSpaceSaving.create(memory, counters);
        StringSpaceSaving first = StringSpaceSaving.create(memory, counters);
        StringSpaceSaving second = StringSpaceSaving.create(memory, counters)) {
      for (int i = 0; i < length; i++) {
        whole.offer(values[i]);
        (i < length / 3 ? first : second).offer(values[i]);
      }
      first.merge(second);
      for (StringSpaceSaving summary : List.of(whole, first)) {
        TopK top = summary.summary().topK(k);
        checkTopK(resolved(summary, top.items()), k, exact, length, counters);
        FrequentElements frequent = summary.summary().frequent(1.0 / counters);
        checkFrequent(resolved(summary, frequent.items()), 1.0 / counters, true, exact, length, counters);
      }
    }
  }

  @Property(tries = 40)
  void columnsPlainAndEncodedCountAsTheirStrings(@ForAll @IntRange(min = 0, max = 5000) int length,
      @ForAll @IntRange(min = 1, max = 300) int distinct, @ForAll @DoubleRange(min = 0.5, max = 2) double skew,
      @ForAll @IntRange(min = 1, max = 100) int counters, @ForAll long seed,
      @ForAll @DoubleRange(min = 0, max = 0.5) double nullShare, EngineMemory memory) {
    String[] values = strings(length, distinct, skew, seed);
    for (int i = 0; i < length; i++) {
      if ((i * 0.6180339887 % 1) < nullShare) {
        values[i] = null;
      }
    }
    Map<String, Long> exact = exact(values);
    long nonNull = exact.values().stream().mapToLong(Long::longValue).sum();
    for (boolean encoded : new boolean[] {false, true}) {
      try (TableBuilder builder = new TableBuilder(List.of("s"), List.of(dev.memwall.core.vector.ColumnType.STRING),
              new boolean[] {encoded}, memory.arrow());
          StringSpaceSaving summary = StringSpaceSaving.create(memory, counters)) {
        for (String value : values) {
          if (value == null) {
            builder.appendNull();
          } else {
            builder.appendString(value.getBytes(StandardCharsets.UTF_8));
          }
          builder.endRow();
        }
        try (Table table = builder.build()) {
          table.batches().forEach(batch -> summary.offerAll(batch.column(0)));
        }
        assertEquals(nonNull, summary.summary().streamLength(), "nulls are skipped");
        TopK top = summary.summary().topK(counters);
        top.items().forEach(item -> assertNotNull(summary.value(item.key())));
        checkTopK(resolved(summary, top.items()), counters, exact, nonNull, counters);
      }
    }
  }

  @Property(tries = 30)
  void codesCountedByTheLongSummaryAndDecodedAtTheEndAnswerAsTheStrings(
      @ForAll @IntRange(min = 500, max = 5000) int length, @ForAll @IntRange(min = 1, max = 200) int distinct,
      @ForAll @DoubleRange(min = 0, max = 2) double skew, @ForAll @IntRange(min = 1, max = 100) int counters,
      @ForAll @IntRange(min = 0, max = 30) int k, @ForAll long seed, EngineMemory memory) {
    String[] values = strings(length, distinct, skew, seed);
    for (int i = 0; i < length; i += 7) {
      values[i] = null;
    }
    Map<String, Long> exact = exact(values);
    long nonNull = exact.values().stream().mapToLong(Long::longValue).sum();
    try (TableBuilder builder = new TableBuilder(List.of("s"), List.of(dev.memwall.core.vector.ColumnType.STRING),
            new boolean[] {true}, memory.arrow()).batchRows(256);
        SpaceSaving codes = SpaceSaving.create(memory, counters);
        StringSpaceSaving strings = StringSpaceSaving.create(memory, counters)) {
      for (String value : values) {
        (value == null ? builder.appendNull() : builder.appendString(value.getBytes(StandardCharsets.UTF_8))).endRow();
      }
      try (Table table = builder.build()) {
        // the builder keeps a column encoded while its dictionary is small against the rows
        Assume.that(table.batches().getFirst().column(0) instanceof DictionaryColumn);
        VarCharColumn dictionary = null;
        for (var batch : table.batches()) {
          DictionaryColumn column = (DictionaryColumn) batch.column(0);
          if (dictionary == null) {
            dictionary = column.dictionary();
          }
          // one code space: every batch's dictionary holds the same entries (a view of the table's one)
          assertEquals(dictionary.length(), column.dictionary().length());
          for (int code = 0; code < dictionary.length(); code++) {
            assertEquals(dictionary.getString(code), column.dictionary().getString(code));
          }
          codes.offerAll(column); // by code: no string is read while counting
          strings.offerAll(column);
        }
        assertEquals(nonNull, codes.streamLength(), "nulls are skipped");
        // decoded at the end: a code's string is its dictionary entry
        VarCharColumn entries = dictionary;
        TopK byCode = codes.topK(k);
        List<Guarantees.Reported<String>> decoded = byCode.items().stream().map(i -> new Guarantees.Reported<>(
            entries.getString((int) i.key()), i.count(), i.error(), i.guaranteed())).toList();
        checkTopK(decoded, k, exact, nonNull, counters);
        // the same stream of keys in another key space: the same counts as the string summary's
        assertEquals(strings.summary().topK(k).items().stream().map(FrequentItem::count).toList(),
            byCode.items().stream().map(FrequentItem::count).toList());
      }
    }
  }
}
