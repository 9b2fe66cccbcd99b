/// A `--help` page as data, laid out for a given width when printed: text wraps between words,
/// never inside one, and option descriptions keep their column.
struct HelpPage {
  /// A part of the page after the usage line.
  enum Block {
    /// A paragraph of running text.
    case paragraph(String)
    /// A labelled paragraph, e.g. `EXIT STATUS: 0 success, …`.
    case labelled(String, String)
    /// A titled list of terms and their descriptions, e.g. `OPTIONS:`.
    case list(String, [(term: String, text: String)])
  }

  /// What the tool or command does.
  let overview: String
  /// The words of the usage line after `bridge-demo`, each kept whole when wrapping, e.g.
  /// `["questions", "[--site <name>]"]`.
  let usage: [String]
  /// The rest of the page.
  let blocks: [Block]

  /// The narrowest width laid out; a narrower terminal gets this.
  static let minimumWidth = 40
  /// How far a list's descriptions may be indented; longer terms put theirs on the next line.
  private static let maximumTermColumn = 24

  /// The page laid out for `width` columns.
  func text(width: Int) -> String {
    let width = max(width, Self.minimumWidth)
    var lines = Self.wrap(overview, width: width, first: "OVERVIEW: ")
    lines.append("")
    lines += usageLines(prefix: "USAGE: ", width: width)
    for block in blocks {
      lines.append("")
      switch block {
      case .paragraph(let text):
        lines += Self.wrap(text, width: width)
      case .labelled(let label, let text):
        lines += Self.wrap(text, width: width, first: "\(label): ")
      case .list(let title, let entries):
        lines.append("\(title):")
        lines += Self.list(entries, width: width)
      }
    }
    return lines.joined(separator: "\n")
  }

  /// The usage line, wrapped for `width` columns with its continuation lines aligned after
  /// `prefix` (`USAGE: ` in the help, `usage: ` in a usage error).
  func usageLines(prefix: String, width: Int) -> [String] {
    Self.wrap(
      words: ["bridge-demo"] + usage, width: max(width, Self.minimumWidth), first: prefix,
      rest: String(repeating: " ", count: prefix.count))
  }

  /// Entries as two columns: terms indented by 2, descriptions aligned after the longest term
  /// (up to ``maximumTermColumn``) and wrapped within their column.
  private static func list(_ entries: [(term: String, text: String)], width: Int) -> [String] {
    let longest = entries.map { $0.term.count }.max() ?? 0
    let column = min(2 + longest + 2, maximumTermColumn)
    let indent = String(repeating: " ", count: column)
    var lines: [String] = []
    for entry in entries {
      let term = "  " + entry.term
      if term.count + 2 <= column {
        let first = term + String(repeating: " ", count: column - term.count)
        lines += wrap(entry.text, width: width, first: first, rest: indent)
      } else {
        lines.append(term)
        lines += wrap(entry.text, width: width, first: indent, rest: indent)
      }
    }
    return lines
  }

  /// `text`'s words, wrapped.
  static func wrap(_ text: String, width: Int, first: String = "", rest: String = "")
    -> [String]
  {
    wrap(words: text.split(separator: " ").map(String.init), width: width, first: first, rest: rest)
  }

  /// `words` filled greedily into lines of at most `width` columns, the first line starting
  /// with `first` and the others with `rest`, one space between words. A word too long for any
  /// line gets a line of its own rather than being broken.
  static func wrap(words: [String], width: Int, first: String, rest: String) -> [String] {
    var lines: [String] = []
    var line = first
    var lineHasWord = false
    for word in words {
      if lineHasWord, line.count + 1 + word.count > width {
        lines.append(line)
        line = rest
        lineHasWord = false
      }
      line += (lineHasWord ? " " : "") + word
      lineHasWord = true
    }
    lines.append(line)
    return lines
  }
}
