package dev.memwall.sql;

import io.substrait.extension.SimpleExtension;
import io.substrait.isthmus.FeatureBoard;
import io.substrait.isthmus.ImmutableFeatureBoard;
import io.substrait.isthmus.OuterReferenceResolver;
import io.substrait.isthmus.SubstraitRelVisitor;
import io.substrait.isthmus.TypeConverter;
import io.substrait.isthmus.expression.AggregateFunctionConverter;
import io.substrait.isthmus.expression.ScalarFunctionConverter;
import io.substrait.isthmus.expression.WindowFunctionConverter;
import io.substrait.plan.Plan;
import java.util.Map;
import org.apache.calcite.rel.RelRoot;
import org.apache.calcite.rex.RexFieldAccess;

/**
 * A validated Calcite query as a Substrait plan root, as Isthmus' {@code
 * SubstraitRelVisitor.convert} makes it, but over function converters built once: Isthmus builds
 * its scalar, aggregate and window converters (maps over every function of Substrait's default
 * extensions) for each call.
 *
 * <p>Thread safety: the converters are only read after construction (their maps are filled in their
 * constructors), so calls may run concurrently; each call has its own visitor, which keeps the
 * statement's outer references.
 */
final class RelToSubstrait extends SubstraitRelVisitor {
  private static final SimpleExtension.ExtensionCollection EXTENSIONS = DefaultExtensions.load();
  private static final FeatureBoard FEATURES = ImmutableFeatureBoard.builder().build();
  private static final ScalarFunctionConverter SCALAR =
      new ScalarFunctionConverter(EXTENSIONS.scalarFunctions(), SqlCatalog.TYPE_FACTORY);
  private static final AggregateFunctionConverter AGGREGATE =
      new AggregateFunctionConverter(EXTENSIONS.aggregateFunctions(), SqlCatalog.TYPE_FACTORY);
  private static final WindowFunctionConverter WINDOW =
      new WindowFunctionConverter(EXTENSIONS.windowFunctions(), SqlCatalog.TYPE_FACTORY);

  /** How many relations out each outer reference of the statement reaches (Isthmus' resolver). */
  private final Map<RexFieldAccess, Integer> depths;

  private RelToSubstrait(Map<RexFieldAccess, Integer> depths) {
    super(SqlCatalog.TYPE_FACTORY, SCALAR, AGGREGATE, WINDOW, TypeConverter.DEFAULT, FEATURES);
    this.depths = depths;
  }

  /** {@code root} (its validated row type's names as the output's) as a Substrait root. */
  static Plan.Root convert(RelRoot root) {
    OuterReferenceResolver resolver = new OuterReferenceResolver();
    resolver.apply(root.rel);
    RelToSubstrait visitor = new RelToSubstrait(resolver.getFieldAccessDepthMap());
    return Plan.Root.builder()
        .input(visitor.apply(root.project()))
        .names(TypeConverter.DEFAULT.toNamedStruct(root.validatedRowType).names())
        .build();
  }

  @Override
  public Integer getFieldAccessDepth(RexFieldAccess fieldAccess) {
    return depths.get(fieldAccess);
  }
}
