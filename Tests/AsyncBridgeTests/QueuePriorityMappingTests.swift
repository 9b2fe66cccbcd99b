import Foundation
import Testing

@testable import AsyncBridge

/// The task-to-queue priority mapping matches on raw values; these pin it to the named
/// priorities, so a raw value that drifted from its name would fail here.
@Suite struct QueuePriorityMappingTests {
  @Test(arguments: [
    (TaskPriority.high, Operation.QueuePriority.high),
    (.userInitiated, .high),
    (.medium, .normal),
    (.low, .low),
    (.utility, .low),
    (.background, .veryLow),
  ])
  func namedPrioritiesMapAsDocumented(
    task: TaskPriority, queue: Operation.QueuePriority
  ) {
    #expect(Operation.QueuePriority(task) == queue)
  }

  @Test func prioritiesBetweenTheNamedOnesGoToTheNearerSideOfMedium() {
    let medium = TaskPriority.medium.rawValue
    #expect(Operation.QueuePriority(TaskPriority(rawValue: medium + 1)) == .high)
    #expect(Operation.QueuePriority(TaskPriority(rawValue: medium - 1)) == .low)
    #expect(Operation.QueuePriority(TaskPriority(rawValue: 255)) == .high)
    #expect(Operation.QueuePriority(TaskPriority(rawValue: 1)) == .low)
  }
}
