import FixtureServer
import Foundation
import OperationCore
import OperationNetworking
import Synchronization
import TestSupport
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Which networking operations share one HTTP exchange.
@Suite struct NetworkingCoalescingTests {
  private static let url = URL(string: "http://127.0.0.1:9/items?page=1")!

  private func operation(
    _ request: URLRequest, coalescing: RequestCoalescing = .automatic
  ) -> NetworkingOperation<NetworkingPayload> {
    NetworkingOperation(
      request: request, session: NetworkingFixtures.session, coalescing: coalescing)
  }

  @Test func identicalConcurrentRequestsSendOneHTTPRequest() async throws {
    let server = try FixtureHTTPServer { _ in
      var response = FixtureResponse.json(NetworkingFixtures.payload)
      response.latency = .milliseconds(300)
      return response
    }
    defer { server.stop() }
    let manager = OperationQueueManager(name: "networking-coalescing")
    let request = URLRequest(url: server.url("/slow?site=stackoverflow"))
    let callers = 8
    let operations = (0..<callers).map { _ in operation(request) }
    let results = try await withDeadline(.seconds(30)) {
      try await withThrowingTaskGroup(of: NetworkingPayload.self) { group in
        for operation in operations {
          group.addTask { try await networkingResult(of: operation, on: manager).get() }
        }
        return try await group.reduce(into: []) { $0.append($1) }
      }
    }
    #expect(results == Array(repeating: NetworkingPayload(name: "swift", count: 3), count: callers))
    #expect(server.requestCount(path: "/slow") == 1)
  }

  @Test func optingOutSendsEveryRequest() async throws {
    let server = try FixtureHTTPServer { _ in
      var response = FixtureResponse.json(NetworkingFixtures.payload)
      response.latency = .milliseconds(100)
      return response
    }
    defer { server.stop() }
    let manager = OperationQueueManager(name: "networking-no-coalescing")
    let request = URLRequest(url: server.url("/slow"))
    let first = operation(request, coalescing: .never)
    let second = operation(request, coalescing: .never)
    _ = try await withDeadline(.seconds(30)) {
      async let firstResult = networkingResult(of: first, on: manager)
      async let secondResult = networkingResult(of: second, on: manager)
      return try await (firstResult.get(), secondResult.get())
    }
    #expect(server.requestCount(path: "/slow") == 2)
  }

  @Test func identicalGETsShareAKeyThatShowsOnlyMethodAndURL() throws {
    let key = try #require(operation(URLRequest(url: Self.url)).coalescingKey)
    #expect(key == operation(URLRequest(url: Self.url)).coalescingKey)
    #expect(key.description.hasSuffix("[GET http://127.0.0.1:9/items?page=1]"))
  }

  @Test func differentHeadersOrURLsDoNotShareAKey() throws {
    var authorized = URLRequest(url: Self.url)
    authorized.setValue("Bearer secret", forHTTPHeaderField: "Authorization")
    let plain = operation(URLRequest(url: Self.url)).coalescingKey
    #expect(operation(authorized).coalescingKey != plain)
    #expect(!(operation(authorized).coalescingKey?.description.contains("secret") ?? true))
    let otherPage = URLRequest(url: URL(string: "http://127.0.0.1:9/items?page=2")!)
    #expect(operation(otherPage).coalescingKey != plain)
  }

  @Test func unsafeMethodsAndOptingOutHaveNoKey() {
    var post = URLRequest(url: Self.url)
    post.httpMethod = "POST"
    post.httpBody = Data("{}".utf8)
    #expect(operation(post).coalescingKey == nil)
    #expect(operation(URLRequest(url: Self.url), coalescing: .never).coalescingKey == nil)
  }

  @Test func aCustomKeyCoalescesAnyMethod() {
    var post = URLRequest(url: Self.url)
    post.httpMethod = "POST"
    let first = NetworkingOperation<NetworkingPayload>(
      request: post, session: NetworkingFixtures.session, coalescingKey: "search")
    let second = NetworkingOperation<NetworkingPayload>(
      request: post, session: NetworkingFixtures.session, coalescingKey: "search")
    #expect(first.coalescingKey != nil)
    #expect(first.coalescingKey == second.coalescingKey)
    #expect(first.coalescingKey?.baseValue as? String == "search")
  }
}
