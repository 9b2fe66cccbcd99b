import StackExchange
import Testing

@Test(arguments: [
  ("&quot;a&quot; &amp; &lt;b&gt; &apos;c&apos;", "\"a\" & <b> 'c'"),
  ("a&nbsp;b", "a\u{00A0}b"),
  ("&eacute;&uuml;&ouml;&auml;&szlig;&ntilde;&ccedil;&copy;&reg;", "éüöäßñç©®"),
  ("&hellip;&mdash;&ndash;&lsquo;&rsquo;&ldquo;&rdquo;&euro;&trade;", "…—–‘’“”€™"),
  ("&iexcl;&times;&divide;&yuml;", "\u{00A1}\u{00D7}\u{00F7}\u{00FF}"),
  ("&Eacute;&eacute;&Uuml;", "ÉéÜ"),
])
func namedEntitiesAreDecoded(escaped: String, expected: String) {
  #expect(escaped.decodingHTMLEntities == expected)
}

@Test(arguments: [
  ("M&#252;ller", "Müller"),
  ("don&#39;t", "don't"),
  ("&#233;&#00233;", "éé"),
  ("&#128512;", "😀"),
])
func decimalReferencesAreDecoded(escaped: String, expected: String) {
  #expect(escaped.decodingHTMLEntities == expected)
}

@Test(arguments: [
  ("&#xE9;&#XE9;&#xe9;&#x00e9;", "éééé"),
  ("&#x1F600;", "😀"),
  ("&#x1f469;&#x200d;&#x1f4bb;", "👩‍💻"),
])
func hexadecimalReferencesAreDecoded(escaped: String, expected: String) {
  #expect(escaped.decodingHTMLEntities == expected)
}

@Test(arguments: [
  "&foo;", "&bogus; &nbspx;", "&AMP;", "&aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa;",
])
func unknownNamedEntitiesAreLeftAsIs(text: String) {
  #expect(text.decodingHTMLEntities == text)
}

@Test(arguments: [
  "AT&T", "&amp", "& amp;", "&;", "&#;", "&#x;", "&#12a;", "&#xZZ;", "&# 65;", "a & b", "&",
  "&#", "&#x", "&#65", "&é;",
])
func malformedReferencesAreLeftAsIs(text: String) {
  #expect(text.decodingHTMLEntities == text)
}

@Test(arguments: [
  "&#xD800;", "&#xDFFF;", "&#55296;", "&#x110000;", "&#1114112;", "&#0;", "&#x0;",
  "&#99999999999999999999999;", "&#xFFFFFFFFFFFFFFFFFFFF;",
])
func invalidCodePointsAreLeftAsIs(text: String) {
  #expect(text.decodingHTMLEntities == text)
}

@Test func largestValidCodePointIsDecoded() {
  #expect("&#x10FFFF;".decodingHTMLEntities == "\u{10FFFF}")
}

@Test(arguments: [
  ("&amp;lt;", "&lt;"),
  ("&amp;amp;", "&amp;"),
  ("&amp;#39;", "&#39;"),
  ("&#38;lt;", "&lt;"),
])
func decodingIsASinglePass(escaped: String, expected: String) {
  #expect(escaped.decodingHTMLEntities == expected)
}

@Test(arguments: [
  ("&&amp;", "&&"),
  ("&amp&amp;", "&amp&"),
  ("&lt&gt;", "&lt>"),
  ("&#&#65;", "&#A"),
  ("Jörg &amp; Zoë 😀 &gt;", "Jörg & Zoë 😀 >"),
])
func invalidReferenceDoesNotHideAFollowingOne(escaped: String, expected: String) {
  #expect(escaped.decodingHTMLEntities == expected)
}

@Test func textWithoutReferencesIsUnchanged() {
  let text = "No entities here: a < b, \"quoted\", Ünïcödé 🎉"
  #expect(text.decodingHTMLEntities == text)
}

@Test func longInputDecodesCompletely() {
  let count = 100_000
  let escaped = String(repeating: "&amp;lt;&#", count: count)
  #expect(escaped.decodingHTMLEntities == String(repeating: "&lt;&#", count: count))
}
