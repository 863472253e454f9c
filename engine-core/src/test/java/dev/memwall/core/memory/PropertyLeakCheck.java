package dev.memwall.core.memory;

import java.util.List;
import java.util.Optional;
import net.jqwik.api.lifecycle.AroundTryHook;
import net.jqwik.api.lifecycle.LifecycleContext;
import net.jqwik.api.lifecycle.ParameterResolutionContext;
import net.jqwik.api.lifecycle.PropagationMode;
import net.jqwik.api.lifecycle.ResolveParameterHook;
import net.jqwik.api.lifecycle.TryExecutionResult;
import net.jqwik.api.lifecycle.TryExecutor;
import net.jqwik.api.lifecycle.TryLifecycleContext;

/**
 * {@link LeakCheck} for jqwik properties ({@code @AddLifecycleHook(PropertyLeakCheck.class)}):
 * every try gets a fresh {@link EngineMemory} for each {@code EngineMemory} parameter, which is
 * closed after the try; a {@link MemoryLeakException} from that close, or more live off-heap
 * buffers in the process after the try than before it, falsifies the try.
 */
public final class PropertyLeakCheck implements AroundTryHook, ResolveParameterHook {
  @Override
  public TryExecutionResult aroundTry(TryLifecycleContext context, TryExecutor aTry, List<Object> parameters) {
    long before = LeakCheck.liveMemory();
    TryExecutionResult result = aTry.execute(parameters);
    Throwable leak = null;
    for (Object parameter : parameters) {
      if (parameter instanceof EngineMemory memory) {
        try {
          memory.close();
        } catch (MemoryLeakException e) {
          leak = leak == null ? e : leak;
        }
      }
    }
    if (result.isFalsified() || result.isInvalid()) {
      return result;
    }
    if (leak != null) {
      return TryExecutionResult.falsified(leak);
    }
    long after = LeakCheck.liveMemory();
    if (after != before) {
      return TryExecutionResult.falsified(new AssertionError(
          "off-heap buffers still live after " + context.label() + ": " + before + " before, " + after + " after"));
    }
    return result;
  }

  @Override
  public PropagationMode propagateTo() {
    return PropagationMode.ALL_DESCENDANTS; // annotated on a class, applies to all its properties
  }

  @Override
  public int aroundTryProximity() {
    return -10; // outermost of the try hooks, so nothing allocates outside the check
  }

  @Override
  public Optional<ParameterSupplier> resolve(ParameterResolutionContext parameter, LifecycleContext context) {
    if (parameter.typeUsage().isOfType(EngineMemory.class)) {
      return Optional.of(tryContext -> EngineMemory.create(
          tryContext.map(LifecycleContext::label).orElse(context.label())));
    }
    return Optional.empty();
  }
}
