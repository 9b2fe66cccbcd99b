import Foundation

extension Operation {
  /// Detaches an operation that has finished (or never runs) from its dependencies that have
  /// not finished yet.
  ///
  /// On swift-corelibs-foundation each dependency keeps an unretained pointer to its dependents
  /// and follows it when it finishes. An operation that finished before one of its dependencies
  /// (cancelled, or its callers gone) may have been freed by then, and the dependency would
  /// touch freed memory. Apple's Foundation needs none of this: there it does nothing, and
  /// `dependencies` stays as the caller set it.
  func detachFromUnfinishedDependencies() {
    #if !canImport(Darwin)
      for dependency in dependencies where !dependency.isFinished {
        removeDependency(dependency)
      }
    #endif
  }
}
