// The one file of this test target that touches the platform C library: descriptors and memory.
#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// The descriptor table could not be sized: the count would mean nothing.
struct DescriptorCountUnavailable: Error {}

/// The number of open file descriptors of this process, found by asking the kernel about
/// every descriptor number up to the process's limit (capped at 65,536), so that it works
/// where `/proc` does not exist.
///
/// - Throws: ``DescriptorCountUnavailable`` when the limit cannot be read; a leak check must
///   then fail, never pass because nothing was counted.
func openFileDescriptorCount() throws -> Int {
  let limit = sysconf(Int32(_SC_OPEN_MAX))
  guard limit > 0 else { throw DescriptorCountUnavailable() }
  var open = 0
  for descriptor in 0..<Int32(min(limit, 65_536)) where fcntl(descriptor, F_GETFD) != -1 {
    open += 1
  }
  return open
}

/// The process's resident memory in kilobytes (`VmRSS` of `/proc/self/status`), for the
/// figures the memory tests print; nil where `/proc` does not exist. Never asserted: it moves
/// with everything else the process does.
func residentKilobytes() -> Int? {
  guard let file = fopen("/proc/self/status", "r") else { return nil }
  defer { fclose(file) }
  var line = [CChar](repeating: 0, count: 256)
  while fgets(&line, Int32(line.count), file) != nil {
    let text = String(
      decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    if text.hasPrefix("VmRSS:") {
      return Int(text.dropFirst(6).filter(\.isNumber))
    }
  }
  return nil
}

/// Sends this process's standard error to the file at `path` from now on, so that a child
/// process's last words, a crash's message included, are left where its parent can read them.
/// Standard output is left alone: the test harness talks to its parent there. Does nothing if
/// the file cannot be opened.
func redirectStandardError(toFile path: String) {
  fflush(nil)
  let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
  guard descriptor >= 0 else { return }
  dup2(descriptor, 2)
  close(descriptor)
}
