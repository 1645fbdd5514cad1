// swift-tools-version:6.0
import PackageDescription

// The demo and the benchmarks: a package of their own, so that the library's package has no
// executable products and Xcode can build and test it for every Apple platform. They use
// the library through the products an app uses, plus the library's test server and seeded
// generator (underscored products, not for apps).
let package = Package(
  name: "AutoCancelDemo",
  platforms: [.iOS(.v15), .macOS(.v12), .tvOS(.v15), .watchOS(.v8)],
  dependencies: [
    .package(name: "AutoCancel", path: "..")
  ],
  targets: [
    // The demo's scenario, measurement and report, shared by the executable and its test.
    .target(
      name: "DemoScenario",
      dependencies: [
        .product(name: "AutoCancel", package: "AutoCancel"),
        .product(name: "AutoCancelNetworking", package: "AutoCancel"),
        .product(name: "_LoopbackHTTPServer", package: "AutoCancel"),
        .product(name: "_SeededRandom", package: "AutoCancel"),
      ]
    ),
    .executableTarget(name: "autocancel-demo", dependencies: ["DemoScenario"]),
    .executableTarget(
      name: "autocancel-bench",
      dependencies: [
        .product(name: "AutoCancel", package: "AutoCancel"),
        .product(name: "AutoCancelNetworking", package: "AutoCancel"),
        .product(name: "_LoopbackHTTPServer", package: "AutoCancel"),
      ]
    ),
    .testTarget(
      name: "DemoScenarioTests",
      dependencies: [
        "DemoScenario",
        .product(name: "_LoopbackHTTPServer", package: "AutoCancel"),
        .product(name: "_AutoCancelTestSupport", package: "AutoCancel"),
      ]
    ),
  ],
  swiftLanguageModes: [.v6]
)
