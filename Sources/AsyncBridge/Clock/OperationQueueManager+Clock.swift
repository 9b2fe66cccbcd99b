import OperationCore

extension OperationQueueManager {
  /// The manager's clock, to read and to wait on: the one every timer of its work runs on (the
  /// clock it was made with; OperationCore's Glossary lists those timers, under *manager's
  /// clock*).
  ///
  /// A wait on it is one of the manager's timers, so a `TestClock` given to the manager ends it
  /// when advanced past its deadline. See ``ManagerClock``.
  public var clock: ManagerClock { ManagerClock(scheduler: scheduler) }
}
