import Foundation
import LockedValue
import OperationCore
import TestSupport

/// A different operation class, to check that equal keys of different classes never join.
final class OtherManualOperation: ManualOperation, @unchecked Sendable {}

/// Results delivered to completion handlers, for inspection.
typealias ResultRecorder = Recorder<Result<Int, any Error>>
