// With Lock.swift, one of the two places where the core touches platform C libraries: it
// reads the environment, once.
import CAutoCancelAtomics

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
  /// Whether the bag keeps the `#fileID:#line` of each add (`CallSite`).
  package var keepsCallSites: Bool

  package init(instrument: (any BagInstrument)? = nil, keepsCallSites: Bool = false) {
    self.instrument = instrument
    self.keepsCallSites = keepsCallSites
  }
}

/// The process's diagnostic switches: the instruments installed so far, and whether bags keep
/// call sites.
///
/// A bag made without switches of its own reads them once, as it is made, without a lock
/// (`CAutoCancelAtomics`): an add never reads a process-wide setting, and making a bag takes no
/// process-wide lock. An instrument installed after bags exist serves the bags made from then
/// on; the install says how many were made before it.
package enum ProcessSwitches {
  private struct Slot: Sendable {
    /// Every set of instruments published so far, newest last: a bag may still be reading one
    /// that a later install replaced, so none is ever released.
    var published: [InstrumentSet] = []
    /// How many bags had been made when each instrument was installed.
    var bagsMadeBefore: [ObjectIdentifier: Int] = [:]
  }

  /// What was installed: process-wide because an instrument is installed once, by one line at
  /// the app's launch, for every bag of every module, and a bag is made where no one could
  /// hand it one. Bags read the newest set through `autocancel_instrument`; this lock orders
  /// the installs.
  private static let slot = Locked(Slot())

  /// Whether bags keep call sites unless told otherwise: only with `AUTOCANCEL_CALL_SITES=1`
  /// in the environment, read once, so that debug and release builds run the same add.
  static let keepsCallSites = environment("AUTOCANCEL_CALL_SITES") == "1"

  /// The instrument of a bag being made, if any is installed; counts the bag. Any thread, no
  /// lock.
  @inline(__always)
  static func instrumentOfNewBag() -> (any BagInstrument)? {
    guard let published = autocancel_make_bag() else { return nil }
    return Unmanaged<InstrumentSet>.fromOpaque(published).takeUnretainedValue()
  }

  /// Installs `instrument` beside those installed before, for every bag made from now on;
  /// installing it again does nothing. Any thread.
  ///
  /// - Returns: How many bags were made before its first install: they go on without it.
  @discardableResult
  package static func install(_ instrument: any BagInstrument) -> Int {
    slot.withLock { slot in
      let id = ObjectIdentifier(instrument)
      if let before = slot.bagsMadeBefore[id] { return before }
      let set = InstrumentSet((slot.published.last?.members ?? []) + [instrument])
      slot.published.append(set)
      let before = Int(autocancel_install(Unmanaged.passUnretained(set).toOpaque()))
      slot.bagsMadeBefore[id] = before
      return before
    }
  }

  /// The instruments installed so far, oldest first. Any thread.
  package static var installedInstruments: [any BagInstrument] {
    slot.withLock { $0.published.last?.members ?? [] }
  }

  /// The value of the environment variable `name`, if set.
  package static func environment(_ name: String) -> String? {
    getenv(name).map { String(cString: $0) }
  }
}
