package dev.memwall.core.expr;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.regex.Pattern;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

/** LIKE and string comparisons against java.util.regex and String.compareTo as references. */
class StringPredicateProperties {

  @Property(tries = 2000)
  void likeAgreesWithRegex(@ForAll("patterns") String pattern, @ForAll("strings") String value) {
    assertEquals(regexLike(pattern, value), test(StringPredicate.like(pattern), value),
        () -> "'" + value + "' LIKE '" + pattern + "'");
  }

  @Property(tries = 1000)
  void orderingAgreesWithCodePointOrder(@ForAll("strings") String a, @ForAll("strings") String b) {
    int expected = Integer.signum(compareCodePoints(a, b));
    assertEquals(expected < 0, test(StringPredicate.compareTo(b, cmp -> cmp < 0), a));
    assertEquals(expected == 0, test(StringPredicate.equalTo(b), a));
    assertEquals(expected > 0, test(StringPredicate.compareTo(b, cmp -> cmp > 0), a));
  }

  /**
   * Long strings exercise the eight-bytes-at-a-time search of {@code %}-only patterns: pieces
   * straddling word boundaries, candidates flagged next to a real match, bytes 0x00 and 0x01 that
   * a zero-byte test can confuse, and matches in the last, partial word.
   */
  @Property(tries = 3000)
  void percentOnlyLikeOnLongStringsAgreesWithRegex(@ForAll("percentPatterns") String pattern,
      @ForAll("longStrings") String value) {
    assertEquals(regexLike(pattern, value), test(StringPredicate.like(pattern), value),
        () -> "'" + value + "' LIKE '" + pattern + "'");
  }

  @Provide
  Arbitrary<String> percentPatterns() {
    return Arbitraries.strings().withChars('a', 'b', '\u0001', '\u0000', '%').ofMaxLength(7);
  }

  @Provide
  Arbitrary<String> longStrings() {
    return Arbitraries.strings().withChars('a', 'b', 'c', '\u0001', '\u0000', 'é').ofMinLength(0).ofMaxLength(80);
  }

  @Test
  void likeEdgeCases() {
    assertEquals(true, test(StringPredicate.like("%"), ""));
    assertEquals(false, test(StringPredicate.like("_"), ""));
    assertEquals(true, test(StringPredicate.like("_"), "ü"));
    assertEquals(true, test(StringPredicate.like("PROMO%"), "PROMO BRUSHED TIN"));
    assertEquals(false, test(StringPredicate.like("PROMO%"), "PROM"));
    assertEquals(true, test(StringPredicate.like("%special%requests%"), "a special deal; requests"));
    assertEquals(false, test(StringPredicate.like("%special%requests%"), "requests special"));
  }

  @Provide
  Arbitrary<String> patterns() {
    return Arbitraries.strings().withChars('a', 'b', '%', '_', 'é').ofMaxLength(6);
  }

  @Provide
  Arbitrary<String> strings() {
    // '%' stands in for a 4-byte UTF-8 character (an emoji) so strings mix 1, 2 and 4 byte characters.
    return Arbitraries.strings().withChars('a', 'b', 'é', '%').ofMaxLength(8)
        .map(s -> s.replace("%", "\uD83D\uDE00"));
  }

  private static boolean test(StringPredicate predicate, String value) {
    byte[] utf8 = value.getBytes(StandardCharsets.UTF_8);
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment segment = arena.allocate(utf8.length + 3);
      MemorySegment.copy(utf8, 0, segment, ValueLayout.JAVA_BYTE, 3, utf8.length);
      return predicate.test(segment, 3, utf8.length);
    }
  }

  private static boolean regexLike(String pattern, String value) {
    StringBuilder regex = new StringBuilder();
    pattern.codePoints().forEach(cp -> {
      switch (cp) {
        case '%' -> regex.append(".*");
        case '_' -> regex.append(".");
        default -> regex.append(Pattern.quote(Character.toString(cp)));
      }
    });
    return Pattern.compile(regex.toString(), Pattern.DOTALL).matcher(value).matches();
  }

  private static int compareCodePoints(String a, String b) {
    int[] x = a.codePoints().toArray();
    int[] y = b.codePoints().toArray();
    return java.util.Arrays.compare(x, y);
  }
}
