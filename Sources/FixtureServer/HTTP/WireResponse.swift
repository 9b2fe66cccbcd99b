import Foundation

/// The bytes a ``FixtureResponse`` turns into on the wire, and how the connection ends.
struct WireResponse {
  /// How the server closes the connection after sending.
  enum Ending {
    /// FIN, after reading what the client still sends.
    case graceful
    /// RST (`SO_LINGER` 0).
    case reset
  }

  /// Bytes sent in one piece by the slow-drip fault.
  static let dripChunkSize = 4

  /// Status line and header fields up to the empty line; empty when nothing is sent.
  var head: Data
  /// Body bytes to send after ``head``.
  var body: Data
  /// When set, ``body`` is sent ``dripChunk`` bytes at a time with this pause in between.
  var dripInterval: Duration?
  /// Bytes in each send while dripping.
  var dripChunk = WireResponse.dripChunkSize
  /// How the connection ends.
  var ending: Ending
  /// When set, the pause between ``head`` and ``body``.
  var pauseAfterHead: Duration? = nil
  /// When set, sent again and again after ``body``, with ``dripInterval`` between sends, until
  /// the client goes away.
  var endlessChunk: Data? = nil

  /// Bytes in each send of an endless body.
  static let endlessChunkSize = 16 * 1024
}
