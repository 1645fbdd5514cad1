// swift-tools-version:6.0
import Foundation
import PackageDescription

// Measures, at the loopback server, how long after an owner goes away a request whose server
// holds its response head sees its connection close. Built against the checkout at
// AUTOCANCEL_ROOT (default: this repository), so that two revisions can be compared:
//
//   swift run -c release --package-path scripts/close-latency close-latency
//   AUTOCANCEL_ROOT=/path/to/other/checkout swift run -c release \
//     --package-path scripts/close-latency --scratch-path /tmp/close-latency-other close-latency
let root = ProcessInfo.processInfo.environment["AUTOCANCEL_ROOT"] ?? "../.."

let package = Package(
  name: "close-latency",
  platforms: [.macOS(.v12)],
  dependencies: [.package(name: "AutoCancel", path: root)],
  targets: [
    .executableTarget(
      name: "close-latency",
      dependencies: [
        .product(name: "AutoCancel", package: "AutoCancel"),
        .product(name: "AutoCancelNetworking", package: "AutoCancel"),
        .product(name: "_LoopbackHTTPServer", package: "AutoCancel"),
      ]
    )
  ],
  swiftLanguageModes: [.v6]
)
