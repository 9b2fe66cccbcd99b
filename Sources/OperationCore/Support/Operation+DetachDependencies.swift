import Foundation

// On swift-corelibs-foundation each dependency keeps an unretained pointer to its dependents and
// follows it when it finishes (docs/PLATFORM-NOTES.md, "A dependency holds an unretained pointer
// to each dependent"). A dependent that finished, or is freed, before one of its dependencies
// must not be where that dependency looks then. Apple's Foundation needs none of this: there
// both steps do nothing, and `dependencies` stays as the caller set it (removing one there also
// sends key-value notifications, which an operation being freed must not send).
#if canImport(Darwin)
  extension Operation {
    /// Does nothing: Apple's Foundation needs no detaching.
    @inline(__always)
    func detachFromUnfinishedDependencies() {}

    /// Does nothing: Apple's Foundation needs no detaching.
    @inline(__always)
    func detachFromEveryDependency() {}
  }
#else
  extension Operation {
    /// Detaches an operation that has finished (or never runs) from its dependencies that have
    /// not finished yet.
    func detachFromUnfinishedDependencies() {
      for dependency in dependencies where !dependency.isFinished {
        removeDependency(dependency)
      }
    }

    /// Detaches an operation about to be freed (from its `deinit`) from every dependency, in
    /// case it is freed unrun.
    func detachFromEveryDependency() {
      for dependency in dependencies { removeDependency(dependency) }
    }
  }
#endif
