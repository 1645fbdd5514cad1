// swift-tools-version:6.0
import PackageDescription

let package = Package(
  name: "AutoCancel",
  platforms: [.iOS(.v15), .macOS(.v12), .tvOS(.v15), .watchOS(.v8)],
  products: [
    .library(name: "AutoCancel", targets: ["AutoCancel"]),
    .library(name: "AutoCancelNetworking", targets: ["AutoCancelNetworking"]),
    .executable(name: "autocancel-demo", targets: ["autocancel-demo"]),
    .executable(name: "autocancel-bench", targets: ["autocancel-bench"]),
  ],
  targets: [
    // The core: standard library and Dispatch only, no Foundation.
    .target(name: "AutoCancel"),
    // URLSession integration.
    .target(name: "AutoCancelNetworking", dependencies: ["AutoCancel"]),
    // A tiny HTTP/1.1 server on 127.0.0.1 for the demo and the tests; not a product.
    .target(name: "LoopbackHTTPServer"),
    // The demo's scenario, measurement and report, shared by the executable and its test.
    .target(
      name: "DemoScenario",
      dependencies: ["AutoCancel", "AutoCancelNetworking", "LoopbackHTTPServer"]
    ),
    .executableTarget(name: "autocancel-demo", dependencies: ["DemoScenario"]),
    .executableTarget(
      name: "autocancel-bench",
      dependencies: ["AutoCancel", "AutoCancelNetworking", "LoopbackHTTPServer"]
    ),
    // What the tests share (bounded waits, gates, signals); only test targets depend on it,
    // so it never reaches an app's build. It depends on nothing under test: only on the
    // loopback server, the tests' referee.
    .target(
      name: "AutoCancelTestSupport",
      dependencies: ["LoopbackHTTPServer"],
      path: "Tests/AutoCancelTestSupport"
    ),
    .testTarget(name: "AutoCancelTests", dependencies: ["AutoCancel", "AutoCancelTestSupport"]),
    .testTarget(
      name: "AutoCancelNetworkingTests",
      dependencies: ["AutoCancelNetworking", "LoopbackHTTPServer", "AutoCancelTestSupport"]
    ),
    .testTarget(
      name: "LoopbackHTTPServerTests",
      dependencies: ["LoopbackHTTPServer", "AutoCancelTestSupport"]
    ),
    .testTarget(
      name: "DemoScenarioTests",
      dependencies: ["DemoScenario", "LoopbackHTTPServer", "AutoCancelTestSupport"]
    ),
  ],
  swiftLanguageModes: [.v6]
)
