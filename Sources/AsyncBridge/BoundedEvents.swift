import OperationCore

/// Unread events, at most `capacity`: appending to a full buffer drops the oldest.
///
/// Once full, the events form a ring: a new event takes the oldest one's slot, so dropping
/// costs no moves. (Dropping from the front of an array moved every kept event, through the
/// standard library's unspecialised code, which retained and released each one.)
///
/// Two arrays take turns: the one filling, and the consumer's batch, which comes back emptied
/// as the `spare`. A fresh array for every batch was reallocated and copied about ten times on
/// its way to a full one.
struct BoundedEvents {
  private var events: [OperationEvent] = []
  /// Where the oldest event is, once `events` is full; 0 before.
  private var oldest = 0
  /// Storage for the next batch once this one is taken: empty, perhaps with capacity.
  private var spare: [OperationEvent] = []
  private let capacity: Int

  init(capacity: Int) {
    self.capacity = capacity
  }

  /// Appends `event`, dropping the oldest unread one when full.
  mutating func append(_ event: consuming OperationEvent) {
    guard events.count == capacity else {
      events.append(event)
      return
    }
    events[oldest] = event
    oldest = oldest == capacity - 1 ? 0 : oldest + 1
  }

  /// The unread events, oldest first; the buffer is empty afterwards, filling the spare.
  mutating func takeAll() -> [OperationEvent] {
    if events.isEmpty { return [] }
    if oldest > 0 {
      // Rotates the ring into order in place, swapping through a buffer pointer: events move
      // without being retained. (Reversing the array's own slices copied them.)
      events.withUnsafeMutableBufferPointer { [oldest] ring in
        ring[..<oldest].reverse()
        ring[oldest...].reverse()
        ring.reverse()
      }
      oldest = 0
    }
    defer {
      events = spare
      spare = []
    }
    return events
  }

  /// Drops everything, storage included, and returns what it held (to be released by the
  /// caller, outside any lock).
  mutating func removeAll() -> BoundedEvents {
    var dropped = BoundedEvents(capacity: capacity)
    swap(&self, &dropped)
    return dropped
  }

  /// Keeps `batch`'s storage as the spare, if it is empty and larger than the spare's; `batch`
  /// is left holding the storage not kept.
  mutating func recycle(_ batch: inout [OperationEvent]) {
    guard batch.isEmpty, batch.capacity > spare.capacity else { return }
    swap(&spare, &batch)
  }
}
