import Dispatch
import Foundation
import LockedValue
import OperationCore

/// The progress of several callers of one request, as one line on standard error, redrawn as
/// values arrive and erased at the end. Made only when standard error is a terminal, so pipes
/// and log files never collect it.
final class ProgressBar: Sendable {
  private struct State {
    var values: [OperationProgress?]
    var isDrawn = false
  }

  private let labels: [String]
  private let width: Int
  // State lives in `state`, guarded by its lock; lines are written in order on `output`.
  private let state: Locked<State>
  private let output = DispatchQueue(label: "bridge-demo.progress-bar")

  private init(labels: [String], width: Int) {
    self.labels = labels
    self.width = width
    state = Locked(State(values: labels.map { _ in nil }))
  }

  /// A bar for callers named `labels`, or nil when standard error is not a terminal.
  static func onTerminal(labels: [String]) -> ProgressBar? {
    guard StandardStream.error.isTerminal else { return nil }
    return ProgressBar(labels: labels, width: Terminal.width(of: StandardStream.error.rawValue))
  }

  /// Shows `progress` as caller `index`'s, asynchronously: a caller's progress call returns at
  /// once, and the line is written off its thread.
  func show(_ progress: OperationProgress, forCaller index: Int) {
    output.async { [self] in
      let values = state.withLock { state in
        state.values[index] = progress
        state.isDrawn = true
        return state.values
      }
      let line = Self.line(labels: labels, values: values, width: width)
      _ = StandardStream.error.write("\r\u{1B}[K" + line)
    }
  }

  /// Erases the line, once every value shown before has been written.
  func erase() {
    output.sync {
      guard state.withLock({ $0.isDrawn }) else { return }
      _ = StandardStream.error.write("\r\u{1B}[K")
    }
  }

  /// The line for `values` (one per label; nil before a caller's first value), at most
  /// `width - 1` columns: a bar with the share done for each caller (empty while the total is
  /// unknown), then the bytes received, as the furthest caller's value says.
  static func line(labels: [String], values: [OperationProgress?], width: Int) -> String {
    let bytes = values.compactMap { $0 }.max { $0.completedUnitCount < $1.completedUnitCount }
    let tail = bytes.map { "  " + amount($0) } ?? ""
    // What each caller's part takes besides its bar: label, brackets, a space and "100%".
    let fixed = labels.reduce(0) { $0 + $1.count + 8 } + 2 * (labels.count - 1)
    let barWidth = min(30, max(5, (width - 1 - fixed - tail.count) / max(1, labels.count)))
    let parts = zip(labels, values).map { label, value -> String in
      guard let value, let fraction = value.fractionCompleted else {
        // No share to show: an empty bar; the bytes received follow at the end of the line.
        return "\(label) [\(String(repeating: " ", count: barWidth))]     "
      }
      let filled = Int((fraction * Double(barWidth)).rounded(.down))
      let percent = Int((fraction * 100).rounded(.down))
      let bar =
        String(repeating: "=", count: filled)
        + String(repeating: " ", count: barWidth - filled)
      return "\(label) [\(bar)] " + String(repeating: " ", count: 3 - String(percent).count)
        + "\(percent)%"
    }
    let line = parts.joined(separator: "  ") + tail
    return line.count < width ? line : String(line.prefix(max(0, width - 1)))
  }

  /// "12.3 of 27.1 kB", or "12.3 kB" when the total is unknown.
  private static func amount(_ progress: OperationProgress) -> String {
    let done = kilobytes(progress.completedUnitCount)
    guard let total = progress.totalUnitCount else { return "\(done) kB" }
    return "\(done) of \(kilobytes(total)) kB"
  }

  private static func kilobytes(_ bytes: Int64) -> String {
    String(format: "%.1f", Double(bytes) / 1000)
  }
}
