package dev.memwall.spark;

/**
 * How one column of Spark's partial aggregation output (or of a final aggregation's merged buffers) is read from a row of memwall's aggregation
 * result (see {@link PartialAggregation}).
 *
 * @param kind what to take from the result column
 * @param column the result column
 */
record OutputSlot(Kind kind, int column) implements java.io.Serializable {
  /** What a slot takes from its result column. */
  enum Kind {
    /** The value, null when null (grouping keys, sums of non-decimals, min, max). */
    VALUE,
    /** The value, zero of the slot's type when null (decimal sums, the sum of an average). */
    VALUE_OR_ZERO,
    /** Whether the value is null (a decimal sum's "isEmpty"). */
    IS_NULL,
    /** A count, never null. */
    COUNT,
    /**
     * Spark's MIN of doubles, from the MIN with NaN read as +Infinity (this column) and the count of values
     * that are numbers (the next): null when the MIN is, NaN when no value is a number, else the MIN.
     */
    TOTAL_MIN,
    /**
     * Whether a merged group is empty, from the MIN of the partial groups' "isEmpty" flags read as 0 or 1
     * (this column): null (no partial group) or 1 (all empty) is true.
     */
    IS_EMPTY,
    /**
     * A merged sum that is null when any partial sum was null (Spark's mark of a decimal overflow): the SUM
     * (this column, zero of the slot's type when null), the count of non-null partial sums and the count of
     * partial rows (the next two).
     */
    SUM_UNLESS_NULL
  }
}
