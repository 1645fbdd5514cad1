import AutoCancel

/// The obvious design: a `pthread_mutex_t` around a `[Int: any AutoCancellable]` keyed by an
/// incrementing id. Work is stored as an existential, as any bag that accepts every kind of
/// work must; released and cancelled outside the lock.
///
/// Safety: `nextID` and `items` are only touched with `mutex` held (or in deinit, alone).
final class NaiveBag: BenchBag, @unchecked Sendable {
  static let name = "naive"
  static let tokenOwnsWork = false

  private let mutex = PthreadMutex()
  private var nextID = 0
  private var items: [Int: any AutoCancellable] = [:]

  init() {}

  deinit {
    for work in items.values { work.cancel() }
  }

  func add(_ work: Work) -> Int {
    mutex.lock()
    let id = nextID
    nextID &+= 1
    items[id] = work
    mutex.unlock()
    return id
  }

  func finish(_ token: Int) {
    mutex.lock()
    let removed = items.removeValue(forKey: token)
    mutex.unlock()
    _ = removed  // released after unlocking
  }
}
