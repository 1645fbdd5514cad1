// Exit tests: Swift Testing 6.2, on the platforms that start child processes.
#if compiler(>=6.2) && (os(Linux) || os(macOS) || os(Windows))
  import Foundation
  import Testing

  #if canImport(Glibc)
    import Glibc
  #elseif canImport(Darwin)
    import Darwin
  #endif

  /// What an exit test's child process writes to its standard error, kept for the parent to show
  /// when the child does not exit as expected.
  ///
  /// Swift Testing hands a child's standard error back (`observing: [\.standardErrorContent]`)
  /// only when the exit test passes: the report of a sanitizer, or the message of a trap, that
  /// ended a failed child is lost. The child sends its standard error to a file named after its
  /// parent process and the exit test (`sendToParent()`, in the body, after
  /// `closeInheritedSockets()`); the parent reads it once the child has exited, records it with
  /// the failure if the exit test failed, and removes it (`recordIfFailed(_:)`).
  ///
  /// The name tells apart the exit tests of one process that may run at once: give each call
  /// its own, the arguments of a parameterized test included.
  ///
  /// ```swift
  /// let errors = ChildStandardError("twin-session-gone")
  /// let result = await #expect(processExitsWith: .success) {
  ///   closeInheritedSockets()
  ///   ChildStandardError("twin-session-gone").sendToParent()
  ///   try await work()
  /// }
  /// errors.recordIfFailed(result)
  /// ```
  package struct ChildStandardError: Sendable {
    private let name: String

    package init(_ name: String) {
      self.name = name
    }

    /// The file, named after the process that runs the exit tests.
    private func path(parent: Int) -> String {
      FileManager.default.temporaryDirectory
        .appendingPathComponent("AutoCancel-exit-test-\(parent)-\(name).stderr").path
    }

    /// In the child: sends this process's standard error to the file its parent reads. Does
    /// nothing on Windows.
    package func sendToParent() {
      #if !os(Windows)
        let descriptor = open(path(parent: Int(getppid())), O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        guard descriptor >= 0 else { return }
        dup2(descriptor, STDERR_FILENO)
        close(descriptor)
      #endif
    }

    /// In the parent, after the exit test: records what the child wrote to its standard error if
    /// the exit test failed (`result` is nil), and removes the file either way.
    package func recordIfFailed(
      _ result: ExitTest.Result?, sourceLocation: SourceLocation = #_sourceLocation
    ) {
      let path = path(parent: Int(ProcessInfo.processInfo.processIdentifier))
      defer { try? FileManager.default.removeItem(atPath: path) }
      guard result == nil else { return }
      let written = FileManager.default.contents(atPath: path).map {
        String(decoding: $0, as: UTF8.self)
      }
      Issue.record(
        "The child's standard error: \(written.map { String($0.suffix(4_000)) } ?? "(no file)")",
        sourceLocation: sourceLocation)
    }
  }
#endif
