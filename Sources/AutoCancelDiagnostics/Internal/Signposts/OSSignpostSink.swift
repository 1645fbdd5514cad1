#if canImport(os)
  import os

  /// Signposts to the os_signpost instrument, subsystem `org.autocancel`, category
  /// `AutoCancel`. Messages are public: they are the app's own labels, types and call sites.
  struct OSSignpostSink: SignpostSink, @unchecked Sendable {
    // Safety: `OSSignposter` is a thin, immutable handle on an `OSLog`, used from any thread.
    private let signposter = OSSignposter(subsystem: "org.autocancel", category: "AutoCancel")

    var isRecording: Bool { signposter.isEnabled }

    func beginInterval(_ name: StaticString, id: UInt64, _ message: String) {
      _ = signposter.beginInterval(name, id: OSSignpostID(id), "\(message, privacy: .public)")
    }

    func endInterval(_ name: StaticString, id: UInt64, _ message: String) {
      signposter.endInterval(
        name, .beginState(id: OSSignpostID(id)), "\(message, privacy: .public)")
    }

    func emitEvent(_ name: StaticString, _ message: String) {
      signposter.emitEvent(name, "\(message, privacy: .public)")
    }
  }
#endif
