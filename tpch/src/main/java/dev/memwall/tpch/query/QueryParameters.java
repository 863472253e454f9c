package dev.memwall.tpch.query;

import java.math.BigDecimal;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The substitution parameters of one TPC-H query (specification section 2.4), by the names the
 * specification gives them ({@code DATE}, {@code DELTA}, {@code REGION}, ...). Values are typed:
 * {@link LocalDate}, {@link Integer}, {@link BigDecimal}, {@link String}, or a {@link List} of
 * integers or strings.
 *
 * <p>{@link #substitute} fills a SQL template's {@code {NAME}} placeholders: a string is inserted
 * as is (the template supplies its quotes, so it can also sit inside a LIKE pattern), a date as
 * {@code yyyy-mm-dd}, a number in plain notation, and a list as comma-separated SQL literals
 * (strings quoted).
 *
 * <p>Immutable and thread-safe; serializable, so that an engine in another process can be sent them.
 * Bad input: asking for a name the query does not have, or with the wrong type, or a template naming
 * an unknown parameter, throws {@link IllegalArgumentException}.
 */
public final class QueryParameters implements java.io.Serializable {
  private static final long serialVersionUID = 1L;

  private static final Pattern PLACEHOLDER = Pattern.compile("\\{([A-Z][A-Z0-9_]*)}");

  private final int query;
  private final Map<String, Object> values;

  QueryParameters(int query, Map<String, Object> values) {
    this.query = query;
    this.values = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(values));
  }

  /** The query these parameters belong to, 1 to 22. */
  public int query() {
    return query;
  }

  /** The parameters by name, in the specification's order. */
  public Map<String, Object> values() {
    return values;
  }

  /** The date parameter {@code name}. */
  public LocalDate date(String name) {
    return get(name, LocalDate.class);
  }

  /** The integer parameter {@code name}. */
  public int integer(String name) {
    return get(name, Integer.class);
  }

  /** The decimal parameter {@code name}. */
  public BigDecimal decimal(String name) {
    return get(name, BigDecimal.class);
  }

  /** The text parameter {@code name}. */
  public String text(String name) {
    return get(name, String.class);
  }

  /** The list parameter {@code name}, whose elements are of {@code type}. */
  public <T> List<T> list(String name, Class<T> type) {
    List<?> list = get(name, List.class);
    List<T> typed = new ArrayList<>();
    for (Object element : list) {
      typed.add(type.cast(element));
    }
    return List.copyOf(typed);
  }

  private <T> T get(String name, Class<T> type) {
    Object value = values.get(name);
    if (value == null) {
      throw new IllegalArgumentException("TPC-H Q" + query + " has no parameter " + name + " (it has " + values.keySet() + ")");
    }
    if (!type.isInstance(value)) {
      throw new IllegalArgumentException("TPC-H Q" + query + " parameter " + name + " is a "
          + value.getClass().getSimpleName() + ", not a " + type.getSimpleName());
    }
    return type.cast(value);
  }

  /** {@code template} with every {@code {NAME}} replaced by this query's parameter of that name. */
  public String substitute(String template) {
    Matcher matcher = PLACEHOLDER.matcher(template);
    StringBuilder sql = new StringBuilder();
    while (matcher.find()) {
      String name = matcher.group(1);
      if (!values.containsKey(name)) {
        throw new IllegalArgumentException("the SQL of TPC-H Q" + query + " names an unknown parameter {" + name + "}");
      }
      matcher.appendReplacement(sql, Matcher.quoteReplacement(render(values.get(name))));
    }
    matcher.appendTail(sql);
    return sql.toString();
  }

  private static String render(Object value) {
    return switch (value) {
      case BigDecimal decimal -> decimal.toPlainString();
      case List<?> list -> String.join(", ", list.stream().map(QueryParameters::literal).toList());
      default -> value.toString();
    };
  }

  private static String literal(Object element) {
    return element instanceof String text ? "'" + text.replace("'", "''") + "'" : render(element);
  }

  @Override
  public String toString() {
    return "Q" + query + " " + values;
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof QueryParameters that && query == that.query && values.equals(that.values);
  }

  @Override
  public int hashCode() {
    return 31 * query + values.hashCode();
  }
}
