import DemoScenario
import Foundation

// `swift run autocancel-demo [--screens N] [--requests-per-screen N] [--seed N] [--json]`:
// the same seeded browsing scenario without binding and with AutoCancel, compared at the server.

let options: DemoOptions
do {
  options = try DemoOptions(arguments: Array(CommandLine.arguments.dropFirst()))
} catch {
  FileHandle.standardError.write(Data("autocancel-demo: \(error)\n\n\(DemoOptions.usage)\n".utf8))
  exit(2)
}
if options.help {
  print(DemoOptions.usage)
  exit(0)
}

let plan = ScenarioPlan.random(
  screens: options.screens, requestsPerScreen: options.requestsPerScreen, seed: options.seed)
let runner = ScenarioRunner(plan: plan)
let progress = ProgressLine(toStandardError: options.json)
do {
  let without = try await runner.run(.withoutBinding, progress: progress.show)
  let with = try await runner.run(.withAutoCancel, progress: progress.show)
  let report = DemoReport(
    plan: plan, seed: options.seed, without: RunMeasurement(without), with: RunMeasurement(with))
  print(options.json ? report.json() : "\n" + report.table())
} catch {
  FileHandle.standardError.write(Data("autocancel-demo: \(error)\n".utf8))
  exit(1)
}
