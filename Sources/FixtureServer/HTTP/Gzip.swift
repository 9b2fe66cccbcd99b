import Foundation

/// RFC 1952 gzip encoding with stored (uncompressed) DEFLATE blocks.
///
/// The output is valid gzip that any decoder accepts; it is not smaller than the input.
public enum Gzip {
  /// The largest payload of one stored DEFLATE block (RFC 1951 §3.2.4).
  static let maxStoredBlockSize = 65_535

  /// ID1 ID2, CM = 8 (deflate), no flags, MTIME 0, XFL 0, OS 255 (unknown).
  static let header = Data([0x1F, 0x8B, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xFF])

  /// Returns `data` as one gzip member: header, stored DEFLATE blocks, CRC-32 and ISIZE.
  public static func compress(_ data: Data) -> Data {
    let bytes = [UInt8](data)
    let blockCount = max(1, (bytes.count + maxStoredBlockSize - 1) / maxStoredBlockSize)
    var output = header
    output.reserveCapacity(header.count + bytes.count + blockCount * 5 + 8)
    for block in 0..<blockCount {
      let start = block * maxStoredBlockSize
      let end = min(start + maxStoredBlockSize, bytes.count)
      let length = UInt16(end - start)
      // BFINAL in bit 0, BTYPE 00 (stored) in bits 1-2, then padding to the byte boundary.
      output.append(block == blockCount - 1 ? 0x01 : 0x00)
      appendLittleEndian(length, to: &output)
      appendLittleEndian(~length, to: &output)
      output.append(contentsOf: bytes[start..<end])
    }
    appendLittleEndian(crc32(data), to: &output)
    appendLittleEndian(UInt32(truncatingIfNeeded: bytes.count), to: &output)
    return output
  }

  private static func appendLittleEndian<Value: FixedWidthInteger>(
    _ value: Value, to output: inout Data
  ) {
    withUnsafeBytes(of: value.littleEndian) { output.append(contentsOf: $0) }
  }
}
