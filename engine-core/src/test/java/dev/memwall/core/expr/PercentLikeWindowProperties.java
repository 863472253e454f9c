package dev.memwall.core.expr;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.vector.Batch;
import dev.memwall.core.vector.StringVectors;
import dev.memwall.core.vector.VarCharColumn;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.Test;

/**
 * A {@code %}-only LIKE over a chunk of a string column, which scans a heap copy of the selected
 * strings at once ({@link StringWindow}, {@link PercentLike#test(StringWindow)}), against
 * java.util.regex string by string: pieces that straddle two strings, occurrences in the gaps of
 * a sparse selection, empty and null strings, bytes a zero-byte test confuses, multi-byte
 * characters; under {@code LIKE} and {@code NOT LIKE}.
 */
class PercentLikeWindowProperties {

  @Property(tries = 1500)
  void chunkFilterAgreesWithRegex(@ForAll("columns") List<String> values, @ForAll("piecePatterns") String pattern,
      @ForAll @IntRange(min = 1, max = 4) int keepEvery, @ForAll @IntRange(min = 0, max = 3) int phase,
      @ForAll boolean negated) {
    try (BufferAllocator allocator = new RootAllocator();
        VectorSchemaRoot root = column(allocator, values)) {
      Batch batch = new Batch(root, null);
      Chunk chunk = chunk(batch, values.size(), keepEvery, phase);
      List<Integer> expected = new ArrayList<>();
      for (int i = 0; i < chunk.selected(); i++) {
        String value = values.get(chunk.position(i));
        if (value != null && regexLike(pattern, value) != negated) {
          expected.add(chunk.position(i));
        }
      }
      FilterKernel kernel = new FilterKernels.StringMatch(0, StringPredicate.like(pattern));
      if (negated) {
        kernel.filterFalse(chunk);
      } else {
        kernel.filter(chunk);
      }
      List<Integer> actual = new ArrayList<>();
      for (int i = 0; i < chunk.selected(); i++) {
        actual.add(chunk.position(i));
      }
      assertEquals(expected, actual, () -> "'" + pattern + "' over " + values);
    }
  }

  /** A dense chunk always takes the window, so the property above checks the scan and not only the fallback. */
  @Property(tries = 300)
  void denseChunkIsScannedAsOneWindow(@ForAll("columns") List<String> values, @ForAll("piecePatterns") String pattern) {
    try (BufferAllocator allocator = new RootAllocator();
        VectorSchemaRoot root = column(allocator, values)) {
      Chunk chunk = new Chunk();
      chunk.reset(new Batch(root, null), 0, values.size());
      StringWindow window = new StringWindow();
      assertTrue(window.load(chunk, VarCharColumn.of(root.getVector(0))));
      PercentLike like = (PercentLike) StringPredicate.like(pattern);
      assertTrue(like.searchesWindows());
      like.test(window);
      for (int i = 0; i < values.size(); i++) {
        String value = values.get(i);
        boolean expected = regexLike(pattern, value == null ? "" : value); // a null row's bytes are empty here
        assertEquals(expected, window.holds()[i], "row " + i + " '" + value + "' LIKE '" + pattern + "'");
      }
    }
  }

  @Test
  void sparseOrOversizedWindowsAreDeclined() {
    List<String> values = new ArrayList<>();
    for (int i = 0; i < 1000; i++) {
      values.add("x".repeat(100));
    }
    try (BufferAllocator allocator = new RootAllocator();
        VectorSchemaRoot root = column(allocator, values)) {
      Batch batch = new Batch(root, null);
      VarCharColumn column = VarCharColumn.of(root.getVector(0));
      Chunk sparse = new Chunk();
      sparse.reset(batch, 0, 1000);
      sparse.select(new int[] {0, 999}, 2);
      assertFalse(new StringWindow().load(sparse, column), "two strings 99,900 bytes apart");
    }
    List<String> huge = List.of("a".repeat(StringWindow.MAX_BYTES / 2), "b".repeat(StringWindow.MAX_BYTES / 2 + 1));
    try (BufferAllocator allocator = new RootAllocator();
        VectorSchemaRoot root = column(allocator, huge)) {
      Chunk chunk = new Chunk();
      chunk.reset(new Batch(root, null), 0, 2);
      assertFalse(new StringWindow().load(chunk, VarCharColumn.of(root.getVector(0))));
      FilterKernel kernel = new FilterKernels.StringMatch(0, StringPredicate.like("%ab%"));
      kernel.filter(chunk);
      assertEquals(0, chunk.selected(), "the string-by-string path still answers");
    }
  }

  @Test
  void pieceAcrossTwoStringsMatchesNeither() {
    List<String> values = List.of("xxspec", "ialxx", "special", "");
    try (BufferAllocator allocator = new RootAllocator();
        VectorSchemaRoot root = column(allocator, values)) {
      Chunk chunk = new Chunk();
      chunk.reset(new Batch(root, null), 0, values.size());
      new FilterKernels.StringMatch(0, StringPredicate.like("%special%")).filter(chunk);
      assertEquals(1, chunk.selected());
      assertEquals(2, chunk.position(0));
    }
  }

  @Provide
  Arbitrary<List<String>> columns() {
    Arbitrary<String> value = Arbitraries.strings().withChars('a', 'b', 'c', '\u0000', '\u0001', 'é', '%')
        .ofMaxLength(24).map(s -> s.replace("%", "\uD83D\uDE00"));
    return value.injectNull(0.1).list().ofMinSize(1).ofMaxSize(Chunk.CAPACITY / 4);
  }

  /** Patterns that only look for pieces: {@code %}, then one to three pieces each followed by {@code %}. */
  @Provide
  Arbitrary<String> piecePatterns() {
    Arbitrary<String> piece = Arbitraries.strings().withChars('a', 'b', '\u0000', '\u0001', 'é').ofMinLength(1)
        .ofMaxLength(4);
    return piece.list().ofMinSize(1).ofMaxSize(3).map(pieces -> "%" + String.join("%", pieces) + "%");
  }

  /** A chunk over all rows, every {@code keepEvery}-th from {@code phase} selected (all of them when 1). */
  private static Chunk chunk(Batch batch, int rows, int keepEvery, int phase) {
    Chunk chunk = new Chunk();
    chunk.reset(batch, 0, rows);
    if (keepEvery > 1) {
      int[] kept = new int[rows];
      int n = 0;
      for (int k = phase % keepEvery; k < rows; k += keepEvery) {
        kept[n++] = k;
      }
      chunk.select(kept, n);
    }
    return chunk;
  }

  private static VectorSchemaRoot column(BufferAllocator allocator, List<String> values) {
    VectorSchemaRoot root = VectorSchemaRoot.of(StringVectors.of("s", values, allocator));
    root.setRowCount(values.size());
    return root;
  }

  private static boolean regexLike(String pattern, String value) {
    StringBuilder regex = new StringBuilder();
    pattern.codePoints().forEach(cp -> regex.append(cp == '%' ? ".*" : Pattern.quote(Character.toString(cp))));
    return Pattern.compile(regex.toString(), Pattern.DOTALL).matcher(value).matches();
  }
}
