import Dispatch
import Foundation

// swift-corelibs-foundation marks the dependents of a finished operation ready one after
// another, in no set order (Operation.swift, `observeValue`, `toFinished`: a `Set`). An adapter
// shares its foreign operation's dependencies, so its queue may start it a moment before the
// foreign operation is marked ready, and starting one that is not ready traps. Nothing reports
// the readiness of an operation in no queue: while every dependency has finished, the adapter
// checks again shortly, a bounded number of times.

extension ForeignAdapter {
  /// Starts the foreign operation once it is ready; one that stays not ready, or has an unfinished
  /// dependency (added after the request), is ``ForeignOperationError/notReady(operationName:)``.
  func startWhenReady(_ foreign: Operation, checksLeft: Int = 100) {
    guard foreign.isReady else {
      guard checksLeft > 0, foreign.dependencies.allSatisfy(\.isFinished) else {
        ForeignAdapters.update(foreign, by: self) { $0?.startCalled = false }
        finish(throwing: ForeignOperationError.notReady(operationName: name ?? ""))
        return
      }
      // Not on a global queue: a synchronous operation's work runs inside `start()`.
      DispatchQueue(label: "OperationBridge.ForeignAdapter.readiness").asyncAfter(
        deadline: .now() + .microseconds(100)
      ) { self.startWhenReady(foreign, checksLeft: checksLeft - 1) }
      return
    }
    foreign.start()
    if foreign.isFinished { foreignFinished() }  // Synchronous, or finished without saying so.
  }
}
