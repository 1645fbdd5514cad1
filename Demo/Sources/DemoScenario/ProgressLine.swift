import AutoCancel

/// Shows how a run is going: one line redrawn in place on a terminal, a few plain lines
/// otherwise (a line per quarter of the screens left, and one at the end of each run).
///
/// Safe to call from any thread; ``ScenarioRunner`` calls it from one task.
///
/// ```swift
/// let progress = ProgressLine(toStandardError: false)
/// let result = try await runner.run(.withAutoCancel, progress: progress.show)
/// ```
package final class ProgressLine: Sendable {
  private let terminal: Terminal
  private let interactive: Bool
  private let quartersShown = Locked<[BindingMode: Int]>([:])

  /// Writes to standard error if `toStandardError` (so JSON on standard output stays
  /// clean), else to standard output; redraws in place only if that stream is a terminal.
  package init(toStandardError: Bool) {
    terminal = toStandardError ? .standardError : .standardOutput
    interactive = terminal.isInteractive
  }

  /// Shows `progress`.
  package func show(_ progress: RunProgress) {
    let line = Self.describe(progress)
    if interactive {
      terminal.send("\r\u{1B}[2K" + line + (progress.isFinished ? "\n" : ""))
      return
    }
    let quarter = progress.screens > 0 ? progress.screensLeft * 4 / progress.screens : 4
    let isNewQuarter: Bool = quartersShown.withLock { shown in
      guard quarter > shown[progress.mode, default: 0], quarter < 4 else { return false }
      shown[progress.mode] = quarter
      return true
    }
    if isNewQuarter || progress.isFinished { terminal.send(line + "\n") }
  }

  /// The text of one progress line.
  package static func describe(_ progress: RunProgress) -> String {
    // At most about 80 columns, so a redrawn line never wraps on a default terminal.
    let title = progress.mode.title.padded(to: 16)
    let elapsed = Format.seconds(progress.elapsedSeconds).padded(to: 7, leading: true)
    let suffix = progress.isFinished ? "  done" : ""
    return "\(title)\(elapsed)  screens left \(progress.screensLeft)/\(progress.screens)  "
      + "requests done \(progress.requestsEnded)/\(progress.requests)  "
      + "sent \(Format.bytes(progress.bytesSent))\(suffix)"
  }
}
