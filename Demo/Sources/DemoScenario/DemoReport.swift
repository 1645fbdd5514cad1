import Foundation

/// The side-by-side comparison of the two runs, as a table or as JSON.
///
/// ```swift
/// let report = DemoReport(plan: plan, seed: 42, without: without, with: with)
/// print(report.table())
/// ```
package struct DemoReport: Sendable {
  /// The plan both runs followed.
  package var plan: ScenarioPlan
  /// The seed the plan was drawn from.
  package var seed: UInt64
  /// The run without binding.
  package var without: RunMeasurement
  /// The run with AutoCancel.
  package var with: RunMeasurement

  package init(plan: ScenarioPlan, seed: UInt64, without: RunMeasurement, with: RunMeasurement) {
    self.plan = plan
    self.seed = seed
    self.without = without
    self.with = with
  }

  /// Screens the person left before everything had loaded.
  package var screensLeftEarly: Int {
    plan.screens.filter { $0.departure != .stayUntilLoaded }.count
  }

  /// The human-readable report: a table, then what it means in two lines.
  package func table() -> String {
    let intro =
      "AutoCancel demo: \(plan.people) people open \(plan.screens.count) screens, each "
      + "loading \(contents), and leave \(screensLeftEarly) of them before everything has "
      + "loaded (seed \(seed)). The same scenario runs twice; every number is measured at "
      + "the server, except the library's own account in the last rows."
    var lines = [
      intro.wrapped(width: Self.width), "",
      row("", BindingMode.withoutBinding.title, BindingMode.withAutoCancel.title),
    ]
    func add(_ label: String, _ value: (RunMeasurement) -> String) {
      lines.append(row(label, value(without), value(with)))
    }
    add("requests started by the app") { "\($0.requestsStarted)" }
    add("  reached the server") { "\($0.requestsSeenByServer)" }
    add("  completed") { "\($0.requestsCompleted)" }
    add("  cancelled (client went away)") { "\($0.requestsCancelled)" }
    add("body bytes sent") { Format.bytes($0.bytesSent) }
    add("wasted: sent after its screen left") { Format.bytes($0.wastedBytes) }
    add("connection-seconds after screens left") { Format.seconds($0.connectionSecondsAfterExit) }
    add("requests in flight when screen left") { "\($0.exitToServerEnd.count)" }
    add("  screen left -> server ended them p50") {
      $0.exitToServerEnd.count > 0 ? Format.milliseconds($0.exitToServerEnd.p50) : "-"
    }
    add("                                   p99") {
      $0.exitToServerEnd.count > 0 ? Format.milliseconds($0.exitToServerEnd.p99) : "-"
    }
    add("app: responses delivered to gone screens") { "\($0.responsesAfterScreenLeft)" }
    add("run time") { Format.seconds($0.durationSeconds) }
    add("library: requests it cancelled") { run in
      run.library.map { "\($0.cancelled) (\($0.cancelledBeforeSent) unsent)" } ?? "-"
    }
    add("  body bytes received before the cancel") { run in
      run.library.map { Format.bytes(Int($0.bytesReceivedBeforeCancel)) } ?? "-"
    }
    add("  body bytes avoided") { run in
      run.library.map { Format.bytes(Int($0.bytesAvoided)) } ?? "-"
    }
    add("    cancels of unknown length or bytes") { run in
      run.library.map { "\($0.cancelledWithUnknownRemainder)" } ?? "-"
    }
    guard without.exitToServerEnd.count > 0 else {
      lines.append("")
      let nothing =
        "No request was still in flight when its screen was left, so there was nothing to "
        + "cancel: try more screens or another --seed."
      lines.append(nothing.wrapped(width: Self.width))
      return lines.joined(separator: "\n")
    }
    let meaning =
      "Without binding, requests outlive their screens: the server sent "
      + "\(Format.bytes(without.wastedBytes)) "
      + "(\(Format.percent(without.wastedBytes, of: without.bytesSent)) of all it sent) for "
      + "screens already gone. With AutoCancel, a screen going away cancels its requests: the "
      + "server saw them end within \(Format.milliseconds(with.exitToServerEnd.p99)) (p99) "
      + "and sent \(Format.bytes(with.wastedBytes)) after screens had left."
    lines.append("")
    lines.append(meaning.wrapped(width: Self.width))
    return lines.joined(separator: "\n")
  }

  /// One JSON object on one line: `seed`, `screens`, ..., `without` and `with` (each with
  /// `bytes_sent`, `wasted_bytes`, `exit_to_disconnect_ms.p50/p99`, ...).
  package func json() -> String {
    let report = ReportJSON(
      seed: seed, screens: plan.screens.count,
      requestsPerScreen: plan.screens.first?.requests.count ?? 0, people: plan.people,
      screensLeftEarly: screensLeftEarly, without: .init(without), with: .init(with),
      wastedBytesSaved: without.wastedBytes - with.wastedBytes)
    let encoder = JSONEncoder()
    encoder.keyEncodingStrategy = .convertToSnakeCase
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    let data = (try? encoder.encode(report)) ?? Data("{}".utf8)
    return String(decoding: data, as: UTF8.self)
  }

  /// The table's width in columns.
  private static let width = 74

  /// What one screen loads, e.g. "a feed, 4 images and a download".
  private var contents: String {
    let kinds = plan.screens.first?.requests.map(\.kind) ?? []
    let images = kinds.filter { $0 == .image }.count
    var parts: [String] = []
    if kinds.contains(.feed) { parts.append("a feed") }
    if images > 0 { parts.append(images == 1 ? "an image" : "\(images) images") }
    if kinds.contains(.download) { parts.append("a download") }
    guard let last = parts.popLast() else { return "nothing" }
    return parts.isEmpty ? last : parts.joined(separator: ", ") + " and " + last
  }

  private func row(_ label: String, _ left: String, _ right: String) -> String {
    label.padded(to: 40) + left.padded(to: 16, leading: true)
      + right.padded(to: 18, leading: true)
  }
}
