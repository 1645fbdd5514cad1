import AutoCancel
import AutoCancelTestSupport
import Dispatch

// The runs' own records, apart from the test kit's `RecordingWork`: an item is named by its
// number in the run, every form of work (plain `cancel()` too, which has no reason: nil)
// writes to one record, and single-threaded runs log every cancel of the run in order, to
// compare with the reference model's order.

/// What happened to one work item, written by the item's own `cancel`.
///
/// Thread-safe; `cancel` may be called on any thread.
final class ItemRecord: Sendable {
  let id: Int
  private let log: CancelLog?
  private let cancels = Protected<[CancellationReason?]>([])

  init(id: Int, log: CancelLog? = nil) {
    self.id = id
    self.log = log
  }

  /// Records a cancel; `reason` is nil for work that only implements `cancel()`.
  func cancelled(_ reason: CancellationReason?) {
    cancels.withLock { $0.append(reason) }
    log?.append(id, reason)
  }

  /// Every cancel received, in order.
  var reasons: [CancellationReason?] { cancels.current }

  var cancelCount: Int { cancels.withLock { $0.count } }
}

/// Every cancel of a run, in the order they happened (single-threaded runs compare it with
/// the model's order).
final class CancelLog: Sendable {
  private let entries = Protected<[(id: Int, reason: CancellationReason?)]>([])

  func append(_ id: Int, _ reason: CancellationReason?) {
    entries.withLock { $0.append((id, reason)) }
  }

  /// Takes the entries recorded since the last call.
  func drain() -> [(id: Int, reason: CancellationReason?)] {
    entries.withLock { entries in
      defer { entries.removeAll(keepingCapacity: true) }
      return entries
    }
  }
}

/// Class work that wants the reason: the bag stores it as it is.
final class RecordedWork: ReasonAwareCancellable {
  let record: ItemRecord
  init(_ record: ItemRecord) { self.record = record }
  func cancel() { record.cancelled(nil) }
  func cancel(reason: CancellationReason) { record.cancelled(reason) }
}

/// Class work that implements only `cancel()`, relying on the protocol's default.
final class RecordedPlainWork: AutoCancellable {
  let record: ItemRecord
  init(_ record: ItemRecord) { self.record = record }
  func cancel() { record.cancelled(nil) }
}

/// Value-type work: the bag boxes it.
struct RecordedValueWork: ReasonAwareCancellable {
  let record: ItemRecord
  func cancel() { record.cancelled(nil) }
  func cancel(reason: CancellationReason) { record.cancelled(reason) }
}

/// The forms of work a bag accepts.
enum WorkKind: CaseIterable, CustomStringConvertible {
  case reasonedClass, plainClass, value, closure, dispatchWorkItem

  /// Whether the work hears the reason (and its record holds it).
  var receivesReason: Bool { self != .plainClass && self != .dispatchWorkItem }

  var description: String {
    switch self {
    case .reasonedClass: "class"
    case .plainClass: "plain class"
    case .value: "value"
    case .closure: "closure"
    case .dispatchWorkItem: "DispatchWorkItem"
    }
  }
}

/// One item added to a bag in a run: its record, and the `DispatchWorkItem` if it is one.
struct AddedWork {
  var record: ItemRecord
  var dispatchItem: DispatchWorkItem?

  /// Whether the work was cancelled, by its record or its `DispatchWorkItem` flag.
  var wasCancelled: Bool { dispatchItem?.isCancelled ?? (record.cancelCount > 0) }
}

extension WorkKind {
  /// Whether this kind of work is added through the generic `add`, which takes a key policy.
  var takesPolicy: Bool { self == .reasonedClass || self == .plainClass || self == .value }
}

extension CancelBag {
  /// Adds work of `kind` recording into `record`, through the API form for that kind; under
  /// `policy` when the kind takes one (see `WorkKind.takesPolicy`) and `key` is given.
  func add(
    _ kind: WorkKind, record: ItemRecord, key: (any Hashable & Sendable)?, label: String?,
    policy: AddPolicy? = nil
  ) -> (CancelRegistration, AddedWork) {
    if let key, let policy, kind.takesPolicy {
      let work: any AutoCancellable =
        switch kind {
        case .reasonedClass: RecordedWork(record)
        case .plainClass: RecordedPlainWork(record)
        default: RecordedValueWork(record: record)
        }
      return (add(work, key: key, policy: policy, label: label), AddedWork(record: record))
    }
    switch kind {
    case .reasonedClass:
      return (add(RecordedWork(record), key: key, label: label), AddedWork(record: record))
    case .plainClass:
      return (add(RecordedPlainWork(record), key: key, label: label), AddedWork(record: record))
    case .value:
      return (
        add(RecordedValueWork(record: record), key: key, label: label), AddedWork(record: record)
      )
    case .closure:
      let registration = add(key: key, label: label) { reason in record.cancelled(reason) }
      return (registration, AddedWork(record: record))
    case .dispatchWorkItem:
      let item = DispatchWorkItem {}
      return (add(item, key: key, label: label), AddedWork(record: record, dispatchItem: item))
    }
  }
}
