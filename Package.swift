// swift-tools-version:6.0
import PackageDescription

let package = Package(
  name: "OperationBridge",
  platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
  products: [
    .library(name: "OperationCore", targets: ["OperationCore"]),
    .library(name: "AsyncBridge", targets: ["AsyncBridge"]),
    .library(name: "StackExchange", targets: ["StackExchange"]),
    .executable(name: "bridge-demo", targets: ["bridge-demo"]),
  ],
  targets: [
    .target(name: "OperationCore"),
    .target(name: "AsyncBridge", dependencies: ["OperationCore"]),
    .target(name: "StackExchange", dependencies: ["OperationCore", "AsyncBridge"]),
    .target(
      name: "FixtureServer", resources: [.embedInCode("StackExchange/Resources/questions.json")]),
    .executableTarget(
      name: "bridge-demo",
      dependencies: [
        "OperationCore", "AsyncBridge", "StackExchange", "FixtureServer", "Benchmarks",
      ]
    ),
    .target(name: "Benchmarks", dependencies: ["OperationCore", "AsyncBridge", "FixtureServer"]),
    .executableTarget(name: "instruction-counts", dependencies: ["Benchmarks"]),
    .target(
      name: "TestSupport", dependencies: ["OperationCore", "AsyncBridge"], path: "Tests/TestSupport"
    ),
    .testTarget(
      name: "OperationCoreTests",
      dependencies: ["OperationCore", "AsyncBridge", "TestSupport", "FixtureServer"]),
    .testTarget(
      name: "AsyncBridgeTests", dependencies: ["AsyncBridge", "OperationCore", "TestSupport"]),
    .testTarget(
      name: "StackExchangeTests",
      dependencies: [
        "StackExchange", "OperationCore", "AsyncBridge", "FixtureServer", "TestSupport",
      ]
    ),
    .testTarget(name: "FixtureServerTests", dependencies: ["FixtureServer", "TestSupport"]),
    .testTarget(name: "BenchmarksTests", dependencies: ["Benchmarks", "TestSupport"]),
    .testTarget(
      name: "LegacyAdoptionTests", dependencies: ["AsyncBridge", "OperationCore", "TestSupport"]),
    .testTarget(
      name: "BridgeDemoTests",
      dependencies: ["bridge-demo", "FixtureServer", "OperationCore", "TestSupport"]),
  ]
)
