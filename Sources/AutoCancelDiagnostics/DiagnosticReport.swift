import AutoCancel

/// Something the diagnostics found that the app should look at: what
/// ``AutoCancelDiagnostics/enable(reporting:)`` hands its handler.
///
/// ```swift
/// AutoCancelDiagnostics.enable(reporting: { report in
///   switch report {
///   case .overdueWork(let overdue): logger.warning("\(overdue)")
///   case .pilingUp(let pileUp): assertionFailure("\(pileUp)")
///   }
/// })
/// ```
public enum DiagnosticReport: Sendable, CustomStringConvertible {
  /// Work that still ran ``AutoCancel/CancelBag/overdueWorkThreshold`` seconds after its bag
  /// cancelled it.
  case overdueWork(OverdueWork)
  /// More bags of one label alive than the limit set with
  /// ``AutoCancel/CancelBag/setLiveCountLimit(_:label:)``.
  case pilingUp(PilingUpBags)

  /// The report's own description.
  public var description: String {
    switch self {
    case .overdueWork(let overdue): overdue.description
    case .pilingUp(let pileUp): pileUp.description
    }
  }
}
