import Foundation
import LockedValue

/// Builds ``UserFetchOperation``s around the handler a manager hands over, and counts (and
/// keeps) what it built, so a test sees that a joiner builds nothing.
final class UserFetchFactory: Sendable {
  let service = ManualUserService()
  private let built = Locked<[UserFetchOperation]>([])
  private let callBackQueue: DispatchQueue?

  init(callBackQueue: DispatchQueue? = nil) {
    self.callBackQueue = callBackQueue
  }

  /// How many operations it built.
  var buildCount: Int { built.withLock { $0.count } }

  /// The last operation it built.
  var last: UserFetchOperation? { built.withLock { $0.last } }

  /// A user fetch for user 7 calling `complete`.
  func make(_ complete: @escaping @Sendable (Result<LegacyUser, any Error>) -> Void) -> Operation {
    let operation = UserFetchOperation(
      userID: 7, service: service, callBackQueue: callBackQueue, completionHandler: complete)
    built.withLock { $0.append(operation) }
    return operation
  }
}

/// The user every test fetches.
let ann = LegacyUser(id: 7, name: "Ann")
