import Foundation
import Testing

/// The "Testing your code" article of OperationBridgeTesting shows the tests of the
/// OperationBridgeTestingTests target: every Swift block of the article is in that target's
/// source as written, so the article shows only code that compiles and passes.
@Suite struct TestingArticleTests {
  private static let root = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

  @Test func everyBlockOfTheArticleIsATestAsWritten() throws {
    let article = try String(
      contentsOf: Self.root.appending(
        path: "Sources/OperationBridgeTesting/OperationBridgeTesting.docc/TestingYourCode.md"),
      encoding: .utf8)
    let tests = try String(
      contentsOf: Self.root.appending(
        path: "Tests/OperationBridgeTestingTests/TestingYourCodeTests.swift"),
      encoding: .utf8)
    let blocks = article.components(separatedBy: "```swift\n").dropFirst().map {
      $0.components(separatedBy: "\n```").first ?? ""
    }
    #expect(blocks.count == 5)
    for block in blocks {
      #expect(tests.contains(block), "not in the tests as written:\n\(block)")
    }
  }
}
