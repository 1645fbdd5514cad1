import AutoCancel

/// Where a piece of work was added to its bag: the `#fileID` and `#line` of the call.
///
/// Every public way of adding work (`CancelBag.add(_:key:label:file:line:)`,
/// `AutoCancelOwner.autoCancel(_:key:label:file:line:)`, the task launchers)
/// takes `file: StaticString = #fileID, line: UInt = #line`, so the compiler fills them in at
/// your call. A bag keeps them only while call sites are on: with `AUTOCANCEL_CALL_SITES=1` in
/// the environment, in debug and release builds alike. Off, the default, they cost no memory,
/// an add runs as it does without them, and the bag's item has no ``CancelBagItem/callSite``.
///
/// ```swift
/// for item in cancelBag.snapshot() {
///   print(item.callSite?.description ?? "-")  // "FeedModel.swift:42"
/// }
/// ```
public struct CallSite: Sendable, Equatable, CustomStringConvertible {
  let site: ItemCallSite

  /// The `#fileID` of the call: `Module/File.swift`.
  public var fileID: StaticString { site.fileID }

  /// The `#line` of the call.
  public var line: UInt { site.line }

  /// The call site at `fileID` and `line`.
  public init(fileID: StaticString, line: UInt) {
    site = ItemCallSite(fileID: fileID, line: line)
  }

  init(_ site: ItemCallSite) {
    self.site = site
  }

  /// The file's name, without its module: `FeedModel.swift`.
  public var fileName: String { site.fileName }

  /// `FeedModel.swift:42`.
  public var description: String { site.description }

  /// Two call sites are equal when they name the same file and line.
  public static func == (lhs: CallSite, rhs: CallSite) -> Bool {
    lhs.site == rhs.site
  }
}
