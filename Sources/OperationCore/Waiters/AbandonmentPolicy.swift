/// What happens to shared work when every caller waiting for it has left (its task was
/// cancelled, or its deadline passed) before it settled.
///
/// Each awaiting caller brings its own policy (`whenAbandoned:`). Callers of one piece of
/// work with different policies keep it as long as any of them asks: ``finish`` over
/// ``linger(_:)`` over ``cancel``, and of two lingers the longer. The policies that count are
/// those of the callers that waited for this work: a request that did not become one of its
/// callers (a task cancelled before it called in, a request for work that had settled, or
/// one for a key that was forgotten, which starts new work) adds nothing to it.
///
/// A completion-handler caller never leaves, so work it waits for is never abandoned. The
/// operation's own `cancel()`, its own timeout and `cancelAllOperations()` cancel the work
/// whatever the policy, and a manager's idle wait waits for work that is kept.
///
/// ```swift
/// // The caller may go; the upload still completes on the server.
/// try await manager.perform(upload, whenAbandoned: .finish)
/// ```
public enum AbandonmentPolicy: Sendable, Hashable {
  /// The work is cancelled once its last caller has left: the default.
  case cancel
  /// The work runs to its end with nobody waiting (to warm a cache, or because a server-side
  /// effect should complete); a new request for its key joins it meanwhile. Its outcome then
  /// goes to nobody.
  case finish
  /// The work keeps running for the given time after its last caller left, on its manager's
  /// clock: a request for its key arriving meanwhile joins it, disarming the linger's timer
  /// (the work waits for its callers again); if none does, the work is cancelled then. A
  /// duration of zero or less is ``cancel``.
  case linger(Duration)

  /// The policy that keeps work at least as long as both `self` and `other` do: ``finish``
  /// over ``linger(_:)`` over ``cancel``, and of two lingers the longer.
  package func keepingLonger(than other: AbandonmentPolicy) -> AbandonmentPolicy {
    switch (self, other) {
    case (.finish, _), (_, .cancel): self
    case (_, .finish), (.cancel, _): other
    case (.linger(let mine), .linger(let theirs)): mine >= theirs ? self : other
    }
  }

  /// How long abandoned work lingers before it is cancelled: nil for work that is cancelled at
  /// once (``cancel``, or a linger of zero or less) and for work kept to its end.
  package var lingerDuration: Duration? {
    guard case .linger(let duration) = self, duration > .zero else { return nil }
    return duration
  }
}
