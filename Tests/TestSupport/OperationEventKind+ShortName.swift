import OperationCore

extension OperationEvent.Kind {
  /// A short name for messages and comparisons: `enqueued`, `joined`, `started`, `stalled`,
  /// `retrying(attempt, delay)` or `finished(completion)`.
  public var shortName: String {
    switch self {
    case .enqueued: "enqueued"
    case .joined: "joined"
    case .started: "started"
    case .stalled: "stalled"
    case .retrying(let attempt, let delay): "retrying(\(attempt), \(delay))"
    case .finished(let completion): "finished(\(completion))"
    }
  }
}
