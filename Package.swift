// swift-tools-version:6.0
import PackageDescription

/// Engine modules run every nonisolated async function on its caller's executor, so the whole
/// client engine stays on one serial executor (see docs/ARCHITECTURE.md, "One executor").
let engineSettings: [SwiftSetting] = [
  .enableUpcomingFeature("NonisolatedNonsendingByDefault"),
  .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
  name: "chat",
  platforms: [.macOS(.v15)],
  products: [
    .executable(name: "chat-sim", targets: ["chat-sim"]),
    .library(name: "ChatDomain", targets: ["ChatDomain"]),
    .library(name: "ChatData", targets: ["ChatData"]),
    .library(name: "ChatPresentation", targets: ["ChatPresentation"]),
    .library(name: "ChatServer", targets: ["ChatServer"]),
  ],
  targets: [
    // System libraries (Debian packages; see .ci/run).
    .systemLibrary(
      name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
    .systemLibrary(
      name: "CCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
    .systemLibrary(name: "CEpoll"),

    // Storage.
    .target(name: "SQLite", dependencies: ["CSQLite"], swiftSettings: engineSettings),

    // Client layers: presentation → domain ← data.
    .target(name: "ChatDomain", swiftSettings: engineSettings),
    .target(
      name: "ChatData", dependencies: ["ChatDomain", "SQLite"], swiftSettings: engineSettings),
    .target(
      name: "ChatPresentation", dependencies: ["ChatDomain"], swiftSettings: engineSettings),

    // Network.
    .target(name: "Wire", dependencies: ["CEpoll", "CCrypto"], swiftSettings: engineSettings),

    // Reference server core: every route and live event of API.md over SQLite, no sockets.
    .target(
      name: "ChatServer", dependencies: ["SQLite", "CCrypto"], swiftSettings: engineSettings),

    // Test support shared by the test targets.
    .target(
      name: "ChatTestSupport", dependencies: ["ChatDomain", "ChatData", "ChatServer", "SQLite"],
      swiftSettings: engineSettings),

    // Deterministic fault simulation: real engines and the real server over a simulated network.
    .target(
      name: "ChatSimulation",
      dependencies: ["ChatDomain", "ChatData", "ChatPresentation", "ChatServer", "SQLite"],
      swiftSettings: engineSettings),
    .executableTarget(
      name: "chat-sim", dependencies: ["ChatSimulation"], swiftSettings: engineSettings),
    .testTarget(
      name: "SimulationTests", dependencies: ["ChatSimulation", "ChatData"],
      swiftSettings: engineSettings),

    .testTarget(name: "SQLiteTests", dependencies: ["SQLite"], swiftSettings: engineSettings),
    .testTarget(
      name: "ChatDomainTests", dependencies: ["ChatDomain"], swiftSettings: engineSettings),
    .testTarget(
      name: "ChatDataTests", dependencies: ["ChatData", "ChatTestSupport"],
      swiftSettings: engineSettings),
    .testTarget(
      name: "ChatPresentationTests", dependencies: ["ChatPresentation", "ChatTestSupport"],
      swiftSettings: engineSettings),
    .testTarget(name: "WireTests", dependencies: ["Wire"], swiftSettings: engineSettings),
    .testTarget(
      name: "ChatServerTests", dependencies: ["ChatServer", "SQLite"],
      swiftSettings: engineSettings),
  ]
)
