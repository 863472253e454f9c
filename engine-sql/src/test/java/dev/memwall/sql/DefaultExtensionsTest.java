package dev.memwall.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.substrait.extension.SimpleExtension;
import org.junit.jupiter.api.Test;

/**
 * {@link DefaultExtensions} reads the same collection as Substrait's {@link
 * SimpleExtension#loadDefaults}: every function variant (with its URI, arguments and return type),
 * aggregate, window function and type, in the same order.
 */
class DefaultExtensionsTest {
  @Test
  void theSameCollectionAsSubstraitsOwnLoading() {
    SimpleExtension.ExtensionCollection ours = DefaultExtensions.load();
    SimpleExtension.ExtensionCollection substraits = SimpleExtension.loadDefaults();
    assertFalse(ours.scalarFunctions().isEmpty(), "functions were read");
    assertEquals(substraits.scalarFunctions(), ours.scalarFunctions());
    assertEquals(substraits.aggregateFunctions(), ours.aggregateFunctions());
    assertEquals(substraits.windowFunctions(), ours.windowFunctions());
    assertEquals(substraits.types(), ours.types());
    assertEquals(substraits, ours);
  }
}
