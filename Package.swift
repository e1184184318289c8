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
  platforms: [.iOS(.v17), .macOS(.v14)],
  products: [
    .executable(name: "chat-sim", targets: ["chat-sim"]),
    .library(name: "ChatIdentifiers", targets: ["ChatIdentifiers"]),
    .library(name: "ChatDomain", targets: ["ChatDomain"]),
    .library(name: "ChatData", targets: ["ChatData"]),
    .library(name: "ChatPresentation", targets: ["ChatPresentation"]),
    .library(name: "ChatTransports", targets: ["ChatTransports"]),
    .library(name: "ChatServer", targets: ["ChatServer"]),
    .library(name: "ChatLoad", targets: ["ChatLoad"]),
    .executable(name: "chat-server", targets: ["chat-server"]),
    .executable(name: "chat-load", targets: ["chat-load"]),
  ],
  targets: [
    // System libraries (Debian packages; see .ci/run).
    .systemLibrary(
      name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
    .systemLibrary(
      name: "CCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
    .systemLibrary(
      name: "CTLS", pkgConfig: "openssl", providers: [.apt(["libssl-dev"])]),
    .systemLibrary(name: "CEpoll"),
    // OpenSSL started before `main` without its exit-time clean-up, so a process that exits
    // while a thread is in a handshake does not crash (lifetime.c). Linked by every user of
    // OpenSSL.
    .target(
      name: "CCryptoLifetime", linkerSettings: [.linkedLibrary("ssl"), .linkedLibrary("crypto")]),
    .systemLibrary(name: "CLibPQ", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),

    // Support with no chat meaning: time, randomness, logging, the retry policy, a lock.
    .target(name: "Support", swiftSettings: engineSettings),

    // The contract of API.md: every request, response, item and live event, one encoding.
    .target(name: "ChatAPI", dependencies: ["Support"], swiftSettings: engineSettings),

    // The command-line layer every tool parses its arguments with, in the shape of
    // swift-argument-parser (which cannot be fetched here).
    .target(name: "ArgumentParsing", swiftSettings: engineSettings),

    // Storage.
    .target(name: "SQLite", dependencies: ["CSQLite", "Support"], swiftSettings: engineSettings),
    // The server's other store: PostgreSQL through libpq (blocking calls, a thread each).
    .target(name: "Postgres", dependencies: ["CLibPQ", "Support"], swiftSettings: engineSettings),

    // The ids both sides speak (user, device, conversation, message) and their rules: shared by
    // the client modules and the server.
    .target(name: "ChatIdentifiers", dependencies: ["Support"], swiftSettings: engineSettings),

    // Client layers: presentation → domain ← data.
    .target(
      name: "ChatDomain", dependencies: ["ChatIdentifiers", "Support"],
      swiftSettings: engineSettings),
    .target(
      name: "ChatData",
      dependencies: ["ChatAPI", "ChatDomain", "ChatIdentifiers", "SQLite", "Support"],
      swiftSettings: engineSettings),
    .target(
      name: "ChatPresentation", dependencies: ["ChatDomain", "ChatIdentifiers", "Support"],
      swiftSettings: engineSettings),
    // A device's state as the package's tools read it below the screens (every conversation and
    // message row, whether a text is still held): the simulation's checker and the tests. Not a
    // product: what it reads of ChatData is `package`, out of an app's reach.
    .target(
      name: "ChatDataInspection",
      dependencies: ["ChatData", "ChatDomain", "ChatIdentifiers", "SQLite"],
      swiftSettings: engineSettings),

    // Network.
    .target(
      name: "Wire", dependencies: ["CEpoll", "CCrypto", "CCryptoLifetime", "CTLS"],
      swiftSettings: engineSettings),

    // NATS's client protocol on Wire: the relay between server nodes (`chat-server --relay`).
    .target(name: "NATS", dependencies: ["Support", "Wire"], swiftSettings: engineSettings),

    // The engine's transports built on Wire, for Linux (an Apple app plugs in URLSession's and
    // its own WebSocket instead).
    .target(
      name: "ChatTransports",
      dependencies: ["ChatAPI", "ChatData", "Hashing", "ImagePipeline", "Support", "Wire"],
      swiftSettings: engineSettings),

    // The server side's digests and MACs (OpenSSL's libcrypto): tokens, refresh tokens, SigV4.
    .target(
      name: "Hashing", dependencies: ["CCrypto", "CCryptoLifetime"], swiftSettings: engineSettings),

    // S3-compatible object storage for media: AWS Signature V4 (presigned URLs, checked) and
    // the server's built-in store (a folder, served over S3's REST API on Wire).
    .target(
      name: "ObjectStorage", dependencies: ["Hashing", "Support", "Wire"],
      swiftSettings: engineSettings),

    // The device's image pipeline on Linux (an Apple app would use ImageIO): JPEG and PNG
    // through Debian's libjpeg-turbo and libpng, behind a C shim that catches libjpeg's
    // longjmp errors.
    .target(
      name: "CImageCodecs",
      linkerSettings: [.linkedLibrary("jpeg"), .linkedLibrary("png")]),
    .target(
      name: "ImagePipeline", dependencies: ["CImageCodecs"], swiftSettings: engineSettings),

    // Reference server core: every route and live event of API.md over a store backend
    // (SQLite here), no sockets.
    .target(
      name: "ChatServer",
      dependencies: [
        "ChatAPI", "ChatIdentifiers", "SQLite", "Hashing", "NATS", "Support", "Wire",
      ],
      swiftSettings: engineSettings),
    // The server on PostgreSQL: the store's backend over libpq, the relay between nodes
    // (LISTEN/NOTIFY). Only `chat-server` links it: `chat` and its demo link SQLite alone.
    .target(
      name: "ChatServerPostgres",
      dependencies: ["ChatServer", "Postgres", "SQLite", "Support"],
      swiftSettings: engineSettings),

    // The reference server as a process: options, data folder, signals (`chat-server`).
    .target(
      name: "ChatServerTool",
      dependencies: [
        "ArgumentParsing", "ChatServer", "NATS", "Hashing", "ObjectStorage", "SQLite", "Wire",
      ],
      swiftSettings: engineSettings),
    .executableTarget(
      name: "chat-server", dependencies: ["ChatServerPostgres", "ChatServerTool"],
      swiftSettings: engineSettings),

    // A load generator for durable sends over keep-alive connections (`chat-load`), and the
    // closed-loop HTTP load it runs through Wire, which the benchmarks use too.
    .target(
      name: "ChatLoad", dependencies: ["ArgumentParsing", "Support", "Wire"],
      swiftSettings: engineSettings),
    .executableTarget(
      name: "chat-load", dependencies: ["ChatLoad"], swiftSettings: engineSettings),

    // The terminal client: the screen, the commands, the demo.
    .target(
      name: "ChatTerminal",
      dependencies: [
        "ArgumentParsing", "ChatDomain", "ChatData", "ChatIdentifiers", "ChatPresentation",
        "ChatServer", "ChatServerTool", "ChatTransports", "ChatWorld", "ImagePipeline", "SQLite",
        "Wire",
      ],
      swiftSettings: engineSettings),
    .executableTarget(name: "chat", dependencies: ["ChatTerminal"], swiftSettings: engineSettings),

    // Benchmarks: `swift run -c release chat-bench [--quick] [--json FILE] [--svg DIR]`.
    // CBenchBaseline is the physical limit of the storage figures: a raw SQLite C loop.
    .target(name: "CBenchBaseline", dependencies: ["CSQLite"]),
    .executableTarget(
      name: "chat-bench",
      dependencies: [
        "ArgumentParsing", "ChatAPI", "ChatDomain", "ChatData", "ChatIdentifiers",
        "ChatPresentation", "ChatServer", "ChatServerTool", "ChatTransports", "ImagePipeline",
        "SQLite", "Support", "Wire", "CBenchBaseline", "ChatLoad", "Postgres",
      ],
      swiftSettings: engineSettings),

    // The one embedded world, shared by the tests and the simulation: one manual clock (time and
    // timers), one stepped executor and the world that steps it, and one network with one
    // vocabulary of faults (the demo's network switch is that network too, so `chat` links it).
    // Not a product, and nothing of it in ChatData.
    .target(
      name: "ChatWorld", dependencies: ["ChatAPI", "ChatData", "CPowerLoss", "Support"],
      swiftSettings: engineSettings),
    // The page cache under the world's SQLite files: a VFS that forgets unsynced writes when the
    // power goes (ChatWorld's `PageCache`).
    .target(name: "CPowerLoss", dependencies: ["CSQLite"]),

    // Test support shared by the test targets.
    .target(
      name: "ChatTestSupport",
      dependencies: [
        "ChatAPI", "ChatDomain", "ChatData", "ChatIdentifiers", "ChatServer", "ChatWorld", "SQLite",
        "Support",
      ],
      swiftSettings: engineSettings),

    // Deterministic fault simulation: real engines and the real server over a simulated network.
    .target(
      name: "ChatSimulation",
      dependencies: [
        "ChatAPI", "ChatDomain", "ChatData", "ChatDataInspection", "ChatIdentifiers",
        "ChatPresentation", "ChatServer", "ChatWorld", "Hashing", "SQLite", "Support",
      ],
      swiftSettings: engineSettings),
    .executableTarget(
      name: "chat-sim", dependencies: ["ArgumentParsing", "ChatData", "ChatSimulation"],
      swiftSettings: engineSettings),
    .testTarget(
      name: "SimulationTests",
      dependencies: [
        "ChatAPI", "ChatSimulation", "ChatData", "ChatDataInspection", "ChatDomain",
        "ChatIdentifiers", "ChatPresentation", "ChatWorld", "Hashing", "SQLite", "Support",
      ],
      swiftSettings: engineSettings),

    .testTarget(name: "SupportTests", dependencies: ["Support"], swiftSettings: engineSettings),
    .testTarget(name: "NATSTests", dependencies: ["NATS"], swiftSettings: engineSettings),
    .testTarget(name: "ChatAPITests", dependencies: ["ChatAPI"], swiftSettings: engineSettings),
    .testTarget(
      name: "ImagePipelineTests", dependencies: ["ImagePipeline"], swiftSettings: engineSettings),
    .testTarget(
      name: "ObjectStorageTests", dependencies: ["Hashing", "ObjectStorage", "Support", "Wire"],
      swiftSettings: engineSettings),

    .testTarget(
      name: "ArgumentParsingTests", dependencies: ["ArgumentParsing"],
      swiftSettings: engineSettings),
    .testTarget(name: "SQLiteTests", dependencies: ["SQLite"], swiftSettings: engineSettings),
    .testTarget(name: "PostgresTests", dependencies: ["Postgres"], swiftSettings: engineSettings),
    .testTarget(
      name: "ChatServerPostgresTests",
      dependencies: ["ChatServer", "ChatServerPostgres", "Support"],
      swiftSettings: engineSettings),
    .testTarget(
      name: "ChatIdentifiersTests", dependencies: ["ChatIdentifiers"],
      swiftSettings: engineSettings),
    .testTarget(
      name: "ChatDomainTests", dependencies: ["ChatDomain", "Support"],
      swiftSettings: engineSettings),
    .testTarget(
      name: "ChatDataTests",
      dependencies: [
        "ChatAPI", "ChatData", "ChatDataInspection", "ChatIdentifiers", "ChatTestSupport",
        "ChatWorld",
      ],
      swiftSettings: engineSettings),
    .testTarget(
      name: "ChatPresentationTests",
      dependencies: ["ChatIdentifiers", "ChatPresentation", "ChatTestSupport", "Support"],
      swiftSettings: engineSettings),
    .testTarget(
      name: "WireTests", dependencies: ["Wire", "TLSTestSupport"], swiftSettings: engineSettings),
    // The test certificates (made at run time by scripts/make-test-certificates) for the suites
    // that speak TLS.
    .target(
      name: "TLSTestSupport", dependencies: ["Wire"], path: "Tests/TLSTestSupport",
      swiftSettings: engineSettings),
    .testTarget(
      name: "ChatTerminalTests",
      dependencies: [
        "ArgumentParsing", "ChatAPI", "ChatTerminal", "ChatPresentation", "ChatData",
        "ChatIdentifiers", "ImagePipeline", "Support",
      ],
      swiftSettings: engineSettings),
    .testTarget(
      name: "ChatServerTests",
      dependencies: [
        "ChatAPI", "ChatServer", "ChatTestSupport", "ChatWorld", "Hashing", "SQLite", "Support",
      ],
      swiftSettings: engineSettings),
    // Real engines and tools against the real server over loopback sockets.
    .testTarget(
      name: "EndToEndTests",
      dependencies: [
        "ArgumentParsing", "ChatData", "ChatDomain", "ChatIdentifiers", "ChatServer",
        "ChatServerTool", "ChatLoad", "ChatTestSupport", "ChatTransports", "ImagePipeline",
        "SQLite", "TLSTestSupport", "Wire",
      ],
      swiftSettings: engineSettings),
    // Wire's peer fixture: our server and client, driven by the Python suites in Tests/peers/wire.
    .executableTarget(
      name: "wire-peer", dependencies: ["ArgumentParsing", "Wire"],
      path: "Tests/peers/wire/WirePeer",
      swiftSettings: engineSettings),
  ]
)
