import Foundation
import Testing

/// An article and the file of this target that holds its samples.
struct ArticleSamples: Sendable, CustomTestStringConvertible {
  var article: String
  /// Relative to this target's folder: `../AutoCancelNetworkingTests/…` for samples that need
  /// a module this target does not link, compiled and tested where they are.
  var samples: String
  /// Only the article's Swift blocks that contain this text are samples of this target.
  var onlyBlocksContaining: String?

  var testDescription: String { article }
}

@Suite("The articles' code samples")
struct ArticleSamplesTests {
  static let all = [
    ArticleSamples(
      article: "Sources/AutoCancel/AutoCancel.docc/UsingAutoCancelWithSwiftUI.md",
      samples: "SwiftUISamples.swift"),
    ArticleSamples(
      article: "Sources/AutoCancel/AutoCancel.docc/UsingAutoCancelWithUIKit.md",
      samples: "UIKitSamples.swift"),
    ArticleSamples(
      article: "Sources/AutoCancel/AutoCancel.docc/ComingFromCombineOrRxSwift.md",
      samples: "CombineSamples.swift"),
    ArticleSamples(
      article: "Sources/AutoCancel/AutoCancel.docc/KeysAndPolicies.md",
      samples: "KeysAndPoliciesSamples.swift"),
    ArticleSamples(
      article: "Sources/AutoCancel/AutoCancel.docc/NamingAndStartingTasks.md",
      samples: "NamingAndStartingTasksSamples.swift"),
    ArticleSamples(
      article:
        "Sources/AutoCancelDiagnostics/AutoCancelDiagnostics.docc/SeeingWhatAutoCancelSaves.md",
      samples: "StatisticsSamples.swift"),
    ArticleSamples(
      article: "Sources/AutoCancel/AutoCancel.docc/OutlivingTheOwner.md",
      samples: "../AutoCancelNetworkingTests/AppScopeSamples.swift"),
    ArticleSamples(
      article: "Sources/AutoCancel/AutoCancel.docc/MigratingFromObjectiveC.md",
      samples: "MigrationSamples.swift", onlyBlocksContaining: "import AutoCancelObjC"),
    ArticleSamples(
      article: "Sources/AutoCancelObjC/AutoCancelObjC.docc/AutoCancelObjC.md",
      samples: "MigrationSamples.swift", onlyBlocksContaining: "import AutoCancelObjC"),
  ]

  @Test("appear in this target line for line, so every one of them is compiled", arguments: all)
  func samplesAreCompiled(_ pair: ArticleSamples) throws {
    let here = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    let root = here.deletingLastPathComponent().deletingLastPathComponent()
    let article = try String(contentsOf: root.appendingPathComponent(pair.article), encoding: .utf8)
    let samples = try String(
      contentsOf: here.appendingPathComponent(pair.samples), encoding: .utf8)
    let compiled = normalized(samples.components(separatedBy: "\n"))
    let blocks = swiftBlocks(in: article).filter { block in
      pair.onlyBlocksContaining.map { block.joined().contains($0) } ?? true
    }
    #expect(!blocks.isEmpty, "no Swift sample in \(pair.article)")
    for block in blocks {
      let lines = normalized(block)
      #expect(
        contains(compiled, lines),
        "this sample of \(pair.article) is not in \(pair.samples):\n\(block.joined(separator: "\n"))"
      )
    }
  }

  /// The lines of each ```swift block of a Markdown text.
  private func swiftBlocks(in markdown: String) -> [[String]] {
    var blocks: [[String]] = []
    var current: [String]?
    for line in markdown.components(separatedBy: "\n") {
      let trimmed = line.trimmingCharacters(in: .whitespaces)
      if current == nil, trimmed == "```swift" {
        current = []
      } else if current != nil, trimmed == "```" {
        blocks.append(current!)
        current = nil
      } else {
        current?.append(line)
      }
    }
    return blocks
  }

  /// Lines without their indentation (samples sit inside `#if` blocks), blank lines dropped.
  private func normalized(_ lines: [String]) -> [String] {
    lines.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
  }

  /// Whether `lines` appear in `text` one after the other.
  private func contains(_ text: [String], _ lines: [String]) -> Bool {
    guard !lines.isEmpty, lines.count <= text.count else { return lines.isEmpty }
    return (0...(text.count - lines.count)).contains { start in
      Array(text[start..<(start + lines.count)]) == lines
    }
  }
}
