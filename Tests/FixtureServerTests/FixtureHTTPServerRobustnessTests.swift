import Foundation
import TestSupport
import Testing

@testable import FixtureServer

/// Requests URLSession would never send, written on a raw socket.
@Suite struct FixtureHTTPServerRobustnessTests {
  private func exchange(_ request: String, responder: FixtureResponse = .text("fine")) throws
    -> (reply: String, server: FixtureHTTPServer)
  {
    let server = try FixtureHTTPServer { _ in responder }
    let client = try #require(RawHTTPClient(port: server.port))
    client.write(request)
    return (client.readToEnd(), server)
  }

  @Test func malformedRequestLineGets400() throws {
    let (reply, server) = try exchange("HELLO THERE\r\n\r\n")

    #expect(reply.hasPrefix("HTTP/1.1 400 Bad Request\r\n"))
    #expect(reply.hasSuffix("\r\n\r\nmalformed request line\n"))
    #expect(server.requestCount == 0)
  }

  @Test func malformedHeaderLineGets400() throws {
    let (reply, _) = try exchange("GET / HTTP/1.1\r\nHost: x\r\nno colon here\r\n\r\n")

    #expect(reply.hasPrefix("HTTP/1.1 400 "))
  }

  @Test func http11RequestWithoutHostGets400() throws {
    let (reply, _) = try exchange("GET / HTTP/1.1\r\nAccept: */*\r\n\r\n")

    #expect(reply.hasPrefix("HTTP/1.1 400 "))
    #expect(reply.hasSuffix("missing Host\n"))
  }

  @Test func invalidContentLengthGets400() throws {
    let (reply, _) = try exchange("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\n")

    #expect(reply.hasPrefix("HTTP/1.1 400 "))
  }

  @Test func oversizedRequestHeadGets431() throws {
    let filler = String(
      repeating: "X-Filler: \(String(repeating: "a", count: 1000))\r\n", count: 70)
    let (reply, server) = try exchange("GET / HTTP/1.1\r\nHost: x\r\n\(filler)\r\n")

    #expect(reply.hasPrefix("HTTP/1.1 431 "))
    #expect(server.requestCount == 0)
  }

  @Test func oversizedRequestBodyGets413() throws {
    let (reply, _) = try exchange("PUT / HTTP/1.1\r\nHost: x\r\nContent-Length: 5000000\r\n\r\n")

    #expect(reply.hasPrefix("HTTP/1.1 413 "))
  }

  @Test func chunkedRequestBodiesGet501() throws {
    let (reply, _) = try exchange(
      "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n")

    #expect(reply.hasPrefix("HTTP/1.1 501 "))
  }

  @Test func requestArrivingOneByteAtATimeIsReassembled() throws {
    let paths = Recorder<String>()
    let server = try FixtureHTTPServer { request in
      paths.record(request.path + " " + String(decoding: request.body, as: UTF8.self))
      return .text("fine")
    }
    let client = try #require(RawHTTPClient(port: server.port))

    for byte in "POST /pieces HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\n\r\nbody".utf8 {
      client.write(Data([byte]))
      usleep(300)
    }
    let reply = client.readToEnd()

    #expect(reply.hasPrefix("HTTP/1.1 200 OK\r\n"))
    #expect(reply.hasSuffix("\r\n\r\nfine"))
    #expect(paths.values == ["/pieces body"])
  }

  @Test func bareLineFeedsAreAccepted() throws {
    let (reply, server) = try exchange("GET /lf HTTP/1.0\nHost: x\n\n")

    #expect(reply.hasPrefix("HTTP/1.1 200 OK\r\n"))
    #expect(server.requestCount(path: "/lf") == 1)
  }

  @Test func expectContinueGetsAnInterimResponseBeforeTheBody() throws {
    let server = try FixtureHTTPServer { request in .text("got \(request.body.count) bytes") }
    let client = try #require(RawHTTPClient(port: server.port))
    client.write("PUT / HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 3\r\n\r\n")
    let interim = "HTTP/1.1 100 Continue\r\n\r\n"
    var buffer = [UInt8](repeating: 0, count: interim.utf8.count)

    let count = client.read(into: &buffer)
    client.write("abc")
    let reply = client.readToEnd()

    #expect(String(decoding: buffer[..<max(count, 0)], as: UTF8.self) == interim)
    #expect(reply.hasPrefix("HTTP/1.1 200 OK\r\n"))
    #expect(reply.hasSuffix("got 3 bytes"))
  }

  @Test func clientsThatLeaveBeforeARequestIsCompleteAreNotCounted() async throws {
    let server = try FixtureHTTPServer { _ in .text("fine") }
    RawHTTPClient(port: server.port)?.disconnect()
    let halfway = try #require(RawHTTPClient(port: server.port))
    halfway.write("GET /half")
    halfway.disconnect()
    let complete = try #require(RawHTTPClient(port: server.port))

    complete.write("GET /whole HTTP/1.1\r\nHost: x\r\n\r\n")

    #expect(complete.readToEnd().hasPrefix("HTTP/1.1 200 OK\r\n"))
    #expect(await server.waitForRequests(2, timeout: .milliseconds(200)) == false)
    #expect(server.requestCount(path: "/whole") == 1)
    #expect(server.abandonedResponseCount == 0)
  }

  @Test func clientDisconnectDuringLatencyIsNoticedAtOnce() async throws {
    let clock = ContinuousClock()
    // Timestamps taken on the server's connection thread, so a busy test pool cannot skew them.
    let noticed = Recorder<(path: String, at: ContinuousClock.Instant)>()
    // The latency is long enough that a test task held up for seconds on a loaded machine still
    // disconnects while the server waits.
    let server = try FixtureHTTPServer(onAbandonedResponse: { noticed.record(($0.path, clock.now)) }
    ) {
      _ in FixtureResponse(body: Data("too late".utf8), latency: .seconds(120))
    }
    let client = try #require(RawHTTPClient(port: server.port))
    client.write("GET /slow HTTP/1.1\r\nHost: x\r\n\r\n")
    #expect(await server.waitForRequests(1, timeout: .seconds(30)))
    try await Task.sleep(for: .milliseconds(20))
    let start = clock.now

    client.disconnect()

    #expect(await server.waitForAbandonedResponses(1, timeout: .seconds(30)))
    let event = try #require(noticed.values.first)
    #expect(event.path == "/slow")
    // Typically 50–80 µs (poll() wakes on the FIN); the bound leaves room for an oversubscribed
    // 2-core CI machine under ThreadSanitizer, while a server that only noticed after its
    // latency would take 120 s.
    #expect(event.at - start < .seconds(5))
  }

  @Test func clientClosingDuringALargeResponseDoesNotCrashTheServer() async throws {
    let server = try FixtureHTTPServer { request in
      request.path == "/huge"
        ? FixtureResponse(body: Data(count: 32 * 1024 * 1024)) : .text("still alive")
    }
    let client = try #require(RawHTTPClient(port: server.port))
    client.write("GET /huge HTTP/1.1\r\nHost: x\r\n\r\n")
    var firstBytes = [UInt8](repeating: 0, count: 1024)
    #expect(client.read(into: &firstBytes) > 0)

    client.disconnect()

    #expect(await server.waitForAbandonedResponses(1, timeout: .seconds(30)))
    let again = try #require(RawHTTPClient(port: server.port))
    again.write("GET /small HTTP/1.1\r\nHost: x\r\n\r\n")
    #expect(again.readToEnd().hasSuffix("\r\n\r\nstill alive"))
  }
}
