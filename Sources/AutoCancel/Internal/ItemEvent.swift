/// Something that happened to a piece of work in a bag: it was registered, finished, failed
/// or was cancelled. Observers and instruments hear it; diagnostics show it as a
/// `CancelBagEvent`.
package struct ItemEvent: Sendable, CustomStringConvertible {
  package enum Kind: Sendable {
    case registered
    case finished
    case failed(any Error)
    case cancelled(CancellationReason)
  }

  package let kind: Kind

  package let item: ItemSnapshot

  package var description: String {
    switch kind {
    case .registered: "registered \(item)"
    case .finished: "finished \(item)"
    case .failed(let error): "failed \(item): \(error)"
    case .cancelled(let reason): "cancelled \(item): \(reason)"
    }
  }
}
