import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// How long a failing response asks the client to wait before trying again: the larger of its
/// `Retry-After` header (delay seconds, or an HTTP date) and a top-level `backoff` number of
/// seconds in its JSON body (the StackExchange API's way). A value type with no side effects.
enum ServerRetryDelay {
  /// The longest delay read as asked: a hundred years. A server asking for more (a JSON
  /// number such as `1e30` would overflow a `Duration` and trap) is read as asking for this,
  /// which is more than any retry policy waits.
  static let longest = Duration.century

  /// The delay `response` and `body` ask for, or nil when they ask for none.
  static func requested(
    by response: URLResponse?, body: Data?, now: Date = Date()
  ) -> Duration? {
    let header = (response as? HTTPURLResponse)?.value(forHTTPHeaderField: "Retry-After")
    let delays = [header.flatMap { retryAfter($0, now: now) }, body.flatMap(backoff(in:))]
    return delays.compactMap { $0 }.max()
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

  /// The `backoff` field of a JSON object body, in seconds; nil when there is none.
  static func backoff(in body: Data) -> Duration? {
    guard !body.isEmpty, let field = try? JSONDecoder().decode(BackoffField.self, from: body),
      let seconds = field.backoff, seconds >= 0
    else { return nil }
    return self.seconds(seconds)
  }

  /// `seconds` (not negative, not NaN) as a duration, at most ``longest``.
  private static func seconds(_ seconds: Double) -> Duration {
    seconds < longest.timeInterval ? .seconds(seconds) : longest
  }

  /// The one field read from a failing body.
  private struct BackoffField: Decodable {
    let backoff: Double?
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
