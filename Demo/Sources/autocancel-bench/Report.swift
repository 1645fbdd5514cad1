/// `x` with `digits` decimals ("41.20"), "-" for nan.
func fixed(_ value: Double, _ digits: Int) -> String {
  guard value.isFinite else { return "-" }
  var scale = 1.0
  for _ in 0..<digits { scale *= 10 }
  let scaled = (abs(value) * scale).rounded()
  let whole = Int(scaled / scale)
  var text = "\(value < 0 && scaled != 0 ? "-" : "")\(whole)"
  if digits > 0 {
    let fraction = Int(scaled - Double(whole) * scale)
    let digitsText = String(fraction)
    text += "." + String(repeating: "0", count: digits - digitsText.count) + digitsText
  }
  return text
}

/// An integer with thousands separators ("1,000,000").
func grouped(_ value: Int) -> String {
  let digits = Array(String(value))
  var text = ""
  for (index, digit) in digits.enumerated() {
    if index > 0 && (digits.count - index) % 3 == 0 { text.append(",") }
    text.append(digit)
  }
  return text
}

private func pad(_ text: String, _ width: Int, left: Bool = false) -> String {
  let padding = String(repeating: " ", count: max(0, width - text.count))
  return left ? text + padding : padding + text
}

/// Renders the scenario reports as tables, or as one JSON object.
enum Report {
  static func table(_ reports: [ScenarioReport], plan: RunPlan) -> String {
    var out = ""
    for report in reports {
      let unit = report.results.first?.unit ?? ""
      out += "\n\(report.name) — \(report.title)\n"
      var header =
        pad("implementation", 20, left: true) + pad("median", 10) + pad("min", 10)
        + pad("max", 10)
      let widths = report.references.map { max(10, $0.count + 4) }
      for (reference, width) in zip(report.references, widths) {
        header += pad("× \(reference)", width)
      }
      header += "  target"
      out += "  " + header + "\n"
      for result in report.results {
        // Large figures (heap bytes held) lose their decimals, so the columns stay aligned.
        let digits = abs(result.median) >= 100_000 ? 0 : unit == "ns" ? 1 : 2
        var line =
          pad(result.implementation, 20, left: true) + pad(fixed(result.median, digits), 10)
          + pad(fixed(result.min, digits), 10) + pad(fixed(result.max, digits), 10)
        for (reference, width) in zip(report.references, widths) {
          let ratio =
            reference == result.implementation
            ? "1.00" : fixed(report.ratio(result.implementation, reference), 2)
          line += pad(ratio, width)
        }
        if result.implementation == "AutoCancel", let target = report.target {
          let verdict = target(report)
          line += "  \(verdict.pass ? "PASS" : "FAIL")  \(verdict.detail)"
        }
        if let sizeNote = result.sizeNote { line += "  [at \(sizeNote)]" }
        out += "  " + line + "\n"
      }
      for note in report.notes { out += "  · \(note)\n" }
    }
    out += "\nunit: ns unless the title says otherwise; median, min and max of "
    out += "\(plan.repetitions) interleaved repetitions after a discarded warm-up (S4: "
    out += "\(plan.s4Repetitions); S5 and S8-oneliner-held: "
    out += "\(min(plan.repetitions, plan.heapRepetitions)), no warm-up); ratios are medians of "
    out += "per-repetition ratios.\n"
    let verdicts = reports.compactMap { report in report.target.map { (report.name, $0(report)) } }
    let passed = verdicts.filter { $0.1.pass }.count
    out += "targets met: \(passed)/\(verdicts.count)"
    let failed = verdicts.filter { !$0.1.pass }.map { $0.0 }
    if !failed.isEmpty { out += " (not met: \(failed.joined(separator: ", ")))" }
    out += "\n"
    return out
  }

  static func json(_ reports: [ScenarioReport]) -> String {
    func number(_ value: Double) -> String { value.isFinite ? fixed(value, 2) : "null" }
    func string(_ text: String) -> String {
      var escaped = ""
      for scalar in text.unicodeScalars {
        switch scalar {
        case "\"": escaped += "\\\""
        case "\\": escaped += "\\\\"
        case "\n": escaped += "\\n"
        default: escaped.unicodeScalars.append(scalar)
        }
      }
      return "\"" + escaped + "\""
    }
    let entries = reports.flatMap { report in
      report.results.map { result in
        let ratios = report.references.map { reference in
          "\(string(reference)): \(number(report.ratio(result.implementation, reference)))"
        }
        return "{\"scenario\": \(string(result.scenario)), "
          + "\"implementation\": \(string(result.implementation)), "
          + "\"median\": \(number(result.median)), \"min\": \(number(result.min)), "
          + "\"max\": \(number(result.max)), \"unit\": \(string(result.unit)), "
          + "\"ratios\": {\(ratios.joined(separator: ", "))}}"
      }
    }
    let targets = reports.compactMap { report in
      report.target.map { target in
        let verdict = target(report)
        return "{\"scenario\": \(string(report.name)), \"pass\": \(verdict.pass), "
          + "\"detail\": \(string(verdict.detail))}"
      }
    }
    return "{\"results\": [\n  " + entries.joined(separator: ",\n  ") + "\n],\n"
      + "\"targets\": [\n  " + targets.joined(separator: ",\n  ") + "\n]}"
  }
}
