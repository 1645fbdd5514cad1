import AutoCancelTestSupport
import Foundation
import SeededRandom

/// Which cells of the matrix a run takes, and its settings.
///
/// - `swift test` runs a sample: every pair of fault and form once, with triggers and kinds
///   of session assigned in rotation from a seeded start, so that each form meets every
///   trigger and every kind of session, and so does each fault.
/// - `AUTOCANCEL_FAULT_MATRIX=full` also runs the whole matrix, every cell, in a seeded
///   order, for `AUTOCANCEL_FAULT_SEEDS` seeds (default 3): `scripts/reliability/faults.sh`.
/// - `AUTOCANCEL_FAULT_TIMEOUT` sets the requests' timeout in whole seconds (default 1).
enum FaultMatrix {
  private static let environment = ProcessInfo.processInfo.environment

  /// Whether the whole matrix runs (the soak setting).
  static let isFull = environment["AUTOCANCEL_FAULT_MATRIX"] == "full"

  /// How many seeds the whole matrix runs.
  static let seedCount = environment["AUTOCANCEL_FAULT_SEEDS"].flatMap { Int($0) } ?? 3

  /// The requests' timeout, whole seconds: FoundationNetworking truncates it to seconds.
  static let requestTimeout = TimeInterval(
    environment["AUTOCANCEL_FAULT_TIMEOUT"].flatMap { Int($0) } ?? 1)

  /// How many cells run at once. At most 6 requests may wait for one host on a session
  /// (`httpMaximumConnectionsPerHost`); a request queued behind stalled ones would time out
  /// in the queue.
  static let parallel = 4

  /// Every cell.
  static let all: [FaultCell] = NetworkFault.allCases.flatMap { fault in
    RequestForm.allCases.flatMap { form in
      SessionKind.allCases.flatMap { session in
        EndingTrigger.allCases.map { trigger in
          FaultCell(fault: fault, form: form, session: session, trigger: trigger)
        }
      }
    }
  }

  /// Every fault with every form once; triggers and sessions in rotation from seeded starts.
  static func sample(seed: UInt64) -> [FaultCell] {
    var generator = SeededGenerator(seed: seed)
    let triggerStart = generator.below(EndingTrigger.allCases.count)
    let sessionStart = generator.below(SessionKind.allCases.count)
    var cells: [FaultCell] = []
    for (faultIndex, fault) in NetworkFault.allCases.enumerated() {
      for (formIndex, form) in RequestForm.allCases.enumerated() {
        let triggers = EndingTrigger.allCases
        let sessions = SessionKind.allCases
        cells.append(
          FaultCell(
            fault: fault, form: form,
            session: sessions[(faultIndex + 2 * formIndex + sessionStart) % sessions.count],
            trigger: triggers[(faultIndex + formIndex + triggerStart) % triggers.count]))
      }
    }
    cells.shuffle(using: &generator)
    return cells
  }

  /// Every cell, in a seeded order.
  static func full(seed: UInt64) -> [FaultCell] {
    var generator = SeededGenerator(seed: seed)
    return all.shuffled(using: &generator)
  }
}
