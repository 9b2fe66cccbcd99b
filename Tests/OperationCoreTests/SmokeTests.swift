import Foundation
import OperationCore
import Synchronization
import Testing

final class Echo: ConcurrentOperation<Int, any Error>, @unchecked Sendable {
  let value: Int
  init(_ value: Int, key: Int? = nil) {
    self.value = value
    if let key { super.init(coalescingKey: key) } else { super.init() }
  }
  override func main() { finish(returning: value) }
}

@Test func smokeEnqueueAndCoalesce() async throws {
  let manager = OperationQueueManager(name: "smoke")
  manager.isSuspended = true
  let results = Mutex<[Int]>([])
  let a = manager.enqueue(Echo(1, key: 7)) { r in results.withLock { $0.append(try! r.get()) } }
  let b = manager.enqueue(Echo(2, key: 7)) { r in results.withLock { $0.append(try! r.get()) } }
  #expect(a === b)
  let c = manager.enqueue(Echo(3, key: 8)) { _ in }
  c.cancel()
  manager.isSuspended = false
  await withCheckedContinuation { (k: CheckedContinuation<Void, Never>) in
    manager.queue.addBarrierBlock { k.resume() }
  }
  while !manager.isIdle { try await Task.sleep(for: .milliseconds(1)) }
  #expect(results.withLock { $0 } == [1, 1])
  #expect(c.isFinished && c.isCancelled)
  #expect(manager.outstandingOperationCount == 0)
}

@Test func smokeThroughput() async throws {
  let manager = OperationQueueManager(name: "smoke2")
  let count = Mutex(0)
  for i in 0..<20000 { manager.enqueue(Echo(i)) { _ in count.withLock { $0 += 1 } } }
  while !manager.isIdle { try await Task.sleep(for: .milliseconds(1)) }
  #expect(count.withLock { $0 } == 20000)
}
