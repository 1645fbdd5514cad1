/// Where a piece of work was added to its bag: the `#fileID` and `#line` of the call, kept
/// while call sites are on (`ProcessSwitches.keepsCallSites`); diagnostics show it as a
/// `CallSite`.
@usableFromInline
package struct ItemCallSite: Sendable, Equatable, CustomStringConvertible {
  @usableFromInline package let fileID: StaticString

  @usableFromInline package let line: UInt

  @inlinable
  package init(fileID: StaticString, line: UInt) {
    self.fileID = fileID
    self.line = line
  }

  /// The file's name, without its module: `FeedModel.swift`.
  package var fileName: String {
    let path = "\(fileID)"
    return path.split(separator: "/").last.map(String.init) ?? path
  }

  /// `FeedModel.swift:42`.
  @usableFromInline package var description: String { "\(fileName):\(line)" }

  @usableFromInline package static func == (lhs: ItemCallSite, rhs: ItemCallSite) -> Bool {
    lhs.line == rhs.line && "\(lhs.fileID)" == "\(rhs.fileID)"
  }
}
