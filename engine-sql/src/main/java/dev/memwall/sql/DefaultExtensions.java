package dev.memwall.sql;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.InjectableValues;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.deser.std.StdDeserializer;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.datatype.jdk8.Jdk8Module;
import io.substrait.extension.SimpleExtension;
import io.substrait.function.ParameterizedType;
import io.substrait.function.TypeExpression;
import io.substrait.type.Deserializers;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Substrait's default function extensions, the collection {@link SimpleExtension#loadDefaults} reads
 * from the YAML files in Substrait's jar, read with one Jackson mapper rather than one per file.
 *
 * <p>Why: the loading is most of the SQL path's first statement in a process, and two of its costs
 * repeat work. {@code loadDefaults} configures a new {@link ObjectMapper} for each of its eleven
 * files (to inject the file's URI into what it reads), and a new mapper introspects every class of
 * the extension model again. And every type in a signature ({@code i64}, {@code decimal<P1,S1>}) is
 * parsed by Substrait's ANTLR grammar wherever it occurs, though a file has a few dozen distinct
 * ones among its thousands. Here the mapper is configured as Substrait configures its own (YAML,
 * single values accepted as arrays, {@code Optional}s, Substrait's type deserializers), each file is
 * read by a reader of that one mapper that injects the file's URI, and Substrait's type
 * deserializers are asked once per distinct type text of a file ({@link ParsedOnce}): the parsed
 * types are immutable values, so one instance may stand for every occurrence. Each file's
 * collection is then built and merged in Substrait's order by Substrait's own code; {@code
 * DefaultExtensionsTest} checks the result equals {@code loadDefaults}'s, which also catches a
 * Substrait upgrade that changes the list of files.
 *
 * <p>Thread safety: {@link #load} has no state; the collection it returns is immutable.
 */
final class DefaultExtensions {
  /** The files {@link SimpleExtension#loadDefaults} reads, in its order: {@code /functions_<name>.yaml}. */
  private static final List<String> NAMES = List.of("boolean", "aggregate_generic", "aggregate_approx", "arithmetic_decimal",
      "arithmetic", "comparison", "datetime", "logarithmic", "rounding", "rounding_decimal", "string");

  private DefaultExtensions() {}

  /**
   * Substrait's default extensions, equal to {@link SimpleExtension#loadDefaults()}'s.
   *
   * @throws UncheckedIOException when a file is missing from Substrait's jar or does not read
   */
  static SimpleExtension.ExtensionCollection load() {
    Map<String, Object> parsed = new HashMap<>();
    ObjectMapper mapper = new ObjectMapper(new YAMLFactory())
        .enable(DeserializationFeature.ACCEPT_SINGLE_VALUE_AS_ARRAY)
        .registerModule(new Jdk8Module())
        .registerModule(new SimpleModule("memwall-parsed-once")
            .addDeserializer(ParameterizedType.class, new ParsedOnce<>(Deserializers.PARAMETERIZED_TYPE, parsed))
            .addDeserializer(TypeExpression.class, new ParsedOnce<>(Deserializers.DERIVATION_EXPRESSION, parsed)));
    ObjectReader signatures = mapper.readerFor(SimpleExtension.ExtensionSignatures.class);
    SimpleExtension.ExtensionCollection all = null;
    for (String name : NAMES) {
      String uri = "/functions_" + name + ".yaml";
      try (InputStream in = SimpleExtension.class.getResourceAsStream(uri)) {
        if (in == null) {
          throw new IOException("not in Substrait's jar");
        }
        SimpleExtension.ExtensionSignatures read =
            signatures.with(new InjectableValues.Std().addValue("uri", uri)).readValue(in);
        SimpleExtension.ExtensionCollection one = SimpleExtension.buildExtensionCollection(uri, read);
        all = all == null ? one : all.merge(one);
      } catch (IOException e) {
        throw new UncheckedIOException("Substrait's default extension " + uri + ": " + e.getMessage(), e);
      }
    }
    return all;
  }

  /**
   * Substrait's deserializer of a type text, asked once per text and file: what it returned for the
   * same text in the same file (the injected URI, which the parse resolves names against) is
   * returned again.
   */
  private static final class ParsedOnce<T> extends StdDeserializer<T> {
    private final StdDeserializer<T> substraits;
    private final Map<String, Object> parsed;

    ParsedOnce(StdDeserializer<T> substraits, Map<String, Object> parsed) {
      super(substraits.handledType());
      this.substraits = substraits;
      this.parsed = parsed;
    }

    @Override
    public T deserialize(JsonParser parser, DeserializationContext context) throws IOException {
      String key = handledType().getName() + '\0' + context.findInjectableValue("uri", null, null) + '\0'
          + parser.getValueAsString();
      @SuppressWarnings("unchecked")
      T type = (T) parsed.get(key);
      if (type == null) {
        type = substraits.deserialize(parser, context);
        parsed.put(key, type);
      }
      return type;
    }
  }
}
