import Foundation
import TestSupport
import Testing

@testable import FixtureServer

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

private let session = makeTestSession()

@Suite struct FixtureHTTPServerTests {
  @Test func servesResponsesAndCountsRequestsPerPath() async throws {
    let server = try FixtureHTTPServer { request in .text("you asked for \(request.path)") }

    let first = await session.fetch(server.url("/alpha?x=1"))
    _ = await session.fetch(server.url("/alpha?x=2"))
    _ = await session.fetch(server.url("/beta"))

    #expect(first.error == nil)
    #expect(first.status == 200)
    #expect(first.data.map { String(decoding: $0, as: UTF8.self) } == "you asked for /alpha")
    #expect(
      first.response?.value(forHTTPHeaderField: "Content-Type") == "text/plain; charset=utf-8")
    #expect(server.requestCount == 3)
    #expect(server.requestCount(path: "/alpha") == 2)
    #expect(server.requestCount(path: "/beta") == 1)
    #expect(server.requestCount(path: "/gamma") == 0)
    #expect(server.baseURL.absoluteString == "http://127.0.0.1:\(server.port)")
  }

  @Test func waitingForRequestsToOnePathIgnoresOtherPaths() async throws {
    let server = try FixtureHTTPServer { _ in .text("hi") }
    let other = try #require(RawHTTPClient(port: server.port))
    other.write("GET /other HTTP/1.1\r\nHost: x\r\n\r\n")
    _ = other.readToEnd()

    #expect(await server.waitForRequests(1, path: "/wanted", timeout: .milliseconds(100)) == false)

    let wanted = try #require(RawHTTPClient(port: server.port))
    wanted.write("GET /wanted?page=1 HTTP/1.1\r\nHost: x\r\n\r\n")
    _ = wanted.readToEnd()

    #expect(await server.waitForRequests(1, path: "/wanted", timeout: .seconds(30)))
    #expect(server.requestCount == 2)
  }

  @Test func passesMethodPathQueryHeadersAndBodyToTheResponder() async throws {
    let requests = Recorder<FixtureRequest>()
    let server = try FixtureHTTPServer { request in
      requests.record(request)
      return .json(Data("{}".utf8), status: 201)
    }
    var request = URLRequest(url: server.url("/2.3/a%20b?site=stackoverflow&q=caf%C3%A9&site=x"))
    request.httpMethod = "POST"
    request.httpBody = Data("payload".utf8)
    request.setValue("Yes", forHTTPHeaderField: "X-Fixture-Test")

    let result = await session.fetch(request)

    #expect(result.status == 201)
    let received = try #require(requests.values.first)
    #expect(received.method == "POST")
    #expect(received.path == "/2.3/a b")
    #expect(received.target == "/2.3/a%20b?site=stackoverflow&q=caf%C3%A9&site=x")
    #expect(received.query == ["site": "stackoverflow", "q": "café"])
    #expect(received.header("x-fixture-test") == "Yes")
    #expect(received.header("X-FIXTURE-TEST") == "Yes")
    #expect(received.header("host") == "127.0.0.1:\(server.port)")
    #expect(received.body == Data("payload".utf8))
  }

  @Test func readsLargeRequestBodiesCompletely() async throws {
    let bodies = Recorder<Data>()
    let server = try FixtureHTTPServer { request in
      bodies.record(request.body)
      return .text("ok")
    }
    let payload = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
    var request = URLRequest(url: server.url("/upload"))
    request.httpMethod = "PUT"
    request.httpBody = payload

    let result = await session.fetch(request)

    #expect(result.status == 200)
    #expect(bodies.values == [payload])
  }

  @Test func sendsNoBodyForNoContentAndHeadRequests() async throws {
    let server = try FixtureHTTPServer { request in
      request.path == "/empty" ? FixtureResponse(status: 204) : .text("twelve bytes")
    }
    var head = URLRequest(url: server.url("/text"))
    head.httpMethod = "HEAD"

    let noContent = await session.fetch(server.url("/empty"))
    let headResult = await session.fetch(head)

    #expect(noContent.status == 204)
    #expect(noContent.data == Data())
    #expect(headResult.status == 200)
    #expect(headResult.data == Data())
    #expect(headResult.response?.value(forHTTPHeaderField: "Content-Length") == "12")
  }

  @Test func responderHeadersAreSentButServerManagedOnesAreIgnored() async throws {
    let server = try FixtureHTTPServer { _ in
      FixtureResponse(
        headers: ["X-Trace": "abc", "Content-Length": "999", "Connection": "keep-alive"],
        body: Data("body".utf8))
    }

    let result = await session.fetch(server.url("/"))

    #expect(result.error == nil)
    #expect(result.data == Data("body".utf8))
    #expect(result.response?.value(forHTTPHeaderField: "X-Trace") == "abc")
    #expect(result.response?.value(forHTTPHeaderField: "Content-Length") == "4")
    #expect(result.response?.value(forHTTPHeaderField: "Connection") == "close")
  }

  @Test func stopIsIdempotentAndRefusesNewConnections() throws {
    let server = try FixtureHTTPServer { _ in .text("hi") }
    #expect(RawHTTPClient(port: server.port) != nil)

    server.stop()
    server.stop()

    #expect(RawHTTPClient(port: server.port) == nil)
  }

  @Test func stopEndsConnectionsThatAreStillWaiting() async throws {
    let server = try FixtureHTTPServer { _ in
      FixtureResponse(body: Data("late".utf8), latency: .seconds(120))
    }
    let client = try #require(RawHTTPClient(port: server.port))
    client.write("GET /slow HTTP/1.1\r\nHost: x\r\n\r\n")
    #expect(await server.waitForRequests(1, timeout: .seconds(30)))
    let clock = ContinuousClock()
    let start = clock.now

    server.stop()
    let reply = client.readToEnd()

    // Well before the 120 s latency would have ended the connection.
    #expect(clock.now - start < .seconds(10))
    #expect(reply.isEmpty)
    #expect(server.abandonedResponseCount == 0)
  }
}
