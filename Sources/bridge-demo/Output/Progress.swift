/// Progress for waits longer than a second (a slow server, a long `--after`): on standard error
/// and only when it is a terminal, so that pipes and log files never collect it. One line,
/// rewritten each second with the time waited, and erased when the wait ends.
enum Progress {
  /// How long a wait lasts before its line appears, and how often the line is updated.
  static let interval: Duration = .seconds(1)

  /// Runs `work`, showing `step` (e.g. `GET http://…`) while it takes longer than
  /// ``interval``.
  ///
  /// - Returns: What `work` returned.
  /// - Throws: What `work` threw.
  static func whileWaiting<Value, Failure: Error>(
    _ step: String, _ work: () async throws(Failure) -> Value
  ) async throws(Failure) -> Value {
    guard StandardStream.error.isTerminal else { return try await work() }
    let width = Terminal.width(of: StandardStream.error.rawValue)
    let ticker = Task {
      var waited: Duration = .zero
      while (try? await Task.sleep(for: interval)) != nil {
        waited += interval
        let waitedText = " … \(Int(waited / .seconds(1))) s"
        // One terminal line, or the carriage return would not take it all back.
        let room = max(20, width - 1 - waitedText.count)
        let head = "bridge-demo: \(step)"
        let line = head.count <= room ? head : head.prefix(room - 1) + "…"
        _ = StandardStream.error.write("\r\u{1B}[K" + line + waitedText)
      }
      return waited > .zero
    }
    do {
      let value = try await work()
      await stop(ticker)
      return value
    } catch {
      await stop(ticker)
      throw error
    }
  }

  /// Stops `ticker` and erases its line if it wrote one.
  private static func stop(_ ticker: Task<Bool, Never>) async {
    ticker.cancel()
    if await ticker.value { _ = StandardStream.error.write("\r\u{1B}[K") }
  }
}
