import Foundation
import Testing

@testable import FixtureServer

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

private let session = makeTestSession()

@Suite struct GzipTests {
  @Test func crc32MatchesTheStandardCheckValue() {
    #expect(Gzip.crc32(Data("123456789".utf8)) == 0xCBF4_3926)
    #expect(Gzip.crc32(Data()) == 0)
    #expect(Gzip.crc32(Data("The quick brown fox jumps over the lazy dog".utf8)) == 0x414F_A339)
  }

  @Test func compressWritesHeaderStoredBlocksAndTrailer() {
    let input = Data(repeating: 0x61, count: 70_000)

    let member = [UInt8](Gzip.compress(input))

    #expect(Array(member[0..<4]) == [0x1F, 0x8B, 0x08, 0x00])
    // Two stored blocks: 65,535 bytes (not final), then 4,465 bytes (final).
    #expect(Array(member[10..<15]) == [0x00, 0xFF, 0xFF, 0x00, 0x00])
    #expect(Array(member[65_550..<65_555]) == [0x01, 0x71, 0x11, 0x8E, 0xEE])
    #expect(member.count == 10 + 5 + 65_535 + 5 + 4_465 + 8)
    let crc = Gzip.crc32(input)
    let trailer = Array(member.suffix(8))
    #expect(trailer[0..<4].elementsEqual(withUnsafeBytes(of: crc.littleEndian, Array.init)))
    #expect(
      trailer[4..<8].elementsEqual(withUnsafeBytes(of: UInt32(70_000).littleEndian, Array.init)))
  }

  @Test func compressingNothingGivesOneEmptyFinalBlock() {
    #expect(
      [UInt8](Gzip.compress(Data()))
        == [
          0x1F, 0x8B, 0x08, 0, 0, 0, 0, 0, 0, 0xFF, 0x01, 0, 0, 0xFF, 0xFF, 0, 0, 0, 0, 0, 0, 0, 0,
        ]
    )
  }

  @Test(arguments: [0, 1, 65_535, 65_536, 200_003])
  func gzipBodiesRoundTripThroughURLSession(size: Int) async throws {
    let body = Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 9) })
    let server = try FixtureHTTPServer { _ in
      FixtureResponse(body: body, contentEncoding: .gzip)
    }

    let result = await session.fetch(server.url("/blob"))

    #expect(result.error == nil)
    #expect(result.response?.value(forHTTPHeaderField: "Content-Encoding") == "gzip")
    // URLSession on Linux inflates gzip bodies itself.
    #expect(result.data == body)
  }
}
