extension String {
  /// The text with nothing in it a terminal would act on, for lines that show a server's text
  /// (titles, tags, error bodies). Line breaks and tabs become spaces, so one item stays on its
  /// line; the other C0 controls and DEL show as their Unicode control pictures (`␛` for ESC,
  /// `␇` for BEL); C1 controls and the bidirectional overrides and isolates, which could
  /// reorder what follows them, as U+FFFD. So a server's text cannot move the cursor, recolour
  /// or retitle the terminal, ring its bell or hide the rest of the line.
  var terminalSafe: String {
    guard unicodeScalars.contains(where: { Self.replacement(for: $0) != nil }) else {
      return self
    }
    var safe = String.UnicodeScalarView()
    for scalar in unicodeScalars {
      safe.append(Self.replacement(for: scalar) ?? scalar)
    }
    return String(safe)
  }

  /// What `scalar` shows as on a terminal line, or nil when it shows as itself.
  private static func replacement(for scalar: Unicode.Scalar) -> Unicode.Scalar? {
    switch scalar.value {
    case 0x09...0x0D, 0x85, 0x2028, 0x2029: " "
    case 0x00...0x1F: Unicode.Scalar(0x2400 + scalar.value)
    case 0x7F: "\u{2421}"
    case 0x80...0x9F, 0x202A...0x202E, 0x2066...0x2069: "\u{FFFD}"
    default: nil
    }
  }
}
