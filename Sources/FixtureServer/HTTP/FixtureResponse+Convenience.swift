import Foundation

extension FixtureResponse {
  /// A JSON response (`Content-Type: application/json; charset=utf-8`).
  public static func json(
    _ data: Data, status: Int = 200, contentEncoding: ContentEncoding = .identity
  ) -> FixtureResponse {
    FixtureResponse(
      status: status, headers: ["Content-Type": "application/json; charset=utf-8"], body: data,
      contentEncoding: contentEncoding)
  }

  /// An HTML response (`Content-Type: text/html; charset=utf-8`).
  public static func html(_ html: String, status: Int = 200) -> FixtureResponse {
    FixtureResponse(
      status: status, headers: ["Content-Type": "text/html; charset=utf-8"], body: Data(html.utf8))
  }

  /// A plain-text response (`Content-Type: text/plain; charset=utf-8`).
  public static func text(_ text: String, status: Int = 200) -> FixtureResponse {
    FixtureResponse(
      status: status, headers: ["Content-Type": "text/plain; charset=utf-8"], body: Data(text.utf8))
  }
}
