import Foundation
import OperationCore
import Testing

@testable import bridge_demo

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

@Suite struct FailureDescriptionTests {
  @Test func bothTimeoutsReadTheSameAndNameTheLimitThatExpired() {
    let operationTimeout = OperationTimeoutError(
      timeout: .seconds(30), operationName: "FetchQuestionsOperation")
    #expect(FailureDescription.oneLine(operationTimeout) == "the request timed out after 30 s")
    #expect(
      FailureDescription.oneLine(NetworkingError.transport(URLError(.timedOut)))
        == "the request timed out after 15 s")
    #expect(
      FailureDescription.oneLine(OperationTimeoutError(timeout: .milliseconds(1500)))
        == "the request timed out after 1.5 s")
  }

  @Test func anUnmappedTransportErrorKeepsItsCodeAndStaysShort() {
    let underlying = NSError(
      domain: NSURLErrorDomain, code: -1,
      userInfo: [NSLocalizedDescriptionKey: "something curl said\nover two lines"])
    let error = URLError(.unknown, userInfo: [NSUnderlyingErrorKey: underlying])

    #expect(
      FailureDescription.oneLine(NetworkingError.transport(error))
        == "the request failed: something curl said over two lines (URLError -1)")
  }
}
