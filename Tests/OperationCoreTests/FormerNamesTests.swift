import Foundation
import OperationCore
import Testing

/// Public names that were renamed still compile where a user wrote them, and mean the new ones.
@Suite struct FormerNamesTests {
  @Test func theFormerErrorNameMakesComparesAndMatchesTheError() {
    let names: any FormerNameUses = FormerNames()
    let error = names.freedHandlerError(named: "Fetch")
    #expect(error == .completionHandlerFreed(operationName: "Fetch"))
    #expect(names.matchesFreedHandler(.completionHandlerFreed(operationName: "Fetch")))
    #expect(!names.matchesFreedHandler(.completionHandlerFreed(operationName: "Other")))
    #expect(!names.matchesFreedHandler(.noOutcome(operationName: "Fetch")))
  }

  @Test func theFormerEventCountNameIsTheCallerCount() {
    let names: any FormerNameUses = FormerNames()
    let event = names.event(waiterCount: 3)
    #expect(event.callerCount == 3)
    #expect(names.waiterCount(of: event) == 3)
  }
}

/// Uses of the former names, reached through a protocol so that calling them here draws no
/// deprecation warning (the tests build with warnings as errors).
private protocol FormerNameUses {
  func freedHandlerError(named name: String) -> ForeignOperationError
  func matchesFreedHandler(_ error: ForeignOperationError) -> Bool
  func event(waiterCount: Int) -> OperationEvent
  func waiterCount(of event: OperationEvent) -> Int
}

private struct FormerNames: FormerNameUses {
  @available(*, deprecated, message: "uses the former names on purpose")
  func freedHandlerError(named name: String) -> ForeignOperationError {
    .completionHandlerReleased(operationName: name)
  }

  @available(*, deprecated, message: "uses the former names on purpose")
  func matchesFreedHandler(_ error: ForeignOperationError) -> Bool {
    switch error {
    case .completionHandlerReleased(operationName: "Fetch"): true
    default: false
    }
  }

  @available(*, deprecated, message: "uses the former names on purpose")
  func event(waiterCount: Int) -> OperationEvent {
    OperationEvent(
      kind: .joined, operationName: "Fetch", key: nil, waiterCount: waiterCount, duration: nil,
      operationID: ObjectIdentifier(FormerNamesTests.self))
  }

  @available(*, deprecated, message: "uses the former names on purpose")
  func waiterCount(of event: OperationEvent) -> Int { event.waiterCount }
}
