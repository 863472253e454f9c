package dev.memwall.core.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * JUnit 5 extension every memwall test that touches off-heap memory uses
 * ({@code @ExtendWith(LeakCheck.class)}): it injects a fresh {@link EngineMemory} named after the
 * test, closes it after the test (failing it with {@link MemoryLeakException} on any Arrow or raw
 * leak) and fails the test if the process holds more live off-heap buffers afterwards than
 * before, which catches leaks from any other {@code EngineMemory} the test made.
 */
public final class LeakCheck implements BeforeEachCallback, AfterEachCallback, ParameterResolver {
  private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(LeakCheck.class);

  @Override
  public void beforeEach(ExtensionContext context) {
    context.getStore(NAMESPACE).put("liveBuffers", liveMemory());
  }

  @Override
  public void afterEach(ExtensionContext context) {
    EngineMemory memory = context.getStore(NAMESPACE).remove("memory", EngineMemory.class);
    if (memory != null) {
      memory.close();
    }
    long before = context.getStore(NAMESPACE).remove("liveBuffers", Long.class);
    assertEquals(before, liveMemory(),
        "off-heap buffers still live after " + context.getDisplayName());
  }

  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    return parameter.getParameter().getType() == EngineMemory.class;
  }

  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    return context.getStore(NAMESPACE).getOrComputeIfAbsent("memory",
        key -> EngineMemory.create(context.getDisplayName()), EngineMemory.class);
  }

  /** Open buffers and recycled regions in the process: both must be back where they were after a test. */
  static long liveMemory() {
    return OffHeapBuffer.liveBuffers() + BufferRecycler.pooledRegionsInProcess();
  }
}
