/// An error raised while setting up a ``FixtureHTTPServer``.
public enum FixtureServerError: Error, Equatable, Sendable {
  /// A socket call failed; `operation` names the call and `code` is its `errno`.
  case socketCall(operation: String, code: Int32)
}
