import AutoCancel
import Dispatch

/// Checks for tests: waiting until a bag is idle, and naming the work it still holds.
///
/// Plain functions, free of XCTest and Swift Testing, so that they work in any test target:
/// wrap them in the framework's own assertion.
extension CancelBag {
  /// Waits until the bag holds no work, or `timeout` seconds pass; returns whether it is
  /// idle.
  ///
  /// Returns at once when the bag holds nothing (a bag that has ended holds nothing).
  /// Otherwise it observes the bag, and wakes when an item that ends (finished, failed or
  /// cancelled) leaves the bag empty: no polling. Work added while it waits is waited for
  /// too. Returns false when `timeout` passes first, or when the waiting task is cancelled.
  /// Any thread or actor; the bag is not changed, and the observer it installs is removed
  /// before it returns.
  ///
  /// ```swift
  /// model.reload()
  /// #expect(await model.cancelBag.waitUntilIdle(timeout: 5))
  /// #expect(model.cancelBag.workInFlightMessage() == nil)
  /// ```
  ///
  /// - Parameter timeout: Seconds to wait at most. Default: 10.
  /// - Returns: True if the bag holds no work; false if the timeout passed or the task was
  ///   cancelled first.
  public func waitUntilIdle(timeout: Double = 10) async -> Bool {
    if count == 0 { return true }
    let waiter = IdleWaiter()
    let observation = observeItems { [weak self] event in
      switch event.kind {
      case .registered: return
      case .finished, .failed, .cancelled:
        if (self?.count ?? 0) == 0 { waiter.resolve(true) }
      }
    }
    defer { observation.cancel() }
    // The last item may have left before the observer was installed.
    if count == 0 { return true }
    DispatchQueue.global().asyncAfter(deadline: .now() + max(0, timeout)) {
      waiter.resolve(false)
    }
    return await withTaskCancellationHandler {
      await waiter.result()
    } onCancel: {
      waiter.resolve(false)
    }
  }

  /// A message naming each piece of work the bag still holds, or nil when it holds none: for
  /// a test's expectation.
  ///
  /// Each item is named as a `CancelBagItem` describes it (its number, label, type, key,
  /// where it was added while the bag keeps call sites, with `AUTOCANCEL_CALL_SITES=1`, and
  /// age), oldest first. A snapshot: work may end right after it was read. Any
  /// thread; on a bag that has ended, nil.
  ///
  /// ```swift
  /// screen.close()
  /// #expect(screen.cancelBag.workInFlightMessage() == nil)
  /// // Expectation failed: (… → "CancelBag(Feed) still holds 1 item: #3 feed (Task<(), Error>)
  /// //   added at FeedModel.swift:42, 0.120 s") == nil
  /// ```
  public func workInFlightMessage() -> String? {
    let items = itemSnapshots()
    guard !items.isEmpty else { return nil }
    let name = label.map { "CancelBag(\($0))" } ?? "CancelBag"
    let noun = items.count == 1 ? "item" : "items"
    return "\(name) still holds \(items.count) \(noun): "
      + items.map(\.description).joined(separator: ", ")
  }
}
