import CAutoCancelAtomics

/// What the runtime answered about the types of work that came through the plain door of
/// `_add`: whether each reports its finish after all.
///
/// A type whose ``FinishReporting`` conformance was declared apart from its `AutoCancellable`
/// one (on a subclass, conditionally on a generic wrapper, in another module) gets the plain
/// witness, and only the runtime knows better. Asking it costs about 320 instructions, more
/// than a third of a whole add and finish (callgrind, release), so the answer for each type is
/// remembered for the process: process-wide because it is a fact about a type, the same for
/// every bag, and a bag that asked only for itself would pay again for each new screen. Every
/// entry is a type's address with its answer, read and written atomically without a lock; a
/// type that meets another on the same entry is asked again, and gets the same answer.
///
/// Usable from inline code, and inlined, so that the plain add reads the answer in the caller's
/// module with one atomic load.
@usableFromInline
enum WorkTypes {
  /// Whether work of `type` reports its finish: asked once per type, then read.
  @inlinable @inline(__always)
  static func reportsFinish(_ type: any AutoCancellable.Type) -> Bool {
    // Each entry holds a type's address with 1 (plain) or 2 (reports its finish) in its low
    // bits, or 0.
    let metadata = UInt(bitPattern: ObjectIdentifier(type))
    switch autocancel_type_answer(metadata) {
    case 1: return false
    case 2: return true
    default: return askRuntime(type, metadata: metadata)
    }
  }

  /// Asks the runtime whether work of `type`, at `metadata`, reports its finish, and remembers
  /// the answer.
  @usableFromInline @inline(never)
  static func askRuntime(_ type: any AutoCancellable.Type, metadata: UInt) -> Bool {
    let reports = type is any FinishReporting.Type
    autocancel_remember_type_answer(metadata, reports ? 2 : 1)
    return reports
  }
}
