import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Closes every socket the process inherited from its parent: the first call in the body of
/// each exit test (`#expect(processExitsWith:)`), so that the child holds none of the parent's
/// connections open.
///
/// On Linux, Swift Testing 6.3 starts an exit test's child process with every descriptor of
/// the parent that is not close-on-exec, and neither libcurl nor the loopback server marks its
/// sockets so: a child held 12 of its parent's sockets for its whole life. A connection whose
/// client the parent closed then stays open at the server while a child lives: requests the
/// parent had cancelled were never seen to leave, in a loaded run where exit tests ran beside
/// the fault matrix. Elsewhere a child inherits only what Swift Testing hands it, and this does
/// nothing.
///
/// ```swift
/// await #expect(processExitsWith: .success) {
///   closeInheritedSockets()
///   try await RedirectRaceTests.race(form: form, seed: seed, count: 64)
/// }
/// ```
package func closeInheritedSockets() {
  #if os(Linux)
    guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")
    else { return }
    for entry in entries {
      guard let descriptor = Int32(entry), descriptor > 2 else { continue }
      var status = stat()
      guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFSOCK else { continue }
      close(descriptor)
    }
  #endif
}
