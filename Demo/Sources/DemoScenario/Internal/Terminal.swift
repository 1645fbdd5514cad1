#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Where the demo writes human-readable text: standard output or standard error.
enum Terminal {
  case standardOutput
  case standardError

  /// Whether this stream is an interactive terminal (then progress redraws one line).
  var isInteractive: Bool {
    isatty(fileDescriptor) == 1
  }

  /// Writes `text` as is, unbuffered, so a `\r` progress line shows at once.
  func send(_ text: String) {
    let bytes = Array(text.utf8)
    var offset = 0
    while offset < bytes.count {
      let written = bytes.withUnsafeBytes { buffer in
        write(fileDescriptor, buffer.baseAddress! + offset, buffer.count - offset)
      }
      if written <= 0 { return }
      offset += written
    }
  }

  private var fileDescriptor: Int32 {
    switch self {
    case .standardOutput: 1
    case .standardError: 2
    }
  }
}
