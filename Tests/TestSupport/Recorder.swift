/// A thread-safe list of observations, with bounded waits for a number of them.
public final class Recorder<Element: Sendable>: Sendable {
  private let list = Waitable<[Element]>([])

  /// Creates an empty recorder.
  public init() {}

  /// Everything recorded so far, in order.
  public var values: [Element] { list.read { $0 } }

  /// How many values were recorded.
  public var count: Int { list.read { $0.count } }

  /// Records `value` and resumes the waiters it satisfies.
  public func record(_ value: Element) {
    list.update { $0.append(value) }
  }

  /// Waits until at least `count` values are recorded; false if `timeout` passed first.
  public func wait(forCount count: Int, timeout: Duration = .testTimeout) async -> Bool {
    await list.wait(until: { $0.count >= count }, timeout: timeout)
  }
}
