import Foundation
import OperationCore

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// How long a failing response asks the client to wait before trying again: the larger of its
/// `Retry-After` header (delay seconds, or an HTTP date) and what the retry policy's
/// ``RetryPolicy/serverRequestedDelay`` reads from its body, for an API that says it there. A
/// value type with no side effects.
enum ServerRetryDelay {
  /// The longest delay read as asked: a hundred years. A server asking for more (a JSON
  /// number such as `1e30` would overflow a `Duration` and trap) is read as asking for this,
  /// which is more than any retry policy waits.
  static let longest = Duration.century

  /// The delay `response` and `body` ask for, or nil when they ask for none: its `Retry-After`
  /// header, and what `bodyDelay` (if any) reads from a body that is there.
  static func requested(
    by response: URLResponse?, body: Data?,
    bodyDelay: (@Sendable (_ response: HTTPURLResponse, _ body: Data) -> Duration?)?,
    now: Date = Date()
  ) -> Duration? {
    guard let response = response as? HTTPURLResponse else { return nil }
    let header = response.value(forHTTPHeaderField: "Retry-After")
    let requested = body.flatMap { body in bodyDelay?(response, body) }
    return [header.flatMap { retryAfter($0, now: now) }, requested].compactMap { $0 }.max()
  }

  /// A `Retry-After` value: whole seconds (at most ``longest``, however many digits), or an
  /// HTTP date in any of the three forms HTTP defines (see ``httpDate(_:now:)``), from which
  /// the time left is counted (zero once past). Nil when it is neither.
  static func retryAfter(_ value: String, now: Date) -> Duration? {
    let value = value.trimmingCharacters(in: .whitespaces)
    if let seconds = Int(value) {
      return seconds >= 0 ? min(.seconds(seconds), longest) : nil
    }
    // Delay seconds too many for an `Int` still ask for a long wait (more than any policy's).
    if !value.isEmpty,
      value.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) })
    {
      return longest
    }
    guard let date = httpDate(value, now: now) else { return nil }
    return seconds(max(date.timeIntervalSince(now), 0))
  }

  /// An HTTP date, in any of the three forms a recipient must accept (RFC 9110, section
  /// 5.6.7): IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), the obsolete RFC 850 form
  /// (`Sunday, 06-Nov-94 08:49:37 GMT`, whose two-digit year is the one within 50 years of
  /// `now`) and C's asctime form (`Sun Nov  6 08:49:37 1994`, in GMT). Nil for anything else.
  static func httpDate(_ value: String, now: Date) -> Date? {
    // asctime pads a one-digit day with a space: runs of spaces read as one.
    let words = value.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
    for format in [
      "EEE, dd MMM yyyy HH:mm:ss zzz", "EEEE, dd-MMM-yy HH:mm:ss zzz", "EEE MMM d HH:mm:ss yyyy",
    ] {
      if let date = httpDateFormatter(format, now: now).date(from: words) { return date }
    }
    return nil
  }

  /// `seconds` (not negative, not NaN) as a duration, at most ``longest``.
  private static func seconds(_ seconds: Double) -> Duration {
    seconds < longest.timeInterval ? .seconds(seconds) : longest
  }

  /// Reads one form of HTTP date, in English and GMT; a two-digit year is the one from 50
  /// years before `now` on. A new one per date: dates are rare (one per failed attempt at
  /// most), and a formatter is not `Sendable`.
  private static func httpDateFormatter(_ format: String, now: Date) -> DateFormatter {
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: "GMT")
    formatter.dateFormat = format
    formatter.twoDigitStartDate = Calendar(identifier: .gregorian).date(
      byAdding: .year, value: -50, to: now)
    return formatter
  }
}
