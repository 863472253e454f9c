package dev.memwall.bench.report;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * How {@code ./memwall bench --report} charts a benchmark class, for classes whose names do not
 * follow the default conventions (see the package documentation). Read at report time from the
 * benchmarks jar; options on the command line ({@code --baseline}, {@code --x-axis}) win over it.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
public @interface ReportLayout {
  /**
   * The rows the others are compared with, as a {@link BaselineSelector}: a method name, a method
   * name with one {@code *} ({@code *HeapArray}), or {@code param=value}. Empty: the convention
   * (a method named {@code baseline}, or a parameter value {@code baseline}).
   */
  String baseline() default "";

  /** The numeric {@code @Param} on the x axis; empty: chosen automatically; {@code "-"}: none (bar charts). */
  String xAxis() default "";
}
