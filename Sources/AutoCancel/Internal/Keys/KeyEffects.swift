/// What the bag decided about keys under its lock, to do after it: the waits for a turn that
/// end (a launch let through, or cancelled before its turn), and the changes of a key's running
/// state to tell its observers.
///
/// Empty, and without an allocation, for everything that does not touch a key.
struct KeyEffects {
  private enum Effect {
    /// A waiting launch learns whether it was let through (`admitted`) or will never run.
    case resume(UnsafeContinuation<Bool, Never>, admitted: Bool)
    /// The observers hear of change number `version`; `ends` says that nothing will follow.
    case tell([KeyObserver], isRunning: Bool, version: UInt64, ends: Bool)
  }

  private var effects: [Effect] = []

  var isEmpty: Bool { effects.isEmpty }

  /// A waiting launch learns whether it was let through (`admitted`) or will never run.
  mutating func resume(_ continuation: UnsafeContinuation<Bool, Never>?, admitted: Bool) {
    guard let continuation else { return }
    effects.append(.resume(continuation, admitted: admitted))
  }

  /// The observers hear of change number `version`; `ends` says that nothing will follow.
  mutating func tell(
    _ observers: [KeyObserver], isRunning: Bool, version: UInt64, ends: Bool = false
  ) {
    guard !observers.isEmpty else { return }
    effects.append(.tell(observers, isRunning: isRunning, version: version, ends: ends))
  }

  /// Does it all, in the order it was decided. Never under the lock: it resumes tasks and
  /// runs observers.
  func perform() {
    for effect in effects {
      switch effect {
      case .resume(let continuation, let admitted):
        continuation.resume(returning: admitted)
      case .tell(let observers, let isRunning, let version, let ends):
        for observer in observers {
          observer.offer(isRunning: isRunning, version: version, ends: ends)
        }
      }
    }
  }
}
