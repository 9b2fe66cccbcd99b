import AsyncBridge
import Foundation
import OperationCore
import Synchronization
import Testing

final class Held: ConcurrentOperation<Int, any Error>, @unchecked Sendable {
  init(key: Int) { super.init(coalescingKey: key) }
  override func main() {}
  func release(_ v: Int) { finish(returning: v) }
}

@Test func smokeAwaitCancelOneOfTwo() async throws {
  let manager = OperationQueueManager(name: "a")
  manager.isSuspended = true
  let op = Held(key: 1)
  let t1 = Task { try await manager.perform(op) }
  let t2 = Task { try await manager.perform(Held(key: 1)) }
  while op.coalescingKey.flatMap({ manager.inFlightOperation(for: $0) }) == nil { await Task.yield() }
  try await Task.sleep(for: .milliseconds(50))
  t1.cancel()
  await #expect(throws: CancellationError.self) { try await t1.value }
  #expect(!op.isCancelled)
  manager.isSuspended = false
  while !op.isExecuting { await Task.yield() }
  op.release(5)
  #expect(try await t2.value == 5)
  try await manager.waitUntilIdle()
}

@Test func smokeRunClosure() async throws {
  let manager = OperationQueueManager(name: "b", maxConcurrentOperationCount: 2)
  let v = try await manager.run { 42 }
  #expect(v == 42)
  let t = Task { try await manager.run { try await Task.sleep(for: .seconds(10)); return 1 } }
  try await Task.sleep(for: .milliseconds(20))
  t.cancel()
  await #expect(throws: CancellationError.self) { try await t.value }
  try await manager.waitUntilIdle()
}
