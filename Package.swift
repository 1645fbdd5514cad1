// swift-tools-version:6.0
import PackageDescription

let package = Package(
  name: "AutoCancel",
  platforms: [.iOS(.v15), .macOS(.v12), .tvOS(.v15), .watchOS(.v8)],
  products: [
    .library(name: "AutoCancel", targets: ["AutoCancel"]),
    .library(name: "AutoCancelNetworking", targets: ["AutoCancelNetworking"]),
    .library(name: "AutoCancelObjC", targets: ["AutoCancelObjC"]),
    // Checks for apps' tests: waiting until a bag is idle, naming the work it still holds.
    .library(name: "AutoCancelTesting", targets: ["AutoCancelTesting"]),
    // What apps watch while they debug and profile, turned on at launch: bags alive by label,
    // owners piling up, work that outlives its cancel, the account of bags' work, signposts.
    .library(name: "AutoCancelDiagnostics", targets: ["AutoCancelDiagnostics"]),
    // Not for apps: the loopback test server and the seeded generator that this package's
    // tests share with the demo and bench in Demo/, a package of its own that can reach them
    // only through products. Their API may change in any release.
    .library(name: "_LoopbackHTTPServer", targets: ["LoopbackHTTPServer"]),
    .library(name: "_SeededRandom", targets: ["SeededRandom"]),
    // Not for apps: the tests' kit, for the demo's own tests.
    .library(name: "_AutoCancelTestSupport", targets: ["AutoCancelTestSupport"]),
  ],
  targets: [
    // The core: standard library and Dispatch only, no Foundation.
    .target(name: "AutoCancel", dependencies: ["CAutoCancelAtomics"]),
    // C11 atomics for the few process-wide values the core reads for every bag, at every
    // Apple floor (Swift's own atomics need iOS 18 / macOS 15).
    .target(name: "CAutoCancelAtomics"),
    // URLSession integration.
    .target(name: "AutoCancelNetworking", dependencies: ["AutoCancel"]),
    // The Objective-C category's one-liner on any NSObject, and its drop-in for Objective-C
    // callers (Apple platforms; its runtime-free parts build and are tested everywhere).
    .target(name: "AutoCancelObjC", dependencies: ["AutoCancel"]),
    // Checks for tests, free of XCTest and Swift Testing, so that any test target links it.
    .target(name: "AutoCancelTesting", dependencies: ["AutoCancel"]),
    // What apps watch while they debug and profile, each part an instrument on the core's
    // seam: bags alive by label, owners piling up, work that outlives its cancel, the account
    // of bags' work, signposts (what to signpost is platform-neutral, and tested everywhere;
    // `OSSignposter` only where `os` exists).
    .target(name: "AutoCancelDiagnostics", dependencies: ["AutoCancel"]),
    // A tiny HTTP/1.1 server on 127.0.0.1 for the tests and the demo.
    .target(name: "LoopbackHTTPServer"),
    // SplitMix64, the one reproducible generator of the tests' seeded runs and the demo's
    // plans.
    .target(name: "SeededRandom"),
    // What the tests share (bounded waits, gates, signals, threads, seeds, recording work);
    // only test targets depend on it, so it never reaches an app's build. Its locks and waits
    // are its own (the tests' referee, like the loopback server); it uses the core only for
    // the protocols its recording work conforms to.
    .target(
      name: "AutoCancelTestSupport",
      dependencies: ["AutoCancel", "LoopbackHTTPServer", "SeededRandom"],
      path: "Tests/AutoCancelTestSupport"
    ),
    .testTarget(
      name: "AutoCancelTests",
      dependencies: [
        "AutoCancel", "AutoCancelDiagnostics", "AutoCancelTestSupport", "SeededRandom",
      ]
    ),
    .testTarget(
      name: "AutoCancelNetworkingTests",
      dependencies: [
        "AutoCancelDiagnostics", "AutoCancelNetworking", "LoopbackHTTPServer",
        "AutoCancelTestSupport", "SeededRandom",
      ]
    ),
    .testTarget(
      name: "LoopbackHTTPServerTests",
      dependencies: ["LoopbackHTTPServer", "AutoCancelTestSupport", "SeededRandom"]
    ),
    .testTarget(
      name: "AutoCancelObjCTests",
      dependencies: [
        "AutoCancel", "AutoCancelDiagnostics", "AutoCancelObjC", "AutoCancelTestSupport",
        "SeededRandom",
      ]
    ),
    .testTarget(
      name: "AutoCancelTestingTests",
      dependencies: [
        "AutoCancel", "AutoCancelDiagnostics", "AutoCancelTesting", "AutoCancelTestSupport",
      ]
    ),
    .testTarget(
      name: "AutoCancelDiagnosticsTests",
      dependencies: [
        "AutoCancel", "AutoCancelDiagnostics", "AutoCancelTestSupport", "SeededRandom",
      ]
    ),
    // The samples of the DocC articles on apps, Combine, Objective-C and the account of what
    // was saved, compiled and run (Apple-only ones inside `#if`).
    .testTarget(
      name: "DocumentationSamplesTests",
      dependencies: [
        "AutoCancel", "AutoCancelDiagnostics", "AutoCancelNetworking", "AutoCancelObjC",
        "AutoCancelTestSupport",
      ]
    ),
  ],
  swiftLanguageModes: [.v6]
)
