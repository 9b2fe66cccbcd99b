import Testing

@testable import bridge_demo

@Suite struct HelpPageTests {
  @Test(arguments: [40, 52, 80, 100, 133])
  func everyPageFitsTheWidthWithoutBreakingAWord(width: Int) {
    for command in [nil] + Subcommand.allCases.map(Optional.some) {
      let page = Usage.text(for: command, width: width)
      let lines = page.split(separator: "\n", omittingEmptySubsequences: false)
      // Only a word too long for any line may stick out, on a line of its own.
      let long = lines.filter { $0.count > width && $0.split(separator: " ").count > 1 }
      #expect(long.isEmpty, "\(command as Any) at \(width)")
      let wrapped = page.split(whereSeparator: \.isWhitespace)
      let unwrapped = Usage.text(for: command, width: 10_000).split(whereSeparator: \.isWhitespace)
      #expect(wrapped == unwrapped, "\(command as Any) at \(width)")
    }
  }

  @Test func aWordLongerThanTheLineGetsALineOfItsOwn() {
    let lines = HelpPage.wrap(
      words: ["a", "https://api.stackexchange.com/2.3/questions", "b"], width: 20, first: "",
      rest: "  ")
    #expect(lines == ["a", "  https://api.stackexchange.com/2.3/questions", "  b"])
  }

  @Test func optionDescriptionsKeepTheirColumnWhenWrapped() throws {
    let help = Usage.text(for: .cancel, width: 60)
    let lines = help.split(separator: "\n").map(String.init)
    let first = try #require(lines.firstIndex { $0.hasPrefix("  --after <ms>") })
    let start = try #require(lines[first].firstIndex(of: "C"))
    let column = lines[first].distance(from: lines[first].startIndex, to: start)
    #expect(lines[first + 1].prefix(column).allSatisfy { $0 == " " })
    #expect(lines[first + 1].dropFirst(column).first?.isWhitespace == false)
  }
}
