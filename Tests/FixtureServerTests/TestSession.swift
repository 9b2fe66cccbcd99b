import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// What a data task delivered.
struct FetchResult: Sendable {
  let data: Data?
  let response: HTTPURLResponse?
  let error: URLError?

  /// The HTTP status, or -1 without a response.
  var status: Int { response?.statusCode ?? -1 }
}

/// An ephemeral session with no cache, as the platform notes recommend (one per test file).
func makeTestSession(maxConnectionsPerHost: Int = 6) -> URLSession {
  let configuration = URLSessionConfiguration.ephemeral
  configuration.urlCache = nil
  configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
  configuration.httpMaximumConnectionsPerHost = maxConnectionsPerHost
  return URLSession(configuration: configuration)
}

extension URLSession {
  /// Runs a data task with a completion handler (not `data(for:)`, see docs/PLATFORM-NOTES.md).
  /// The request times out after 60 s by default, as every request of the suite that must not
  /// time out does (docs/RELIABILITY.md): a loaded machine can hold up a loopback request for
  /// seconds.
  func fetch(_ url: URL, timeout: TimeInterval = 60) async -> FetchResult {
    var request = URLRequest(url: url)
    request.timeoutInterval = timeout
    return await fetch(request)
  }

  /// Runs a data task for `request` with a completion handler.
  func fetch(_ request: URLRequest) async -> FetchResult {
    await withCheckedContinuation { continuation in
      startFetch(request) { continuation.resume(returning: $0) }.resume()
    }
  }

  /// Creates (but does not resume) a data task that reports its outcome to `completion`.
  func startFetch(
    _ request: URLRequest, completion: @escaping @Sendable (FetchResult) -> Void
  ) -> URLSessionDataTask {
    dataTask(with: request) { data, response, error in
      completion(
        FetchResult(
          data: data, response: response as? HTTPURLResponse, error: error as? URLError))
    }
  }
}
