import Foundation

/// The parameters of a StackExchange API `/questions` request.
///
/// `Hashable` so it can key in-flight request coalescing: two equal queries always produce the
/// same URL for the same base URL. Values are validated by `url(baseURL:)`, not at creation.
public struct QuestionsQuery: Sendable, Hashable {
  /// The API site parameter, e.g. `stackoverflow` (required by the API).
  public var site: String
  /// Items per page (`pagesize`, 1...100); `nil` uses the API's default of 30.
  public var pageSize: Int?
  /// The 1-based page number (`page`); `nil` uses the API's default of 1.
  public var page: Int?
  /// The sort direction; `nil` uses the API's default, descending.
  public var order: Order?
  /// The sort key; `nil` uses the API's default, activity.
  public var sort: Sort?
  /// Only questions having all of these tags (`tagged`, joined with `;`); empty means no
  /// filter. At most 5: the API returns nothing for more, so more is
  /// ``QueryError/tooManyTags(_:)``.
  public var tagged: [String]

  /// Creates a query; every parameter but `site` is optional.
  public init(
    site: String,
    pageSize: Int? = nil,
    page: Int? = nil,
    order: Order? = nil,
    sort: Sort? = nil,
    tagged: [String] = []
  ) {
    self.site = site
    self.pageSize = pageSize
    self.page = page
    self.order = order
    self.sort = sort
    self.tagged = tagged
  }

  /// The request URL: `baseURL`'s path with `/questions` appended, then
  /// `?site=…&page=…&pagesize=…&order=…&sort=…&tagged=a;b`, parameters omitted when `nil`
  /// or empty, values percent-encoded (only RFC 3986 unreserved characters stay literal, so
  /// `c++` becomes `c%2B%2B`).
  ///
  /// `baseURL` may carry a path such as `https://api.stackexchange.com/2.3`, which is kept.
  /// A query already on `baseURL` (e.g. `?key=…`) is kept in front of these parameters; a
  /// fragment is dropped.
  /// - Throws: `QueryError` when a parameter is invalid or `baseURL` is not an absolute
  ///   `http`/`https` URL with a host.
  public func url(baseURL: URL) throws(QueryError) -> URL {
    try validate()
    let absoluteURL = baseURL.absoluteURL
    guard let scheme = absoluteURL.scheme?.lowercased(), scheme == "http" || scheme == "https",
      var components = URLComponents(url: absoluteURL, resolvingAgainstBaseURL: false),
      let host = components.host, !host.isEmpty
    else { throw .invalidBaseURL(baseURL) }

    var path = components.percentEncodedPath
    while path.hasSuffix("/") {
      path.removeLast()
    }
    components.percentEncodedPath = path + "/questions"
    var query = encodedParameters.joined(separator: "&")
    if let existingQuery = components.percentEncodedQuery, !existingQuery.isEmpty {
      query = existingQuery + "&" + query
    }
    components.percentEncodedQuery = query
    components.fragment = nil
    guard let url = components.url else { throw .invalidBaseURL(baseURL) }
    return url
  }

  /// Throws the first problem with the parameters, if any.
  private func validate() throws(QueryError) {
    if site.allSatisfy(\.isWhitespace) { throw .emptySite }
    if let pageSize, !(1...100).contains(pageSize) { throw .pageSizeOutOfRange(pageSize) }
    if let page, page < 1 { throw .pageOutOfRange(page) }
    if let tag = tagged.first(where: { $0.isEmpty || $0.contains(";") }) {
      throw .invalidTag(tag)
    }
    if tagged.count > 5 { throw .tooManyTags(tagged.count) }
  }

  /// The API parameters in URL order as percent-encoded `name=value` pairs. Each tag is
  /// encoded on its own, so the `;` separating them stays literal as the API documents it.
  private var encodedParameters: [String] {
    var parameters = ["site=" + percentEncoded(site)]
    if let page { parameters.append("page=\(page)") }
    if let pageSize { parameters.append("pagesize=\(pageSize)") }
    if let order { parameters.append("order=" + order.rawValue) }
    if let sort { parameters.append("sort=" + sort.rawValue) }
    if !tagged.isEmpty {
      parameters.append("tagged=" + tagged.map(percentEncoded).joined(separator: ";"))
    }
    return parameters
  }
}

/// `value` as UTF-8 with every byte outside RFC 3986's unreserved set (`A-Z a-z 0-9 - . _ ~`)
/// percent-encoded, so it is safe as a query value whatever it contains (`&`, `=`, `+`, `#`).
private func percentEncoded(_ value: String) -> String {
  var encoded = ""
  for byte in value.utf8 {
    if byte.isASCIIAlphanumeric || "-._~".utf8.contains(byte) {
      encoded.unicodeScalars.append(Unicode.Scalar(byte))
    } else {
      let hex = String(byte, radix: 16, uppercase: true)
      encoded += byte < 0x10 ? "%0" + hex : "%" + hex
    }
  }
  return encoded
}
