import AutoCancel

/// What to signpost for which event of a bag: the platform-neutral part of the signposts,
/// installed as the process's `BagInstrument`.
///
/// Each registration is a `Work` interval from its add to its end, whose begin names the item
/// and its bag, and whose end says how it ended (and the bytes it moved, when told); a bag
/// whose end cancelled work marks a `Bag ended` event.
package final class SignpostRecorder: BagInstrument {
  /// The name of every registration's interval.
  package static let workInterval: StaticString = "Work"
  /// The name of the event of a bag's end.
  package static let bagEndedEvent: StaticString = "Bag ended"

  private let sink: any SignpostSink
  /// Bytes moved by items in flight, by bag and item, until their interval ends.
  private let transfers = Locked<[TransferKey: Transfer]>([:])

  private struct TransferKey: Hashable {
    var bag: ObjectIdentifier
    var item: UInt64
  }

  private struct Transfer {
    var sent: Int64
    var received: Int64
  }

  package init(sink: any SignpostSink) {
    self.sink = sink
  }

  /// The recorder that ``AutoCancelSignposts/enable()`` installs: nil where the system has no
  /// signposts.
  static let system = SignpostSinks.system.map { SignpostRecorder(sink: $0) }

  /// Every registration is an interval.
  package var hearsWork: Bool { true }

  package func workEvent(_ event: ItemEvent, in bag: InstrumentedBag) {
    let key = TransferKey(bag: bag.identity, item: event.item.id)
    let id = Self.signpostID(key)
    let ending: String
    switch event.kind {
    case .registered:
      guard sink.isRecording else { return }
      sink.beginInterval(Self.workInterval, id: id, Self.beginMessage(event.item, in: bag))
      return
    case .finished: ending = "finished"
    case .failed(let error): ending = "failed: \(error)"
    case .cancelled(let reason): ending = "cancelled: \(reason)"
    }
    // Taken even when nothing records, so that the table never keeps an ended item.
    let transfer = transfers.withLock { $0.isEmpty ? nil : $0.removeValue(forKey: key) }
    guard sink.isRecording else { return }
    var message = ending
    if let transfer {
      message += ", \(transfer.received) bytes received, \(transfer.sent) sent"
    }
    sink.endInterval(Self.workInterval, id: id, message)
  }

  package func bagEnded(_ bag: InstrumentedBag, reason: CancellationReason, cancelled: Int) {
    guard cancelled > 0, sink.isRecording else { return }
    let name = bag.label.map { "CancelBag(\($0))" } ?? "CancelBag"
    let noun = cancelled == 1 ? "item" : "items"
    sink.emitEvent(Self.bagEndedEvent, "\(name) ended (\(reason)): cancelled \(cancelled) \(noun)")
  }

  package func transferred(
    item sequence: UInt64, in bag: InstrumentedBag, sent: Int64, received: Int64
  ) {
    let key = TransferKey(bag: bag.identity, item: sequence)
    transfers.withLock { $0[key] = Transfer(sent: sent, received: received) }
  }

  /// `#3 feed (URLSessionDataTask) key 7 added at FeedModel.swift:42 in CancelBag(Feed)`; the
  /// call site only while the bag keeps call sites.
  static func beginMessage(_ item: ItemSnapshot, in bag: InstrumentedBag) -> String {
    var text = "#\(item.id)"
    if let label = item.label { text += " \(label)" }
    text += " (\(item.workType))"
    if let key = item.key { text += " key \(key)" }
    if let callSite = item.callSite { text += " added at \(callSite)" }
    text += " in " + (bag.label.map { "CancelBag(\($0))" } ?? "CancelBag")
    return text
  }

  /// The interval's signpost ID: the same for an item's begin and end, made from its bag and
  /// number, never 0 (`.null`) nor the reserved `.invalid` and `.exclusive`.
  private static func signpostID(_ key: TransferKey) -> UInt64 {
    let id = UInt64(bitPattern: Int64(key.hashValue))
    switch id {
    case 0, .max, 0xEEEE_B0B5_B2B2_EEEE: return 1
    default: return id
    }
  }
}
