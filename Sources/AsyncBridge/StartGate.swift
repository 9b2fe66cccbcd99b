import OperationCore
import Synchronization

/// What a run's task hands its closure's outcome to: the operation that started it.
@usableFromInline
protocol RunOwner: AnyObject, Sendable {
  /// Ends the operation with the closure's outcome. Only the first call counts.
  func settle(erased outcome: ErasedOutcome)
}

/// The task executor a run's task prefers: it holds the task's first job, so a task made in its
/// caller's context (which copies the caller's task-local values and takes its priority) starts
/// only when its operation does, and then on the thread that starts it, with no hop. The task's
/// later jobs go to the global concurrent executor.
///
/// The task holds its gate (a task retains the executor it prefers), and the gate holds nothing
/// else once the task has taken its owner: no cycle through the operation. Lock-free: each
/// value it stores is written once, before an atomic store or exchange publishes it, and read
/// only after acquiring that.
@usableFromInline
final class StartGate: TaskExecutor, @unchecked Sendable {
  // Stages.
  /// The task is being made; its first job comes next.
  private static var awaitingTask: UInt8 { 0 }
  /// The task's first job is held until the operation starts or goes.
  private static var holding: UInt8 { 1 }
  /// Being let go: one caller of `open` took the job.
  private static var opening: UInt8 { 2 }
  /// Let go, with the owner the task settles (nil when the operation went without starting).
  private static var opened: UInt8 { 3 }

  private let stage = Atomic<UInt8>(0)
  // The stage orders every access to these: the dynamic exclusivity check guards nothing here.
  @exclusivity(unchecked) private var job: UnownedJob?
  @exclusivity(unchecked) private var owner: (any RunOwner)?

  @usableFromInline
  init() {}

  /// Holds the task's first job; passes on every later one.
  @usableFromInline
  func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    // The first job comes while the task is made, before anything else can reach the gate;
    // a later one only after the first ran, so after the gate was opened.
    guard stage.load(ordering: .relaxed) == Self.awaitingTask else {
      globalConcurrentExecutor.enqueue(ExecutorJob(job))
      return
    }
    self.job = job
    stage.store(Self.holding, ordering: .releasing)
  }

  /// Starts the task for `owner` on the calling thread: it runs until its first suspension
  /// before this returns.
  func start(for owner: any RunOwner) {
    guard let job = open(owner) else { return }
    job.runSynchronously(on: asUnownedTaskExecutor())
  }

  /// Lets the task go without running its closure (the operation was cancelled before it
  /// started, or went without starting): it ends on the global concurrent executor.
  func discard() {
    guard let job = open(nil) else { return }
    globalConcurrentExecutor.enqueue(ExecutorJob(job))
  }

  /// The owner the task settles, taken once by the task's first job (nil: the task ends
  /// without running its closure).
  @usableFromInline
  func takeOwner() -> (any RunOwner)? {
    guard stage.load(ordering: .acquiring) == Self.opened else { return nil }
    return owner.take()
  }

  /// Takes the held job, recording `owner` for the task; nil if the gate was opened before.
  private func open(_ owner: (any RunOwner)?) -> UnownedJob? {
    let (exchanged, _) = stage.compareExchange(
      expected: Self.holding, desired: Self.opening, ordering: .acquiring)
    guard exchanged else { return nil }
    self.owner = owner
    let job = self.job.take()
    stage.store(Self.opened, ordering: .releasing)
    return job
  }
}
