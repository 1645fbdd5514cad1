/// What a screen asks the server for.
package enum RequestKind: String, Sendable, Hashable, CaseIterable {
  /// A small list of items; the server thinks a while before answering (`/delay`).
  case feed
  /// A medium body streamed at a steady rate (`/slow`).
  case image
  /// A large body streamed at a steady rate (`/slow`): the expensive one to abandon.
  case download
}
