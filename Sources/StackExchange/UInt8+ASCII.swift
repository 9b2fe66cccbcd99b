extension UInt8 {
  /// Whether this byte is an ASCII letter or digit.
  var isASCIIAlphanumeric: Bool {
    switch self {
    case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"),
      UInt8(ascii: "A")...UInt8(ascii: "Z"):
      true
    default: false
    }
  }
}
