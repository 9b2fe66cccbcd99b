import Foundation
import Testing

@testable import bridge_demo

@Suite struct BaseURLTests {
  @Test(arguments: [
    ("http://127.0.0.1:0", "a port from 1 to 65535"),
    ("http://127.0.0.1:65536", "a port from 1 to 65535"),
    ("https://example.com:99999/2.3", "a port from 1 to 65535"),
    ("http://a..b", "a host name or IP address"),
    ("http://-a.example", "a host name or IP address"),
    ("http://a-.example", "a host name or IP address"),
    ("http://a_b.example", "a host name or IP address"),
    ("http://999.1.1.1", "a host name or IP address"),
    ("http://1.2.3", "a host name or IP address"),
    ("http://a%20b.example", "a host name or IP address"),
  ])
  func portsOutOfRangeAndMalformedHostsAreRefused(text: String, expected: String) {
    #expect(throws: BaseURL.Rejection(expected: expected)) { try BaseURL.parse(text) }
  }

  @Test(arguments: [
    ("HTTP://127.0.0.1:8080/2.3", "http://127.0.0.1:8080/2.3"),
    ("HttpS://api.stackexchange.com/2.3", "https://api.stackexchange.com/2.3"),
    ("http://localhost:65535", "http://localhost:65535"),
    ("http://[::1]:8080", "http://[::1]:8080"),
    ("http://example.com./x", "http://example.com./x"),
    ("http://10.0.0.255", "http://10.0.0.255"),
    // Internationalised names, as written in their ASCII form or not: checked and sent in it.
    ("http://xn--bcher-kva.example:8080", "http://xn--bcher-kva.example:8080"),
    ("http://bücher.example/2.3", "http://xn--bcher-kva.example/2.3"),
  ])
  func wellFormedURLsPassWithTheSchemeInLowerCase(text: String, expected: String) throws {
    #expect(try BaseURL.parse(text).absoluteString == expected)
  }
}
