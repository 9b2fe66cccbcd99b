/// The error a ``StackExchangeFixture`` reports when its embedded data cannot be read.
///
/// The fixture then answers every request with an API error body carrying this description
/// rather than crashing the process that serves it.
public struct FixtureDataError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The data file that could not be read, for example `questions.json`.
  public let file: String
  /// Why it could not be read.
  public let reason: String

  /// One line naming the file and the reason.
  public var description: String {
    "the fixture's \(file) could not be read: \(reason)"
  }
}
