import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Turns what a data task delivered into a decoded value or a ``NetworkingError``. A value type
/// with no side effects, so every mapping rule can be tested without a network.
struct HTTPResponseValidation: Sendable {
  /// How many bytes of a body a failure keeps, as lossy UTF-8, for diagnostics.
  static let excerptByteCount = 200

  var decoder: JSONDecoder
  var maxResponseBytes: Int
  var serverErrorType: (any ServerErrorBody.Type)?

  /// The failure for a data task that ended with `error`.
  static func transportFailure(_ error: any Error) -> NetworkingError {
    if let urlError = error as? URLError { return .transport(urlError) }
    return .transport(URLError(.unknown, userInfo: [NSUnderlyingErrorKey: error]))
  }

  /// Checks, in order: the response is HTTP; its announced length, then its actual length, fit
  /// the limit (the announced length is the compressed size for gzip, so it is only a lower
  /// bound, good for early rejection); the status is 2xx; there is a body; the body decodes.
  func decode<Value: Decodable>(
    _ type: Value.Type, data: Data?, response: URLResponse?
  ) -> Result<Value, NetworkingError> {
    guard let response = response as? HTTPURLResponse else {
      return .failure(.nonHTTPResponse(response))
    }
    if response.expectedContentLength > Int64(maxResponseBytes) {
      return .failure(
        .responseTooLarge(
          byteCount: Int(clamping: response.expectedContentLength), limit: maxResponseBytes))
    }
    if let data, data.count > maxResponseBytes {
      return .failure(.responseTooLarge(byteCount: data.count, limit: maxResponseBytes))
    }
    let statusCode = response.statusCode
    guard (200..<300).contains(statusCode) else {
      let body = data ?? Data()
      return .failure(
        .badStatus(
          statusCode: statusCode, serverError: serverError(in: body),
          bodyExcerpt: Self.excerpt(of: body)))
    }
    guard let data, !data.isEmpty else { return .failure(.noData(statusCode: statusCode)) }
    do {
      return .success(try decoder.decode(Value.self, from: data))
    } catch let error as DecodingError {
      return .failure(
        .undecodable(Self.clarified(error, body: data), bodyExcerpt: Self.excerpt(of: data)))
    } catch {
      let context = DecodingError.Context(
        codingPath: [], debugDescription: "\(error)", underlyingError: error)
      return .failure(.undecodable(.dataCorrupted(context), bodyExcerpt: Self.excerpt(of: data)))
    }
  }

  /// The body decoded as the server error type, if one is set and the body matches it.
  func serverError(in body: Data) -> (any Error & Sendable)? {
    guard let serverErrorType, !body.isEmpty else { return nil }
    return decodeServerError(serverErrorType, from: body)
  }

  private func decodeServerError<ServerError: ServerErrorBody>(
    _ type: ServerError.Type, from body: Data
  ) -> ServerError? {
    try? decoder.decode(type, from: body)
  }

  /// `error`, unless it claims that a `body` which parses as JSON is not JSON: Foundation's
  /// `JSONDecoder` (swift-corelibs-foundation 6.3.1) says "The given data was not valid JSON.",
  /// with no coding path, for a number it cannot convert (`1.5` or `1e30` where an `Int` is
  /// expected). The error then says what is known.
  static func clarified(_ error: DecodingError, body: Data) -> DecodingError {
    guard case .dataCorrupted(let context) = error, context.codingPath.isEmpty,
      context.debugDescription == "The given data was not valid JSON.",
      (try? JSONSerialization.jsonObject(with: body, options: .fragmentsAllowed)) != nil
    else { return error }
    return .dataCorrupted(
      DecodingError.Context(
        codingPath: [],
        debugDescription: "valid JSON, but a value does not convert to its type (say, a "
          + "number with a fraction or an exponent where an integer is expected)",
        underlyingError: context.underlyingError))
  }

  /// The first bytes of `data` as lossy UTF-8.
  static func excerpt(of data: Data) -> String {
    String(decoding: data.prefix(excerptByteCount), as: UTF8.self)
  }
}
