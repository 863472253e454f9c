package dev.memwall.sql;

import io.substrait.extension.SimpleExtension;
import io.substrait.isthmus.FeatureBoard;
import io.substrait.isthmus.ImmutableFeatureBoard;
import io.substrait.isthmus.SubstraitRelVisitor;
import io.substrait.isthmus.SubstraitTypeSystem;
import io.substrait.isthmus.calcite.SubstraitOperatorTable;
import io.substrait.isthmus.sql.SubstraitSqlToCalcite;
import io.substrait.plan.Plan;
import java.util.List;
import org.apache.calcite.jdbc.JavaTypeFactoryImpl;
import org.apache.calcite.plan.RelOptCluster;
import org.apache.calcite.plan.hep.HepPlanner;
import org.apache.calcite.plan.hep.HepProgram;
import org.apache.calcite.prepare.Prepare;
import org.apache.calcite.rel.RelRoot;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlFunction;
import org.apache.calcite.sql.SqlFunctionCategory;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlOperatorTable;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;
import org.apache.calcite.sql.parser.SqlParseException;
import org.apache.calcite.sql.type.OperandTypes;
import org.apache.calcite.sql.type.ReturnTypes;
import org.apache.calcite.sql.util.SqlOperatorTables;
import org.apache.calcite.sql.validate.SqlValidator;
import org.apache.calcite.sql.validate.SqlValidatorImpl;

/**
 * SQL text to a Substrait plan as Isthmus' {@code SqlToSubstrait} does it (Calcite's parser with
 * lenient conformance, validation, conversion to relational algebra, Substrait), with a validator
 * whose operator table also knows the names other engines' SQL uses for standard functions:
 * {@code substr(s, start[, length])} (DuckDB, PostgreSQL, Oracle, BigQuery) is validated as
 * {@code substring(s from start [for length])}, so the plan carries Substrait's {@code substring}.
 *
 * <p>Words Calcite's grammar reserves (for example {@code value}) still need quoting as names: the
 * grammar is compiled into Calcite's parser, which Isthmus configures without a hook.
 *
 * <p>Thread safety: no state shared between calls; each call builds its validator and cluster.
 */
final class SqlFrontEnd {
  private static final SimpleExtension.ExtensionCollection EXTENSIONS = SimpleExtension.loadDefaults();
  private static final FeatureBoard FEATURES = ImmutableFeatureBoard.builder().build();

  /** {@code SUBSTR}: validated by being rewritten to the standard {@code SUBSTRING} call before anything else. */
  static final SqlFunction SUBSTR = new SqlFunction("SUBSTR", SqlKind.OTHER_FUNCTION, ReturnTypes.ARG0_NULLABLE_VARYING,
      null, OperandTypes.or(OperandTypes.STRING_INTEGER, OperandTypes.STRING_INTEGER_INTEGER),
      SqlFunctionCategory.STRING) {
    @Override
    public SqlNode rewriteCall(SqlValidator validator, SqlCall call) {
      return SqlStdOperatorTable.SUBSTRING.createCall(call.getParserPosition(), call.getOperandList());
    }
  };

  private static final SqlOperatorTable OPERATORS =
      SqlOperatorTables.chain(SubstraitOperatorTable.INSTANCE, SqlOperatorTables.of(SUBSTR));

  private SqlFrontEnd() {}

  /**
   * The plan of one statement.
   *
   * @throws SqlParseException when the text does not parse
   * @throws RuntimeException (Calcite's or Isthmus') when it does not validate or convert
   */
  static Plan plan(String sql, Prepare.CatalogReader catalogReader) throws SqlParseException {
    SqlValidator validator = new Validator(catalogReader);
    List<RelRoot> roots = SubstraitSqlToCalcite.convertQueries(sql, catalogReader, validator, cluster());
    var plan = Plan.builder().version(Plan.Version.builder().from(Plan.Version.DEFAULT_VERSION).producer("memwall").build());
    for (RelRoot root : roots) {
      plan.addRoots(SubstraitRelVisitor.convert(root, EXTENSIONS, FEATURES));
    }
    return plan.build();
  }

  private static RelOptCluster cluster() {
    RexBuilder rexBuilder = new RexBuilder(new JavaTypeFactoryImpl(SubstraitTypeSystem.TYPE_SYSTEM));
    return RelOptCluster.create(new HepPlanner(HepProgram.builder().build()), rexBuilder);
  }

  /** Isthmus' validator configuration over the widened operator table. */
  private static final class Validator extends SqlValidatorImpl {
    Validator(Prepare.CatalogReader catalogReader) {
      super(OPERATORS, catalogReader, catalogReader.getTypeFactory(), SqlValidator.Config.DEFAULT);
    }
  }
}
