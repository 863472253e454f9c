package dev.memwall.tpch.data;

import dev.memwall.core.vector.Table;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.zip.CRC32C;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.dictionary.Dictionary;

/**
 * The CRC32C checksums of one data file of a TPC-H data set: of the whole file, of its dictionaries'
 * buffers and of each record batch's buffers (validity, offsets, data of every column, in schema
 * order). Kept in the {@link TpchManifest}; the whole file's sum is what a first open checks (one
 * pass over the bytes, hardware CRC32C), the per-batch sums say which batch differs when it does not
 * match.
 *
 * <p>Immutable (the batch array is copied in and out); bad input to {@link #parse} gives
 * {@link IllegalArgumentException}.
 *
 * @param file CRC32C of every byte of the file
 * @param dictionaries CRC32C of the dictionaries' buffers, in dictionary id order
 * @param batches CRC32C of each record batch's buffers, in file order
 */
public record FileChecksums(long file, long dictionaries, long[] batches) {
  public FileChecksums {
    batches = batches.clone();
  }

  @Override
  public long[] batches() {
    return batches.clone();
  }

  /** The checksums of {@code path}, whose batches {@code mapped} holds (mapped from it). */
  public static FileChecksums of(Path path, Table mapped) throws IOException {
    return new FileChecksums(ofFile(path), ofDictionaries(mapped), ofBatches(mapped));
  }

  /** CRC32C of every byte of {@code path}, read through a mapping in windows of up to 1 GiB. */
  public static long ofFile(Path path) throws IOException {
    CRC32C crc = new CRC32C();
    try (Arena arena = Arena.ofConfined();
         FileChannel channel = FileChannel.open(path, StandardOpenOption.READ)) {
      MemorySegment mapping = channel.map(FileChannel.MapMode.READ_ONLY, 0, channel.size(), arena);
      for (long offset = 0; offset < mapping.byteSize(); offset += 1L << 30) {
        crc.update(mapping.asSlice(offset, Math.min(1L << 30, mapping.byteSize() - offset)).asByteBuffer());
      }
    }
    return crc.getValue();
  }

  /** CRC32C of each record batch's buffers in {@code table}. */
  public static long[] ofBatches(Table table) {
    List<VectorSchemaRoot> roots = table.roots();
    long[] sums = new long[roots.size()];
    for (int batch = 0; batch < sums.length; batch++) {
      CRC32C crc = new CRC32C();
      for (FieldVector vector : roots.get(batch).getFieldVectors()) {
        update(crc, vector);
      }
      sums[batch] = crc.getValue();
    }
    return sums;
  }

  /** CRC32C of the buffers of {@code table}'s dictionaries, in id order (0 for none). */
  public static long ofDictionaries(Table table) {
    CRC32C crc = new CRC32C();
    table.dictionaries().entrySet().stream().sorted(java.util.Map.Entry.comparingByKey())
        .map(java.util.Map.Entry::getValue).map(Dictionary::getVector).forEach(v -> update(crc, v));
    return crc.getValue();
  }

  private static void update(CRC32C crc, FieldVector vector) {
    for (ArrowBuf buffer : vector.getFieldBuffers()) {
      long length = buffer.capacity();
      for (long offset = 0; offset < length; offset += Integer.MAX_VALUE) {
        int chunk = (int) Math.min(Integer.MAX_VALUE, length - offset);
        crc.update(buffer.nioBuffer(offset, chunk));
      }
    }
  }

  /** The form kept in the manifest: {@code file:dictionaries:batch,batch,...} in hex. */
  public String format() {
    StringBuilder text = new StringBuilder(hex(file)).append(':').append(hex(dictionaries)).append(':');
    for (int i = 0; i < batches.length; i++) {
      text.append(i == 0 ? "" : ",").append(hex(batches[i]));
    }
    return text.toString();
  }

  /** The checksums from their {@link #format} form. */
  public static FileChecksums parse(String text) {
    String[] parts = text.strip().split(":", -1);
    if (parts.length != 3) {
      throw new IllegalArgumentException("checksums are file:dictionaries:batches, not '" + text + "'");
    }
    long[] batches = parts[2].isEmpty() ? new long[0]
        : Arrays.stream(parts[2].split(",")).mapToLong(FileChecksums::unhex).toArray();
    return new FileChecksums(unhex(parts[0]), unhex(parts[1]), batches);
  }

  private static String hex(long value) {
    return HexFormat.of().toHexDigits((int) value);
  }

  private static long unhex(String text) {
    if (text.length() != 8) {
      throw new IllegalArgumentException("a CRC32C is 8 hex digits, not '" + text + "'");
    }
    return HexFormat.fromHexDigits(text) & 0xFFFF_FFFFL;
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof FileChecksums o && o.file == file && o.dictionaries == dictionaries
        && Arrays.equals(o.batches, batches);
  }

  @Override
  public int hashCode() {
    return Long.hashCode(file) * 31 + Arrays.hashCode(batches);
  }

  @Override
  public String toString() {
    return "FileChecksums[" + format() + "]";
  }
}
