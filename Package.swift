// swift-tools-version:6.0
import PackageDescription

let package = Package(
  name: "AutoCancel",
  platforms: [.iOS(.v15), .macOS(.v12), .tvOS(.v15), .watchOS(.v8)],
  products: [
    .library(name: "AutoCancel", targets: ["AutoCancel"]),
    .library(name: "AutoCancelNetworking", targets: ["AutoCancelNetworking"]),
    .library(name: "AutoCancelObjC", targets: ["AutoCancelObjC"]),
    .executable(name: "autocancel-demo", targets: ["autocancel-demo"]),
    .executable(name: "autocancel-bench", targets: ["autocancel-bench"]),
  ],
  targets: [
    // The core: standard library and Dispatch only, no Foundation.
    .target(name: "AutoCancel"),
    // URLSession integration.
    .target(name: "AutoCancelNetworking", dependencies: ["AutoCancel"]),
    // The Objective-C category's one-liner on any NSObject, and its drop-in for Objective-C
    // callers (Apple platforms; its runtime-free parts build and are tested everywhere).
    .target(name: "AutoCancelObjC", dependencies: ["AutoCancel"]),
    // A tiny HTTP/1.1 server on 127.0.0.1 for the demo and the tests; not a product.
    .target(name: "LoopbackHTTPServer"),
    // SplitMix64, the one reproducible generator of the demo's plans and the tests' seeded
    // runs; not a product.
    .target(name: "SeededRandom"),
    // The demo's scenario, measurement and report, shared by the executable and its test.
    .target(
      name: "DemoScenario",
      dependencies: ["AutoCancel", "AutoCancelNetworking", "LoopbackHTTPServer", "SeededRandom"]
    ),
    .executableTarget(name: "autocancel-demo", dependencies: ["DemoScenario"]),
    .executableTarget(
      name: "autocancel-bench",
      dependencies: ["AutoCancel", "AutoCancelNetworking", "LoopbackHTTPServer"]
    ),
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
      dependencies: ["AutoCancel", "AutoCancelTestSupport", "SeededRandom"]
    ),
    .testTarget(
      name: "AutoCancelNetworkingTests",
      dependencies: [
        "AutoCancelNetworking", "LoopbackHTTPServer", "AutoCancelTestSupport", "SeededRandom",
      ]
    ),
    .testTarget(
      name: "LoopbackHTTPServerTests",
      dependencies: ["LoopbackHTTPServer", "AutoCancelTestSupport", "SeededRandom"]
    ),
    .testTarget(
      name: "DemoScenarioTests",
      dependencies: ["DemoScenario", "LoopbackHTTPServer", "AutoCancelTestSupport"]
    ),
    .testTarget(
      name: "AutoCancelObjCTests",
      dependencies: ["AutoCancel", "AutoCancelObjC", "AutoCancelTestSupport", "SeededRandom"]
    ),
    // The samples of the DocC articles on apps, Combine and Objective-C, compiled and run
    // (Apple-only ones inside `#if`).
    .testTarget(
      name: "DocumentationSamplesTests",
      dependencies: ["AutoCancel", "AutoCancelObjC", "AutoCancelTestSupport"]
    ),
  ],
  swiftLanguageModes: [.v6]
)
