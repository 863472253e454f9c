package dev.memwall.spark;

import dev.memwall.core.operator.SortKey;
import dev.memwall.core.plan.Plan;
import dev.memwall.core.vector.BatchStream;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.NullsFirst$;
import org.apache.spark.sql.catalyst.expressions.SortOrder;
import org.apache.spark.sql.types.DataType;

/**
 * A Spark ordering of rows as memwall sorts them: the rows' columns read into memwall's batches
 * ({@link RowBatches}) and memwall's sort keys over them. memwall orders as Spark does: nulls first or
 * last as each {@link SortOrder} says, in either direction; doubles with NaN above every number and equal to
 * itself, -0.0 tied with 0.0; strings by their unsigned UTF-8 bytes; decimals by value (one scale per
 * column); booleans false before true.
 *
 * <p>A key may be a column or Spark's normalization of a double column ({@code NormalizeFloatingNumbers}, in
 * the sorts of a join on doubles), which orders as the column does. Refused, with the reason: another key
 * (an expression Spark computes), and
 * an input column of a type memwall does not hold ({@link RowBatches#columnType}), since every column travels
 * through memwall's sort. Thread safety: immutable.
 *
 * @param types Spark's type of each input column
 * @param keys memwall's keys, over the columns {@link RowBatches} names
 */
record SortSpec(DataType[] types, List<SortKey> keys) {
  /** A translation, or why there is none. */
  record Result(SortSpec spec, String reason) {}

  /**
   * Translates {@code order} over rows of {@code input}.
   *
   * @param input the attributes of the rows (the sort's child's output)
   * @param order Spark's ordering
   */
  static Result of(List<Attribute> input, List<SortOrder> order) {
    DataType[] types = new DataType[input.size()];
    for (int i = 0; i < types.length; i++) {
      types[i] = input.get(i).dataType();
      if (RowBatches.columnType(types[i]) == null) {
        return new Result(null, "the column " + input.get(i).name() + " is " + types[i].simpleString()
            + ", which memwall does not hold");
      }
    }
    List<SortKey> keys = new ArrayList<>();
    for (SortOrder key : order) {
      int position = -1;
      // Spark's normalization of a double key (-0.0 to 0.0, one NaN) orders as memwall orders the double itself
      if (FloatOrder.normalizedKey(key.child()) instanceof Attribute attribute) {
        for (int i = 0; i < input.size() && position < 0; i++) {
          position = input.get(i).exprId().equals(attribute.exprId()) ? i : -1;
        }
      }
      if (position < 0) {
        return new Result(null, "memwall sorts by columns, not by " + key.child().sql());
      }
      keys.add(new SortKey(RowBatches.name(position), !key.isAscending(), key.nullOrdering() == NullsFirst$.MODULE$));
    }
    if (keys.isEmpty()) {
      return new Result(null, "no sort keys");
    }
    return new Result(new SortSpec(types, List.copyOf(keys)), null);
  }

  /** The memwall plan sorting {@code input}'s rows, keeping the first {@code limit} (negative: all). */
  Plan plan(BatchStream input, long limit) {
    Plan sorted = Plan.scan(input).orderBy(keys.toArray(SortKey[]::new));
    return limit < 0 ? sorted : sorted.limit(limit);
  }

  /** One line for EXPLAIN: memwall's keys. */
  String describe() {
    return "keys " + keys.stream().map(k -> k.column() + (k.descending() ? " desc" : " asc")
        + (k.nullsFirst() ? " nulls first" : " nulls last")).toList();
  }
}
