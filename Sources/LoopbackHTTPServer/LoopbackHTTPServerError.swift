/// A socket call failed while starting a ``LoopbackHTTPServer``.
///
/// Thrown only by ``LoopbackHTTPServer/start()``; once the server runs, connection-level
/// failures are recorded per request instead of thrown.
///
/// ```swift
/// do {
///   try server.start()
/// } catch {
///   print("server did not start: \(error)")  // e.g. "bind failed (errno 98)"
/// }
/// ```
public struct LoopbackHTTPServerError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The call that failed, e.g. `"bind"`, or `"start"` when starting a stopped server.
  public let operation: String
  /// The `errno` value reported by the call (`0` when not applicable).
  public let code: Int32

  /// Creates an error for `operation` failing with `code`.
  public init(operation: String, code: Int32) {
    self.operation = operation
    self.code = code
  }

  /// A short human-readable description, e.g. `"bind failed (errno 98)"`.
  public var description: String { "\(operation) failed (errno \(code))" }
}
