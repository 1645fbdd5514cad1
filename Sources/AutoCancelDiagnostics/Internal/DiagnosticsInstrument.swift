import AutoCancel

/// The diagnostics' instrument: hears each bag made and released, for the live counts, and
/// what became of its work, for the account; and, while a handler of overdue work is set, the
/// work its bags cancel that can tell whether it stopped.
///
/// It hears no registration, so the adds of an instrumented bag stay on their short path.
final class DiagnosticsInstrument: BagInstrument {
  /// The one instance that ``AutoCancelDiagnostics/enable()`` installs.
  static let shared = DiagnosticsInstrument()

  private init() {}

  func bagMade(_ bag: InstrumentedBag) {
    if let label = bag.label { LiveBags.made(label) }
  }

  func workCounted(_ tally: WorkTally, in bag: InstrumentedBag) {
    Accounts.add(tally, of: bag)
  }

  var watchesCancelledWork: Bool { OverdueWatch.isOn }

  func cancelled(_ work: [CancelledWork], in bag: InstrumentedBag) {
    OverdueWatch.watch(work)
  }

  func bagReleased(_ bag: InstrumentedBag) {
    if let label = bag.label { LiveBags.released(label) }
  }
}
