package dev.memwall.tpch.data;

import dev.memwall.core.vector.Batch;
import dev.memwall.core.vector.Column;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.Table;
import dev.memwall.core.vector.VarCharColumn;
import dev.memwall.tpch.data.TpchSchema.ColumnLayout;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.dictionary.Dictionary;
import org.apache.arrow.vector.types.pojo.DictionaryEncoding;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * Checks that a mapped data file of a TPC-H set is laid out as {@link TpchSchema} says for its table,
 * for what checksums cannot vouch for: a set written before memwall kept checksums, of which only
 * the structure is validated otherwise, so that a well-formed Arrow file of another table, another
 * program or with columns swapped ends in a named {@link CorruptDataSetException} instead of a wrong
 * answer ("verified" too, since DuckDB reads the same files).
 *
 * <ul>
 *   <li>{@link #checkSchema}: the columns in their order, each with its name, type (a decimal's scale
 *       included), nullability and dictionary encoding (code width), and every dictionary equal to
 *       the column's sorted domain (queries take code order for string order). Metadata only and the
 *       dictionaries, a few hundred strings: cheap enough for every file opened.
 *   <li>{@link KeyOrder}: the table's first key column in the order generation writes it, read
 *       across the table's files in part order: {@code r_regionkey}, {@code n_nationkey} from 0 and
 *       {@code p_partkey}, {@code s_suppkey}, {@code c_custkey} from 1, each one more than the row
 *       before; {@code o_orderkey} rising; {@code l_orderkey} and {@code ps_partkey} never falling.
 *       This catches key columns whose values were swapped under the right names, which the schema
 *       cannot show. One pass over one column of each file.
 * </ul>
 *
 * <p>Thread safety: {@link #checkSchema} is stateless; a {@link KeyOrder} is used by one thread.
 */
final class LayoutCheck {
  private LayoutCheck() {}

  /**
   * Checks the columns and dictionaries of {@code mapped}, the file {@code file} of {@code table}.
   *
   * @throws CorruptDataSetException naming the file, the table and the first column that differs
   */
  static void checkSchema(Path file, String table, Table mapped) throws CorruptDataSetException {
    List<ColumnLayout> columns = TpchSchema.columns(table);
    List<Field> expected = TpchSchema.schema(table).getFields();
    List<Field> fields = mapped.schema().getFields();
    for (int i = 0; i < Math.max(expected.size(), fields.size()); i++) {
      if (i >= fields.size()) {
        throw corrupt(file, table, "it has " + fields.size() + " columns, " + table + " has " + expected.size()
            + ": " + expected.get(i).getName() + " is missing");
      }
      if (i >= expected.size()) {
        throw corrupt(file, table, "it has " + fields.size() + " columns, " + table + " has " + expected.size()
            + ": column " + i + ", " + fields.get(i).getName() + ", is not " + table + "'s");
      }
      String problem = difference(fields.get(i), expected.get(i));
      if (problem != null) {
        throw corrupt(file, table, "column " + i + " is " + describe(fields.get(i)) + ", where " + table + " has "
            + describe(expected.get(i)) + " (" + problem + ")");
      }
    }
    for (int i = 0; i < columns.size(); i++) {
      if (columns.get(i).dictionaryEncoded()) {
        Dictionary dictionary = mapped.dictionaries().get(fields.get(i).getDictionary().getId());
        checkDictionary(file, table, columns.get(i), dictionary == null ? null : dictionary.getVector());
      }
    }
  }

  /** What differs between {@code field} and the {@code expected} one, or null. */
  private static String difference(Field field, Field expected) {
    if (!field.getName().equals(expected.getName())) {
      return "another name";
    }
    if (field.isNullable()) {
      return "nullable";
    }
    DictionaryEncoding encoding = field.getDictionary();
    if ((expected.getDictionary() != null) != (encoding != null)) {
      return encoding == null ? "not dictionary-encoded" : "dictionary-encoded";
    }
    if (encoding != null) {
      return encoding.getIndexType().equals(expected.getDictionary().getIndexType()) ? null : "codes of another width";
    }
    if (!field.getType().equals(expected.getType())) {
      return "another type";
    }
    return Objects.equals(scale(field), scale(expected)) ? null : "another decimal scale";
  }

  private static void checkDictionary(Path file, String table, ColumnLayout column, FieldVector vector)
      throws CorruptDataSetException {
    List<String> domain = column.dictionary();
    boolean same = vector != null && VarCharColumn.isStringVector(vector) && vector.getValueCount() == domain.size();
    Column values = same ? VarCharColumn.of(vector) : null;
    for (int code = 0; same && code < domain.size(); code++) {
      same = !values.isNull(code) && domain.get(code).equals(values.getObject(code));
    }
    if (!same) {
      throw corrupt(file, table, "the dictionary of " + column.name() + " is not its " + domain.size()
          + " values in sorted order");
    }
  }

  private static String scale(Field field) {
    return field.getMetadata().get(ColumnType.SCALE_METADATA_KEY);
  }

  private static String describe(Field field) {
    DictionaryEncoding encoding = field.getDictionary();
    String scale = scale(field);
    return field.getName() + " (" + (encoding != null ? "dictionary-encoded, " + encoding.getIndexType() + " codes"
        : field.getType() + (scale == null ? "" : ", scale " + scale)) + (field.isNullable() ? ", nullable" : "") + ")";
  }

  private static CorruptDataSetException corrupt(Path file, String table, String problem) {
    return new CorruptDataSetException(file, table, -1, problem, null);
  }

  /**
   * The order of one table's first key column, checked file by file in part order.
   *
   * <p>Thread safety: one thread at a time.
   */
  static final class KeyOrder {
    private enum Rule {
      /** Row i holds first + i. */
      DENSE,
      /** Each row's key is greater than the row's before. */
      RISING,
      /** Each row's key is at least the row's before. */
      NOT_FALLING
    }

    private final String table;
    private final String key;
    private final Rule rule;
    /** The key the next row must hold (DENSE) or at least hold (else), when {@link #known}. */
    private long next;
    private boolean known;

    KeyOrder(String table) {
      this.table = TpchSchema.checkName(table);
      this.key = TpchSchema.columns(table).getFirst().name();
      this.rule = switch (table) {
        case "lineitem", "partsupp" -> Rule.NOT_FALLING;
        case "orders" -> Rule.RISING;
        default -> Rule.DENSE;
      };
      this.next = table.equals("nation") || table.equals("region") ? 0 : 1;
      this.known = rule == Rule.DENSE;
    }

    /**
     * Checks the keys of {@code mapped}, the next file of the table (its schema already checked).
     *
     * @throws CorruptDataSetException naming the file, the table, the batch and the row out of order
     */
    void check(Path file, Table mapped) throws CorruptDataSetException {
      List<Batch> batches = mapped.batches();
      boolean dense = rule == Rule.DENSE;
      long step = rule == Rule.NOT_FALLING ? 0 : 1;
      for (int b = 0; b < batches.size(); b++) {
        Column keys = batches.get(b).column(0);
        if (keys.hasNulls()) {
          throw new CorruptDataSetException(file, table, b, "key column " + key + " of record batch " + b
              + " has nulls", null);
        }
        long expected = next;
        boolean have = known;
        for (int row = 0; row < keys.length(); row++) {
          long value = keys.getLong(row);
          if (have && (dense ? value != expected : value < expected)) {
            throw new CorruptDataSetException(file, table, b, "key column " + key + " is out of order: row " + row
                + " of record batch " + b + " holds " + value + ", " + expectation(expected), null);
          }
          expected = value + step;
          have = true;
        }
        next = expected;
        known = have;
      }
    }

    /** Forgets the last key, as after a file that could not be read: the next file is checked within itself. */
    void skip() {
      known = false;
    }

    private String expectation(long expected) {
      return switch (rule) {
        case DENSE -> "the row's number says " + expected;
        case RISING -> "keys rise: at least " + expected;
        case NOT_FALLING -> "keys never fall: at least " + expected;
      };
    }
  }
}
