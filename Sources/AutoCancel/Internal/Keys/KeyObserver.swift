/// A follower of whether work runs under one key: hands each change to `send`, one at a time,
/// in order, and calls `finish` once, at the end.
///
/// Changes are decided under the bag's lock, each with a number one higher than the last, but
/// told after it, on the threads that caused them: two threads may offer theirs in either
/// order. The observer keeps only the newest change it was offered, and one thread at a time
/// delivers until nothing newer is left, so that `send` is never called concurrently, a value
/// equal to the last one sent is never sent again, and the last value sent is the key's state
/// after the last change. Nothing is sent under a lock (`send` resumes the consumer).
final class KeyObserver: Sendable {
  private struct Delivery: Sendable {
    /// The newest change offered: its number and the key's state after it.
    var version: UInt64 = 0
    var isRunning = false
    /// Whether a change was offered yet (the first one is the state when following began).
    var hasValue = false
    /// The last state sent.
    var sent: Bool?
    /// Following ends once the newest state is sent.
    var ends = false
    /// `finish` was called, or the consumer went away: nothing more is sent.
    var isFinished = false
    /// A thread is delivering: others leave their change to it.
    var isDelivering = false
  }

  private enum Step {
    case send(Bool)
    case finish
    case stop
  }

  /// Unique among the observers of the bag.
  let id: Int
  private let send: @Sendable (Bool) -> Void
  private let finish: @Sendable () -> Void
  private let delivery = Locked(Delivery())

  init(id: Int, send: @escaping @Sendable (Bool) -> Void, finish: @escaping @Sendable () -> Void) {
    self.id = id
    self.send = send
    self.finish = finish
  }

  /// Offers change number `version`, after which the key is running or not; `ends` says that
  /// nothing will follow it. Call after the bag's lock; delivers on this thread unless
  /// another thread is delivering already.
  func offer(isRunning: Bool, version: UInt64, ends: Bool) {
    let delivers = delivery.withLock { delivery -> Bool in
      if !delivery.hasValue || version > delivery.version {
        (delivery.version, delivery.isRunning, delivery.hasValue) = (version, isRunning, true)
      }
      if ends { delivery.ends = true }
      guard !delivery.isDelivering, !delivery.isFinished else { return false }
      delivery.isDelivering = true
      return true
    }
    guard delivers else { return }
    while true {
      let step = delivery.withLock { delivery -> Step in
        if delivery.isFinished {
          delivery.isDelivering = false
          return .stop
        }
        if delivery.sent != delivery.isRunning {
          delivery.sent = delivery.isRunning
          return .send(delivery.isRunning)
        }
        if delivery.ends {
          delivery.isFinished = true
          return .finish
        }
        delivery.isDelivering = false
        return .stop
      }
      switch step {
      case .send(let isRunning): send(isRunning)
      case .finish: finish()
      case .stop: return
      }
    }
  }

  /// Stops at once, without sending anything more: the consumer went away.
  func stop() {
    delivery.withLock { $0.isFinished = true }
  }
}
