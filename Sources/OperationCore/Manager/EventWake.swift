/// What a sink asks the publisher to do once it has released its lock: typically, resume a
/// consumer that was waiting for events. Publishing happens under the operation's lock, and
/// nothing is resumed under a lock.
package protocol EventWake: AnyObject, Sendable {
  /// Runs the wake. Called once, outside every lock, on the publishing thread.
  func run()
}

/// The wakes asked for while an operation published under its lock, to run once it is released.
/// Empty, it holds no reference at all (operations without subscribers carry one through every
/// transition); it holds one wake without allocating (one subscriber is the usual case).
package struct EventWakes: Sendable {
  private var first: (any EventWake)?
  private var others: [any EventWake]?

  /// No wakes.
  package init() {}

  /// Adds `wake`, if there is one.
  mutating func add(_ wake: (any EventWake)?) {
    guard let wake else { return }
    if first == nil {
      first = wake
    } else {
      others = (others ?? []) + [wake]
    }
  }

  /// Adds every wake of `wakes`.
  mutating func add(_ wakes: EventWakes) {
    add(wakes.first)
    for wake in wakes.others ?? [] { add(wake) }
  }

  /// Runs the wakes, in the order they were asked for. Call it outside every lock.
  package func run() {
    guard let first else { return }
    first.run()
    for wake in others ?? [] { wake.run() }
  }
}
