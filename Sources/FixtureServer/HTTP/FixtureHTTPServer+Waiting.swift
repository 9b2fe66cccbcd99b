extension FixtureHTTPServer {
  /// Waits until ``requestCount`` reaches `count`.
  /// - Returns: `false` if `timeout` passed (or the task was cancelled) first.
  public func waitForRequests(_ count: Int, timeout: Duration) async -> Bool {
    await waitUntil(timeout: timeout) { requestCount >= count }
  }

  /// Waits until ``requestCount(path:)`` for `path` reaches `count`.
  /// - Returns: `false` if `timeout` passed (or the task was cancelled) first.
  public func waitForRequests(_ count: Int, path: String, timeout: Duration) async -> Bool {
    await waitUntil(timeout: timeout) { requestCount(path: path) >= count }
  }

  /// Waits until ``abandonedResponseCount`` reaches `count`, for example to check that the
  /// server saw a cancelled client close its connection.
  /// - Returns: `false` if `timeout` passed (or the task was cancelled) first.
  public func waitForAbandonedResponses(_ count: Int, timeout: Duration) async -> Bool {
    await waitUntil(timeout: timeout) { abandonedResponseCount >= count }
  }

  private func waitUntil(timeout: Duration, _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while !condition() {
      guard ContinuousClock.now < deadline else { return false }
      do {
        try await Task.sleep(for: .milliseconds(2))
      } catch {
        return condition()
      }
    }
    return true
  }
}
