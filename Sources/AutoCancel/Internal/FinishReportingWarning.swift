/// The debug-build warning about work whose `FinishReporting` conformance was declared apart
/// from its `AutoCancellable` one, printed once per type.
///
/// Usable from inline code, for the inlinable `_BagInsertion.warnIfFinishReportingElsewhere`.
@usableFromInline
enum FinishReportingWarning {
  private static let warned = Locked<Set<ObjectIdentifier>>([])

  /// Prints the warning about `type`, unless it was printed before.
  @usableFromInline
  static func warnOnce(about type: Any.Type) {
    let isFirst = warned.withLock { $0.insert(ObjectIdentifier(type)).inserted }
    guard isFirst else { return }
    print(
      """
      AutoCancel: \(type) is FinishReporting, but its AutoCancellable conformance was declared \
      elsewhere (another module, or a superclass), so bags do not ask it whether it finished \
      and it stays until its registration ends. Declare FinishReporting together with \
      AutoCancellable.
      """)
  }

  /// Whether the warning about `type` was printed.
  static func hasWarned(about type: Any.Type) -> Bool {
    warned.withLock { $0.contains(ObjectIdentifier(type)) }
  }
}
