#if canImport(Glibc)
  import Glibc
#endif

/// The process's resident memory, read from `/proc/self/statm`; nil where there is none.
enum ResidentMemory {
  static func bytes() -> Int? {
    #if canImport(Glibc)
      let descriptor = open("/proc/self/statm", O_RDONLY)
      guard descriptor >= 0 else { return nil }
      defer { close(descriptor) }
      var buffer = [UInt8](repeating: 0, count: 256)
      let length = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
      guard length > 0 else { return nil }
      // "size resident shared text lib data dt", in pages.
      let fields = String(decoding: buffer[..<length], as: UTF8.self).split(separator: " ")
      guard fields.count > 1, let pages = Int(fields[1]) else { return nil }
      return pages * sysconf(Int32(_SC_PAGESIZE))
    #else
      return nil
    #endif
  }
}
