// swift-tools-version:6.2
import PackageDescription

/// What an app-mode test target links: the library's modules and the fixture server.
let appModeDependencies: [Target.Dependency] = [
  "OperationCore", "OperationNetworking", "AsyncBridge", "FixtureServer",
]

let package = Package(
  name: "OperationBridge",
  platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
  products: [
    .library(name: "OperationCore", targets: ["OperationCore"]),
    .library(name: "OperationNetworking", targets: ["OperationNetworking"]),
    .library(name: "AsyncBridge", targets: ["AsyncBridge"]),
    .library(name: "StackExchange", targets: ["StackExchange"]),
    .library(name: "OperationBridgeTesting", targets: ["OperationBridgeTesting"]),
    .executable(name: "bridge-demo", targets: ["bridge-demo"]),
  ],
  targets: [
    .target(name: "LockedValue"),
    .target(name: "OperationCore", dependencies: ["LockedValue"]),
    .target(name: "OperationNetworking", dependencies: ["OperationCore", "LockedValue"]),
    .target(name: "AsyncBridge", dependencies: ["OperationCore", "LockedValue"]),
    .target(
      name: "StackExchange",
      dependencies: ["OperationCore", "OperationNetworking", "AsyncBridge"]),
    .target(
      name: "OperationBridgeTesting", dependencies: ["OperationCore", "AsyncBridge", "LockedValue"]),
    .target(
      name: "FixtureServer", dependencies: ["LockedValue"],
      resources: [.embedInCode("StackExchange/Resources/questions.json")]),
    .executableTarget(
      name: "bridge-demo",
      dependencies: [
        "OperationCore", "OperationNetworking", "AsyncBridge", "StackExchange", "FixtureServer",
        "Benchmarks", "LockedValue",
      ]
    ),
    .target(
      name: "Benchmarks",
      dependencies: [
        "OperationCore", "OperationNetworking", "AsyncBridge", "FixtureServer", "LockedValue",
      ]),
    .executableTarget(name: "instruction-counts", dependencies: ["Benchmarks"]),
    .target(
      name: "TestSupport",
      dependencies: [
        "OperationCore", "OperationNetworking", "AsyncBridge", "OperationBridgeTesting",
        "LockedValue",
      ],
      path: "Tests/TestSupport"),
    .testTarget(
      name: "OperationCoreTests",
      dependencies: [
        "OperationCore", "AsyncBridge", "OperationBridgeTesting", "TestSupport", "FixtureServer",
        "LockedValue",
      ]),
    .testTarget(
      name: "OperationNetworkingTests",
      dependencies: [
        "OperationNetworking", "OperationCore", "AsyncBridge", "OperationBridgeTesting",
        "TestSupport", "FixtureServer", "LockedValue",
      ]),
    .testTarget(
      name: "AsyncBridgeTests",
      dependencies: [
        "AsyncBridge", "OperationCore", "OperationBridgeTesting", "TestSupport", "LockedValue",
      ]),
    .testTarget(
      name: "StackExchangeTests",
      dependencies: [
        "StackExchange", "OperationCore", "OperationNetworking", "AsyncBridge", "FixtureServer",
        "OperationBridgeTesting", "TestSupport", "LockedValue",
      ]
    ),
    .testTarget(
      name: "FixtureServerTests", dependencies: ["FixtureServer", "TestSupport", "LockedValue"]),
    .testTarget(name: "LockedValueTests", dependencies: ["LockedValue"]),
    .testTarget(
      name: "OperationBridgeTestingTests",
      dependencies: [
        "OperationBridgeTesting", "OperationCore", "OperationNetworking", "AsyncBridge",
        "StackExchange", "FixtureServer", "TestSupport",
      ]),
    .testTarget(name: "BenchmarksTests", dependencies: ["Benchmarks", "TestSupport"]),
    .testTarget(
      name: "LegacyAdoptionTests",
      dependencies: [
        "AsyncBridge", "OperationCore", "OperationBridgeTesting", "TestSupport", "LockedValue",
      ]),
    .testTarget(
      name: "BridgeDemoTests",
      dependencies: ["bridge-demo", "FixtureServer", "OperationCore", "TestSupport", "LockedValue"]),
    // The documented usage code, compiled as apps compile theirs: MainActorAppTests holds it, the
    // other four link to its files.
    .testTarget(
      name: "MainActorAppTests", dependencies: appModeDependencies,
      swiftSettings: [
        .defaultIsolation(MainActor.self),
        .enableUpcomingFeature("NonisolatedNonsendingByDefault"),
      ]),
    .testTarget(name: "Swift6AppTests", dependencies: appModeDependencies),
    .testTarget(
      name: "MainActorOnlyAppTests", dependencies: appModeDependencies,
      swiftSettings: [.defaultIsolation(MainActor.self)]),
    .testTarget(
      name: "NonsendingAppTests", dependencies: appModeDependencies,
      swiftSettings: [.enableUpcomingFeature("NonisolatedNonsendingByDefault")]),
    .testTarget(
      name: "Swift5AppTests", dependencies: appModeDependencies,
      swiftSettings: [.swiftLanguageMode(.v5), .enableUpcomingFeature("StrictConcurrency")]),
  ]
)
