/// Named HTML character references understood by `String.decodingHTMLEntities`: the XML five,
/// the whole ISO-8859-1 set of HTML 4, and HTML 4's common typographic and symbol entities.
/// Names are case-sensitive (`&Eacute;` is not `&eacute;`).
enum HTMLEntityTable {
  /// Name (without `&` and `;`) to the character it stands for.
  static let scalars: [String: Unicode.Scalar] = {
    var table: [String: Unicode.Scalar] = [:]
    for (offset, name) in latin1Names.enumerated() {
      table[name] = Unicode.Scalar(UInt8(0xA0 + offset))
    }
    for (name, value) in otherEntities {
      table[name] = value
    }
    return table
  }()

  /// The longest name in the table, which bounds how far the decoder looks ahead.
  static let longestNameLength = scalars.keys.map(\.utf8.count).max() ?? 0

  /// HTML 4's ISO-8859-1 entities, in code point order from U+00A0 to U+00FF.
  private static let latin1Names: [String] = [
    "nbsp", "iexcl", "cent", "pound", "curren", "yen", "brvbar", "sect",
    "uml", "copy", "ordf", "laquo", "not", "shy", "reg", "macr",
    "deg", "plusmn", "sup2", "sup3", "acute", "micro", "para", "middot",
    "cedil", "sup1", "ordm", "raquo", "frac14", "frac12", "frac34", "iquest",
    "Agrave", "Aacute", "Acirc", "Atilde", "Auml", "Aring", "AElig", "Ccedil",
    "Egrave", "Eacute", "Ecirc", "Euml", "Igrave", "Iacute", "Icirc", "Iuml",
    "ETH", "Ntilde", "Ograve", "Oacute", "Ocirc", "Otilde", "Ouml", "times",
    "Oslash", "Ugrave", "Uacute", "Ucirc", "Uuml", "Yacute", "THORN", "szlig",
    "agrave", "aacute", "acirc", "atilde", "auml", "aring", "aelig", "ccedil",
    "egrave", "eacute", "ecirc", "euml", "igrave", "iacute", "icirc", "iuml",
    "eth", "ntilde", "ograve", "oacute", "ocirc", "otilde", "ouml", "divide",
    "oslash", "ugrave", "uacute", "ucirc", "uuml", "yacute", "thorn", "yuml",
  ]

  /// The other supported entities and their code points (all valid scalars).
  private static let otherEntities: [(String, Unicode.Scalar)] = [
    ("quot", "\u{0022}"), ("amp", "\u{0026}"), ("apos", "\u{0027}"), ("lt", "\u{003C}"),
    ("gt", "\u{003E}"), ("OElig", "\u{0152}"), ("oelig", "\u{0153}"), ("Scaron", "\u{0160}"),
    ("scaron", "\u{0161}"), ("Yuml", "\u{0178}"), ("fnof", "\u{0192}"), ("circ", "\u{02C6}"),
    ("tilde", "\u{02DC}"), ("ensp", "\u{2002}"), ("emsp", "\u{2003}"), ("thinsp", "\u{2009}"),
    ("zwnj", "\u{200C}"), ("zwj", "\u{200D}"), ("lrm", "\u{200E}"), ("rlm", "\u{200F}"),
    ("ndash", "\u{2013}"), ("mdash", "\u{2014}"), ("lsquo", "\u{2018}"), ("rsquo", "\u{2019}"),
    ("sbquo", "\u{201A}"), ("ldquo", "\u{201C}"), ("rdquo", "\u{201D}"), ("bdquo", "\u{201E}"),
    ("dagger", "\u{2020}"), ("Dagger", "\u{2021}"), ("bull", "\u{2022}"), ("hellip", "\u{2026}"),
    ("permil", "\u{2030}"), ("prime", "\u{2032}"), ("Prime", "\u{2033}"), ("lsaquo", "\u{2039}"),
    ("rsaquo", "\u{203A}"), ("oline", "\u{203E}"), ("frasl", "\u{2044}"), ("euro", "\u{20AC}"),
    ("trade", "\u{2122}"), ("larr", "\u{2190}"), ("uarr", "\u{2191}"), ("rarr", "\u{2192}"),
    ("darr", "\u{2193}"), ("harr", "\u{2194}"), ("lArr", "\u{21D0}"), ("rArr", "\u{21D2}"),
    ("hArr", "\u{21D4}"), ("minus", "\u{2212}"), ("lowast", "\u{2217}"), ("radic", "\u{221A}"),
    ("infin", "\u{221E}"), ("ne", "\u{2260}"), ("le", "\u{2264}"), ("ge", "\u{2265}"),
    ("asymp", "\u{2248}"), ("equiv", "\u{2261}"), ("sum", "\u{2211}"), ("prod", "\u{220F}"),
    ("part", "\u{2202}"), ("isin", "\u{2208}"), ("notin", "\u{2209}"), ("cap", "\u{2229}"),
    ("cup", "\u{222A}"), ("int", "\u{222B}"), ("there4", "\u{2234}"), ("sim", "\u{223C}"),
    ("loz", "\u{25CA}"), ("spades", "\u{2660}"), ("clubs", "\u{2663}"), ("hearts", "\u{2665}"),
    ("diams", "\u{2666}"),
  ]
}
