package dev.memwall.core.testing;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import net.jqwik.api.lifecycle.AddLifecycleHook;

/**
 * A property whose every try takes seconds runs {@link #value} tries in the default build, and the
 * tries its {@code @Property} names only in a thorough run ({@code -Dmemwall.test.thorough=true},
 * see README.md), so that the whole suite stays within its time in CI while a thorough run still
 * draws as many cases as the property was written for. Each try draws new random inputs either way.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
@AddLifecycleHook(QuickTries.Hook.class)
public @interface QuickTries {
  /** The tries of the default build (at least 1). */
  int value();

  /** Sets the property's tries to the annotation's unless the run is thorough. */
  final class Hook implements net.jqwik.api.lifecycle.AroundPropertyHook {
    /** The system property that asks for every property's full tries. */
    public static final String THOROUGH = "memwall.test.thorough";

    @Override
    public net.jqwik.api.lifecycle.PropertyExecutionResult aroundProperty(
        net.jqwik.api.lifecycle.PropertyLifecycleContext context, net.jqwik.api.lifecycle.PropertyExecutor property) {
      if (!Boolean.getBoolean(THOROUGH)) {
        context.findAnnotation(QuickTries.class).ifPresent(quick -> context.attributes().setTries(quick.value()));
      }
      return property.execute();
    }
  }
}
