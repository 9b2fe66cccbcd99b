import Foundation

extension Benchmark {
  /// A JSON value for a scenario's fields, rendered by hand so keys keep their order.
  enum JSONValue: Sendable {
    /// A floating-point number; NaN and infinities are rendered as `null`.
    case number(Double)
    /// An integer.
    case integer(Int)
    /// A boolean.
    case bool(Bool)
    /// A string.
    case string(String)
    /// An array of values.
    case array([JSONValue])
    /// `null`.
    case null

    /// `value` as a number, or `null` when absent.
    static func number(_ value: Double?) -> JSONValue {
      value.map(JSONValue.number) ?? .null
    }

    /// The value as JSON text.
    var rendered: String {
      switch self {
      case .number(let value):
        guard value.isFinite else { return "null" }
        return String(format: "%.3f", value)
      case .integer(let value):
        return String(value)
      case .bool(let value):
        return value ? "true" : "false"
      case .string(let value):
        return Report.quoted(value)
      case .array(let values):
        return "[" + values.map(\.rendered).joined(separator: ", ") + "]"
      case .null:
        return "null"
      }
    }
  }

  /// What one scenario measured, ready for the table and the JSON report.
  struct ScenarioResult: Sendable {
    /// The scenario's name, such as `throughput`.
    var name: String
    /// Median nanoseconds per operation on our side (each scenario says what an operation is).
    var nsPerOp: Double
    /// What the baseline is, in words; `"none"` when there is none.
    var baseline: String
    /// Median nanoseconds per operation of the baseline, if there is one.
    var baselineNsPerOp: Double?
    /// The scenario's headline ratio (usually ours ÷ baseline), if it has one.
    var ratio: Double?
    /// The target, in words, such as `ratio <= 1.15`.
    var target: String
    /// Whether the target was met.
    var met: Bool
    /// Extra fields, in order, after the common ones.
    var extras: [(key: String, value: JSONValue)] = []
    /// A short human summary of the extras for the table's last column.
    var details: String = ""
    /// Why the scenario could not run, if it failed.
    var error: String?

    /// The result of a scenario whose target is a ratio of interleaved samples (ours ÷
    /// `baseline`) of at most `targetRatio`.
    static func ratio(
      _ name: String, samples: Statistics.Samples, baseline: String, targetRatio: Double,
      extras: [(key: String, value: JSONValue)], details: String
    ) -> ScenarioResult {
      ScenarioResult(
        name: name, nsPerOp: samples.oursMedian, baseline: baseline,
        baselineNsPerOp: samples.baselineMedian, ratio: samples.ratio,
        target: "ratio <= \(targetRatio)", met: samples.ratio <= targetRatio, extras: extras,
        details: details)
    }

    /// The result of a scenario that threw instead of measuring.
    static func failed(_ name: String, error: any Error) -> ScenarioResult {
      ScenarioResult(
        name: name, nsPerOp: .nan, baseline: "none", target: "-", met: false,
        details: "error: \(error)", error: String(describing: error))
    }
  }

  /// Renders results as a table or as one JSON object, and formats numbers for humans.
  enum Report {
    /// `{"scenarios": [...]}` on one line: the common fields first, then each scenario's extras.
    static func json(_ results: [ScenarioResult]) -> String {
      let scenarios = results.map { result -> String in
        var fields: [(key: String, value: JSONValue)] = [
          ("name", .string(result.name)),
          ("ns_per_op", .number(result.nsPerOp)),
          ("baseline", .string(result.baseline)),
          ("baseline_ns_per_op", .number(result.baselineNsPerOp)),
          ("ratio", .number(result.ratio)),
          ("target", .string(result.target)),
          ("met", .bool(result.met)),
        ]
        fields += result.extras
        if let error = result.error { fields.append(("error", .string(error))) }
        let body = fields.map { "\(quoted($0.key)): \($0.value.rendered)" }
        return "{" + body.joined(separator: ", ") + "}"
      }
      return "{\"scenarios\": [" + scenarios.joined(separator: ", ") + "]}"
    }

    /// The widest line ``table(_:)`` prints.
    static let tableWidth = 100

    /// A table no wider than ``tableWidth``: one line per scenario (scenario, ours, baseline,
    /// ratio, met, target), then its details indented below it, wrapped at word boundaries.
    static func table(_ results: [ScenarioResult]) -> String {
      let header = ["scenario", "ours", "baseline", "ratio", "met", "target"]
      let rows = results.map { result in
        [
          result.name,
          result.nsPerOp.isFinite ? duration(result.nsPerOp) : "-",
          result.baselineNsPerOp.map(duration) ?? "-",
          result.ratio.map(ratio) ?? "-",
          result.met ? "yes" : "NO",
          result.target,
        ]
      }
      let widths = header.indices.map { column in
        ([header] + rows).map { $0[column].count }.max() ?? 0
      }
      func line(_ cells: [String]) -> String {
        zip(cells, widths).map { $0.padding(toLength: $1, withPad: " ", startingAt: 0) }
          .joined(separator: "  ").trimmingCharacters(in: .whitespaces)
      }
      let rule = widths.map { String(repeating: "-", count: $0) }
      var lines = [line(header), line(rule)]
      for (result, row) in zip(results, rows) {
        let main = line(row)
        lines += main.count <= tableWidth ? [main] : wrap(main, width: tableWidth, indent: "    ")
        if !result.details.isEmpty {
          lines += wrap("  " + result.details, width: tableWidth, indent: "    ")
        }
      }
      return lines.joined(separator: "\n")
    }

    /// `text` broken at spaces into lines of at most `width` characters, every line after the
    /// first starting with `indent`. A word longer than a line is cut.
    static func wrap(_ text: String, width: Int, indent: String) -> [String] {
      var lines: [String] = []
      var current = ""
      let leading = String(text.prefix { $0 == " " })
      for word in text.split(separator: " ") {
        let prefix = current.isEmpty ? (lines.isEmpty ? leading : indent) : current + " "
        if prefix.count + word.count <= width || current.isEmpty {
          current = String((prefix + word).prefix(width))
        } else {
          lines.append(current)
          current = String((indent + word).prefix(width))
        }
      }
      if !current.isEmpty { lines.append(current) }
      return lines
    }

    /// A ratio with two decimals, such as `1.06`.
    static func ratio(_ value: Double) -> String {
      String(format: "%.2f", value)
    }

    /// A duration given in nanoseconds, with a unit that keeps it short: `850 ns`, `8.61 µs`,
    /// `12.3 ms`, `1.25 s`.
    static func duration(_ nanoseconds: Double) -> String {
      guard nanoseconds.isFinite else { return "-" }
      switch abs(nanoseconds) {
      case ..<1_000: return String(format: "%.0f ns", nanoseconds)
      case ..<1_000_000: return String(format: "%.2f µs", nanoseconds / 1e3)
      case ..<1_000_000_000: return String(format: "%.1f ms", nanoseconds / 1e6)
      default: return String(format: "%.2f s", nanoseconds / 1e9)
      }
    }

    /// The time since `start`, such as `3.2 s`.
    static func seconds(since start: ContinuousClock.Instant) -> String {
      String(format: "%.1f s", Statistics.nanoseconds(of: .now - start) / 1e9)
    }

    /// `text` as a JSON string literal.
    static func quoted(_ text: String) -> String {
      var result = "\""
      for scalar in text.unicodeScalars {
        switch scalar {
        case "\"": result += "\\\""
        case "\\": result += "\\\\"
        case "\n": result += "\\n"
        case "\r": result += "\\r"
        case "\t": result += "\\t"
        case _ where scalar.value < 0x20:
          result += String(format: "\\u%04x", scalar.value)
        default: result.unicodeScalars.append(scalar)
        }
      }
      return result + "\""
    }
  }
}
