import FixtureServer
import Foundation
import OperationBridgeTesting
import OperationCore
import OperationNetworking
import TestSupport

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The body the happy path decodes.
struct NetworkingPayload: Decodable, Sendable, Equatable {
  let name: String
  let count: Int
}

/// A server error body shaped like the StackExchange API's.
struct NetworkingAPIError: ServerErrorBody, Equatable, CustomStringConvertible {
  let errorID: Int
  let errorMessage: String
  let errorName: String

  var description: String { "\(errorName): \(errorMessage)" }

  private enum CodingKeys: String, CodingKey {
    case errorID = "error_id"
    case errorMessage = "error_message"
    case errorName = "error_name"
  }
}

/// Canned bodies.
enum NetworkingFixtures {
  static let payload = Data(#"{"name":"swift","count":3}"#.utf8)
  static let apiError = Data(
    #"{"error_id":400,"error_message":"site is required","error_name":"bad_parameter"}"#.utf8)
  static let html =
    "<html>\n<head><title>503 Service Unavailable</title></head>\n<body>down</body></html>"

  /// One session for every networking test, as the operation's documentation asks.
  static let session = URLSession.makeNetworkingSession(timeout: .seconds(60))
}

extension FixtureResponse {
  /// No answer for far longer than any test waits: the server holds the connection open,
  /// notices when the client closes it and counts that as an abandoned response.
  static let hanging = FixtureResponse(latency: .seconds(3_600))
}

/// A networking operation that keeps its queue slot when cancelled, until its data task (or its
/// retry wait) has stopped.
final class SlotKeeping<Payload: Decodable & Sendable>: NetworkingOperation<Payload>,
  @unchecked Sendable
{
  override var finishesImmediatelyWhenCancelled: Bool { false }
}

/// Enqueues `operation` and waits for its result.
func networkingResult<Value>(
  of operation: NetworkingOperation<Value>, on manager: OperationQueueManager,
  within timeout: Duration = .testTimeout
) async -> Result<Value, any Error> {
  await enqueuedResult(of: operation, on: manager, within: timeout)
    ?? .failure(WaitExpired(condition: "a result", bound: timeout))
}
