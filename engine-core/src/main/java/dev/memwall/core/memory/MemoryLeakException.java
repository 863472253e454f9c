package dev.memwall.core.memory;

/** Thrown when an {@link EngineMemory} is closed while buffers it handed out are still live. */
public final class MemoryLeakException extends IllegalStateException {
  private static final long serialVersionUID = 1L;

  MemoryLeakException(String message) {
    super(message);
  }
}
