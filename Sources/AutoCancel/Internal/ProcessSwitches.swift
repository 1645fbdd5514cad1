// With Lock.swift, one of the two places where the core touches platform C libraries: it
// reads the environment, once.
#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Android)
  import Android
#endif

/// What a bag does beyond its work: the process-wide instrument that hears its events, and
/// whether it keeps where each item was added.
///
/// A bag reads its switches once, when it is made, and keeps them: an add never reads a
/// process-wide setting. Tests make a bag with switches of their own
/// (`CancelBag(label:switches:)`), without touching the process's.
package struct DiagnosticSwitches: Sendable {
  /// Hears every registration of the bag from its add to its end, and the bag's end.
  package var instrument: (any BagInstrument)?
  /// Whether the bag keeps the `#fileID:#line` of each add (``CallSite``).
  package var keepsCallSites: Bool

  package init(instrument: (any BagInstrument)? = nil, keepsCallSites: Bool = false) {
    self.instrument = instrument
    self.keepsCallSites = keepsCallSites
  }
}

/// The process's diagnostic switches: registered at launch, frozen the first time a bag is
/// made.
///
/// Race-free without a lock on the hot path: the frozen value is a `static let`, initialized
/// once by the runtime (`swift_once`) and never written again, so a bag made on any thread
/// reads it with a load. The registration before it is guarded by `Locked`; freezing takes
/// that lock once, so an install either happens before the freeze (and counts) or after it
/// (and is refused, and reported once in debug builds).
package enum ProcessSwitches {
  private struct Registration: Sendable {
    var instrument: (any BagInstrument)?
    var isFrozen = false
    var reportedLateInstall = false
  }

  private static let registration = Locked(Registration())

  /// What every bag made without switches of its own does, frozen at the first read: two
  /// flags, trivial to copy, so that making a bag reads them with a load and retains
  /// nothing.
  struct Frozen: Sendable {
    var keepsCallSites: Bool
    var hasInstrument: Bool
  }

  static let frozen: Frozen = freeze()

  private static func freeze() -> Frozen {
    let hasInstrument = registration.withLock { registration in
      registration.isFrozen = true
      return registration.instrument != nil
    }
    return Frozen(keepsCallSites: keepsCallSitesByDefault, hasInstrument: hasInstrument)
  }

  /// Whether an install came before the first bag (and counts) or after it (and does not).
  package enum Installation: Sendable, Equatable {
    case installed
    case tooLate
  }

  /// Installs `instrument` for every bag made from now on, if no bag was made yet; otherwise
  /// does nothing, and says so once in debug builds. Any thread.
  @discardableResult
  package static func install(_ instrument: any BagInstrument) -> Installation {
    let (installed, reports) = registration.withLock { registration -> (Bool, Bool) in
      guard registration.isFrozen else {
        registration.instrument = instrument
        return (true, false)
      }
      defer { registration.reportedLateInstall = true }
      return (false, !registration.reportedLateInstall)
    }
    #if DEBUG
      if reports {
        print(
          "AutoCancel: an instrument installed after the first bag was made has no effect; "
            + "install it at launch, before any bag is made")
      }
    #else
      _ = reports
    #endif
    return installed ? .installed : .tooLate
  }

  /// The instrument installed in time, if any: the one of bags made without switches of
  /// their own, once `frozen` said there is one (it never changes after the freeze).
  package static var installedInstrument: (any BagInstrument)? {
    registration.withLock { $0.instrument }
  }

  /// Whether bags keep call sites unless told otherwise: only with `AUTOCANCEL_CALL_SITES=1`
  /// in the environment, so that debug and release builds run the same add.
  static var keepsCallSitesByDefault: Bool {
    environment("AUTOCANCEL_CALL_SITES") == "1"
  }

  /// The value of the environment variable `name`, if set.
  package static func environment(_ name: String) -> String? {
    getenv(name).map { String(cString: $0) }
  }
}
