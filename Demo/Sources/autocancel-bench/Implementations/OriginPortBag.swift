import AutoCancel

/// A faithful Swift port of the Objective-C holder (the category of the migration article): an array of boxes,
/// each with a **weak** reference to one request, under a lock. Every add first sweeps the
/// array from the end, removing each box whose request is gone with a linear search
/// (`removeObject:`), then appends a new box. Deinit cancels the requests still alive.
///
/// "Finishing" a request is the network layer releasing it: the token *is* the request, and
/// dropping the last strong reference turns the weak reference nil. Nothing is removed
/// until the next add sweeps.
///
/// With `skipsIndexZero` the sweep keeps the original's off-by-one,
/// `for (i = count - 1; i > 0; i--)`: index 0 is never examined, so a dead box that reaches
/// index 0 stays in the array (and keeps its weak side table) for the bag's whole life.
///
/// Safety: `boxes` is only touched with `mutex` held (or in deinit, alone).
final class OriginPortBag: BenchBag, @unchecked Sendable {
  static let name = "origin-port"
  static let tokenOwnsWork = true

  private final class Box {
    weak var request: (any AnyObject & AutoCancellable)?

    init(_ request: any AnyObject & AutoCancellable) { self.request = request }
  }

  private let mutex = PthreadMutex()
  private var boxes: [Box] = []
  /// The sweep runs while `i > sweepStop`: -1 examines every box, 0 is the original quirk.
  private let sweepStop: Int

  init() { sweepStop = -1 }

  init(skipsIndexZero: Bool) { sweepStop = skipsIndexZero ? 0 : -1 }

  deinit {
    let live = boxes.compactMap { $0.request }
    for request in live { request.cancel() }
  }

  /// Boxes in the array, dead or alive (to show what the index-0 quirk leaves behind).
  var boxCount: Int {
    mutex.lock()
    defer { mutex.unlock() }
    return boxes.count
  }

  func add(_ work: Work) -> Work {
    bind(work)
    return work
  }

  func finish(_ token: Work) {}

  private func bind(_ request: any AnyObject & AutoCancellable) {
    mutex.lock()
    var index = boxes.count - 1
    while index > sweepStop {
      if boxes[index].request == nil {
        let dead = boxes[index]
        if let found = boxes.firstIndex(where: { $0 === dead }) {
          boxes.remove(at: found)
        }
      }
      index -= 1
    }
    boxes.append(Box(request))
    mutex.unlock()
  }
}
