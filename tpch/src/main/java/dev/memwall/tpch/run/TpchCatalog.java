package dev.memwall.tpch.run;

import dev.memwall.substrait.Catalog;
import dev.memwall.tpch.data.TpchDatabase;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;

/**
 * The catalog SQL text over TPC-H is planned against: the database's eight tables with the primary
 * and foreign keys the TPC-H specification declares for them (clause 1.4.2), which the data
 * generator guarantees and the optimizer relies on (see {@link Catalog#declareKey} and {@link
 * Catalog#declareForeignKey}).
 *
 * <p>Ownership: the tables stay the database's; the catalog must not outlive it. Thread safety: a
 * new catalog per call, for one thread until it is no longer changed.
 */
public final class TpchCatalog {
  /** Each table's primary key columns. */
  public static final Map<String, List<String>> PRIMARY_KEYS = Map.of(
      "region", List.of("r_regionkey"),
      "nation", List.of("n_nationkey"),
      "part", List.of("p_partkey"),
      "supplier", List.of("s_suppkey"),
      "partsupp", List.of("ps_partkey", "ps_suppkey"),
      "customer", List.of("c_custkey"),
      "orders", List.of("o_orderkey"),
      "lineitem", List.of("l_orderkey", "l_linenumber"));

  /**
   * The foreign keys of the specification (clause 1.4.2), each as the referencing table, its
   * columns, the referenced table and its primary key.
   */
  public static final List<ForeignKeyDeclaration> FOREIGN_KEYS = List.of(
      new ForeignKeyDeclaration("supplier", List.of("s_nationkey"), "nation", List.of("n_nationkey")),
      new ForeignKeyDeclaration("partsupp", List.of("ps_partkey"), "part", List.of("p_partkey")),
      new ForeignKeyDeclaration("partsupp", List.of("ps_suppkey"), "supplier", List.of("s_suppkey")),
      new ForeignKeyDeclaration("customer", List.of("c_nationkey"), "nation", List.of("n_nationkey")),
      new ForeignKeyDeclaration("orders", List.of("o_custkey"), "customer", List.of("c_custkey")),
      new ForeignKeyDeclaration("lineitem", List.of("l_orderkey"), "orders", List.of("o_orderkey")),
      new ForeignKeyDeclaration("lineitem", List.of("l_partkey"), "part", List.of("p_partkey")),
      new ForeignKeyDeclaration("lineitem", List.of("l_suppkey"), "supplier", List.of("s_suppkey")),
      new ForeignKeyDeclaration("lineitem", List.of("l_partkey", "l_suppkey"), "partsupp",
          List.of("ps_partkey", "ps_suppkey")),
      new ForeignKeyDeclaration("nation", List.of("n_regionkey"), "region", List.of("r_regionkey")));

  /** A foreign key of {@link #FOREIGN_KEYS}, as {@link Catalog#declareForeignKey} takes it. */
  public record ForeignKeyDeclaration(String table, List<String> columns, String referenced,
      List<String> referencedColumns) {}

  private TpchCatalog() {}

  /**
   * A catalog of {@code database}'s tables with their primary keys declared, and the statistics its
   * data set's sidecar keeps where it has them (collected on first use where it does not).
   *
   * @throws UncheckedIOException if the data set's directory cannot be listed
   */
  public static Catalog of(TpchDatabase database) {
    Catalog catalog;
    try {
      catalog = Catalog.ofDataSet(database.tables(), database.directory());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot list the data set " + database.directory(), e);
    }
    PRIMARY_KEYS.forEach(catalog::declareKey);
    FOREIGN_KEYS.forEach(key -> catalog.declareForeignKey(key.table(), key.columns(), key.referenced(),
        key.referencedColumns()));
    return catalog;
  }
}
