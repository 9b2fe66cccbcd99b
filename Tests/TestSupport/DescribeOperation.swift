import LockedValue
import OperationCore

/// The one test downstream: turns its upstream's number into `"value <number>"` and records the
/// inputs `main(input:)` received. Its failure type is its upstream's.
public final class DescribeOperation<Failure: Error>: ChainedOperation<Int, String, Failure>,
  @unchecked Sendable
{
  // State lives in `inputs`, guarded by its lock.
  private let inputs = Locked<[Int]>([])

  /// The inputs `main(input:)` received, in order.
  public var receivedInputs: [Int] { inputs.withLock { $0 } }

  /// Records `input` and finishes with its description.
  public override func main(input: Int) {
    inputs.withLock { $0.append(input) }
    finish(returning: "value \(input)")
  }
}
