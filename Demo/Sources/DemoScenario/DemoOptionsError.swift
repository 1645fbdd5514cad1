/// A command-line argument the demo could not accept; its message names the argument.
package struct DemoOptionsError: Error, Sendable, Hashable, CustomStringConvertible {
  /// One line, e.g. `--screens: expected a whole number from 1 to 1000, got "ten"`.
  package var message: String

  package init(_ message: String) {
    self.message = message
  }

  package var description: String { message }
}
