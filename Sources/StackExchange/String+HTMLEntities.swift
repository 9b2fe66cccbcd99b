extension String {
  /// The string with HTML character references replaced by the characters they stand for, for
  /// displaying text the StackExchange API sends HTML-escaped (titles, display names).
  ///
  /// Decodes named references (`&amp;`, `&eacute;`, `&hellip;`…: the XML five, HTML 4's whole
  /// Latin-1 set and its common typographic and symbol entities; names are case-sensitive),
  /// decimal (`&#252;`) and hexadecimal (`&#xE9;`, `&#XE9;`) references. A reference must end
  /// with `;`. Unknown names, malformed references and numeric references that are not a valid
  /// Unicode scalar (zero, surrogates, above U+10FFFF) are left as they are. The input is read
  /// once, left to right, and decoded text is never decoded again, so `&amp;lt;` becomes `&lt;`.
  /// Runs in time linear in the string's length.
  public var decodingHTMLEntities: String {
    let bytes = Array(utf8)
    guard bytes.contains(ASCII.ampersand) else { return self }
    var output: [UInt8] = []
    output.reserveCapacity(bytes.count)
    var index = 0
    while index < bytes.count {
      if bytes[index] == ASCII.ampersand,
        let (scalar, end) = CharacterReference.parse(bytes, at: index)
      {
        UTF8.encode(scalar) { output.append($0) }
        index = end
      } else {
        output.append(bytes[index])
        index += 1
      }
    }
    return String(decoding: output, as: UTF8.self)
  }
}

/// The ASCII bytes the character reference syntax uses.
private enum ASCII {
  static let ampersand = UInt8(ascii: "&")
  static let semicolon = UInt8(ascii: ";")
  static let numberSign = UInt8(ascii: "#")
}

/// Parsing of one character reference in UTF-8 bytes.
///
/// Parsing only ever advances over ASCII letters, digits and `#`, never over an `&`, so when a
/// reference turns out to be invalid and the caller moves on by one byte, no byte is scanned by
/// more than one attempt: decoding a whole string stays linear.
private enum CharacterReference {
  /// Largest value kept while accumulating digits; anything at or above it is not a scalar.
  private static let saturatedValue: UInt32 = 0x11_0000

  /// Parses the reference whose `&` is at `start`. Returns the character and the index just
  /// past the closing `;`, or `nil` if the bytes there are not a valid, known reference.
  static func parse(_ bytes: [UInt8], at start: Int) -> (Unicode.Scalar, Int)? {
    let bodyStart = start + 1
    guard bodyStart < bytes.count else { return nil }
    if bytes[bodyStart] == ASCII.numberSign {
      return parseNumeric(bytes, from: bodyStart + 1)
    }
    return parseNamed(bytes, from: bodyStart)
  }

  /// Parses `[xX]digits;` (after `&#`).
  private static func parseNumeric(_ bytes: [UInt8], from start: Int) -> (Unicode.Scalar, Int)? {
    var cursor = start
    var radix: UInt32 = 10
    if cursor < bytes.count, bytes[cursor] | 0x20 == UInt8(ascii: "x") {
      radix = 16
      cursor += 1
    }
    let digitsStart = cursor
    var value: UInt32 = 0
    while cursor < bytes.count, let digit = digitValue(bytes[cursor], radix: radix) {
      value = min(value * radix + digit, saturatedValue)
      cursor += 1
    }
    guard cursor > digitsStart, cursor < bytes.count, bytes[cursor] == ASCII.semicolon,
      value != 0, let scalar = Unicode.Scalar(value)
    else { return nil }
    return (scalar, cursor + 1)
  }

  /// Parses `name;` (after `&`) and looks the name up in `HTMLEntityTable`.
  private static func parseNamed(_ bytes: [UInt8], from start: Int) -> (Unicode.Scalar, Int)? {
    var cursor = start
    while cursor < bytes.count, bytes[cursor].isASCIIAlphanumeric {
      cursor += 1
    }
    let length = cursor - start
    guard length > 0, length <= HTMLEntityTable.longestNameLength, cursor < bytes.count,
      bytes[cursor] == ASCII.semicolon,
      let scalar = HTMLEntityTable.scalars[String(decoding: bytes[start..<cursor], as: UTF8.self)]
    else { return nil }
    return (scalar, cursor + 1)
  }

  /// The value of `byte` as a digit in `radix` (10 or 16), or `nil` if it is not one.
  private static func digitValue(_ byte: UInt8, radix: UInt32) -> UInt32? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(byte - UInt8(ascii: "0"))
    case UInt8(ascii: "a")...UInt8(ascii: "f") where radix == 16:
      UInt32(byte - UInt8(ascii: "a") + 10)
    case UInt8(ascii: "A")...UInt8(ascii: "F") where radix == 16:
      UInt32(byte - UInt8(ascii: "A") + 10)
    default: nil
    }
  }
}
