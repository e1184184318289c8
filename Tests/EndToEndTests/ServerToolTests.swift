import ArgumentParsing
import ChatAPI
import ChatLoad
import ChatServerTool
import ChatTestSupport
import ChatTransports
import Foundation
import Support
import Testing

@testable import ChatServer

/// `chat-server`'s options, its data folder, and `chat-load` against a server in this process.
@Suite(.timeLimit(.minutes(2)))
struct ServerToolTests {
  @Test func defaultsAreLoopbackPort8080AndTheXDGDataFolder() throws {
    let options = try ServerOptions.parse([], environment: ["XDG_DATA_HOME": "/x", "HOME": "/h"])
    #expect(options.host == "127.0.0.1")
    #expect(options.port == 8080)
    #expect(options.dataFolder == "/x/chat-server")
    #expect(!options.devMode)
    #expect(options.accessTokenTTL == 900)
    #expect(options.rateLimit == RateLimit())
    #expect(options.liveTokenGrace == 30)
    #expect(options.addressRateLimit == RateLimit(burst: 60, perSecond: 1))
    #expect(options.typingLimit == RateLimit(burst: 5, perSecond: 1))
    #expect(options.log == .standardError)
    #expect(options.tlsCertificate == nil && options.tlsKey == nil && !options.usesTLS)
    #expect(
      try ServerOptions.parse([], environment: ["HOME": "/h"]).dataFolder
        == "/h/.local/share/chat-server")
    #expect(try ServerOptions.parse([], environment: [:]).dataFolder == "./chat-server-data")
  }

  @Test func everyOptionHasAnEnvironmentVariableAndTheCommandLineWins() throws {
    let environment = [
      "CHAT_SERVER_HOST": "::1", "CHAT_SERVER_PORT": "9000", "CHAT_SERVER_DATA": "/env",
      "CHAT_SERVER_DEV": "1", "CHAT_SERVER_ACCESS_TOKEN_TTL": "5", "CHAT_SERVER_RATE_LIMIT": "off",
      "CHAT_SERVER_LOG": "/tmp/x.log", "CHAT_SERVER_PING_INTERVAL": "7",
      "CHAT_SERVER_PING_TIMEOUT": "3", "CHAT_SERVER_SHUTDOWN_TIMEOUT": "2",
      "CHAT_SERVER_TLS_CERT": "/env/chain.pem", "CHAT_SERVER_TLS_KEY": "/env/key.pem",
      "CHAT_SERVER_ADDRESS_RATE_LIMIT": "off", "CHAT_SERVER_TYPING_LIMIT": "3,0.5",
      "CHAT_SERVER_DEV_ON_NETWORK": "1",
    ]
    let fromEnvironment = try ServerOptions.parse([], environment: environment)
    #expect(fromEnvironment.host == "::1")
    #expect(fromEnvironment.port == 9000)
    #expect(fromEnvironment.dataFolder == "/env")
    #expect(fromEnvironment.devMode)
    #expect(fromEnvironment.devOnNetwork)
    #expect(fromEnvironment.accessTokenTTL == 5)
    #expect(fromEnvironment.rateLimit == nil)
    #expect(fromEnvironment.addressRateLimit == nil)
    #expect(fromEnvironment.typingLimit == RateLimit(burst: 3, perSecond: 0.5))
    #expect(fromEnvironment.log == .file("/tmp/x.log"))
    #expect(fromEnvironment.pingInterval == 7)
    #expect(fromEnvironment.pingTimeout == 3)
    #expect(fromEnvironment.shutdownTimeout == 2)
    #expect(fromEnvironment.tlsCertificate == "/env/chain.pem")
    #expect(fromEnvironment.tlsKey == "/env/key.pem")
    #expect(fromEnvironment.usesTLS)

    let fromArguments = try ServerOptions.parse(
      [
        "--host", "0.0.0.0", "--port=0", "--data", "/arg", "--access-token-ttl", "60",
        "--rate-limit", "10,2.5", "--log", "off", "--ping-interval", "1",
        "--tls-cert", "/arg/chain.pem", "--tls-key=/arg/key.pem",
      ], environment: environment)
    #expect(fromArguments.host == "0.0.0.0")
    #expect(fromArguments.port == 0)
    #expect(fromArguments.dataFolder == "/arg")
    #expect(fromArguments.accessTokenTTL == 60)
    #expect(fromArguments.rateLimit == RateLimit(burst: 10, perSecond: 2.5))
    #expect(fromArguments.log == .off)
    #expect(fromArguments.pingInterval == 1)
    #expect(fromArguments.tlsCertificate == "/arg/chain.pem")
    #expect(fromArguments.tlsKey == "/arg/key.pem")
  }

  /// `--database` comes from CHAT_DATABASE_URL too, and the start-up line shows where it is
  /// without its user, password or parameters.
  @Test func theDatabaseURLComesFromTheEnvironmentAndIsShownWithoutItsSecrets() throws {
    let options = try ServerOptions.parse(
      [],
      environment: [
        "CHAT_DATABASE_URL": "postgres://chat:s3cret@db.example:5433/chat?sslmode=require"
      ])
    #expect(options.database == "postgres://chat:s3cret@db.example:5433/chat?sslmode=require")
    #expect(options.databaseLocation == "db.example:5433/chat")
    #expect(try ServerOptions.parse([], environment: [:]).databaseLocation == nil)
  }

  @Test(arguments: [
    (["--port", "70000"], "--port must be a whole number in 0...65535, got '70000'"),
    (["--port"], "--port needs a value"),
    (["--access-token-ttl", "0"], "--access-token-ttl must be a whole number in 1...31536000"),
    (["--rate-limit", "fast"], "--rate-limit must be BURST,PER_SECOND (e.g. 100,20) or off"),
    (["--dev=yes"], "--dev takes no value"),
    (["--unknown"], "unknown option --unknown"),
    (["serve"], "unexpected argument 'serve'"),
    (["--ping-interval", "-1"], "--ping-interval must be a whole number in 1...86400"),
    (["--host="], "--host needs an address"),
    (["--data", ""], "--data needs a folder"),
    (["--tls-cert", "chain.pem"], "--tls-cert and --tls-key go together"),
    (["--tls-key", "key.pem"], "--tls-cert and --tls-key go together"),
    (["--tls-cert=", "--tls-key", "key.pem"], "--tls-cert needs a file"),
    (["--tls-cert"], "--tls-cert needs a value"),
    (["--object-store-port", "65536"], "--object-store-port must be a whole number in 0...65535"),
    (
      ["--media-retention-days", "0"], "--media-retention-days must be a whole number in 1...36500"
    ),
    (["--s3-endpoint", "http://127.0.0.1:9000"], "--s3-endpoint needs --s3-bucket"),
    (
      ["--no-object-store", "--object-store-public-url", "https://media.example.org"],
      "--object-store-public-url goes with the built-in store"
    ),
    (
      ["--no-object-store", "--object-store-port", "0"],
      "--no-object-store and --object-store-port: give one"
    ),
    (
      ["--object-store-port", "0", "--object-store-public-url", "media.example.org"],
      "--object-store-public-url must be http(s)://host[:port], with no path"
    ),
    (
      ["--s3-endpoint", "http://127.0.0.1:9000", "--s3-bucket", "b"],
      "--s3-endpoint needs its credentials in AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY"
    ),
    (
      ["--database", "mysql://db/chat"],
      "--database must be a postgres://user@host:port/database URL"
    ),
    (["--database-connections", "0"], "--database-connections must be a whole number in 1...256"),
  ])
  func aWrongCommandLineIsAUsageError(arguments: [String], message: String) {
    #expect {
      try ServerOptions.parse(arguments, environment: [:])
    } throws: { error in
      ServerOptions.exitCode(for: error) == .validationFailure
        && ServerOptions.message(for: error).hasPrefix(message)
    }
  }

  @Test func aWrongEnvironmentVariableIsAUsageErrorNamingIt() {
    #expect {
      try ServerOptions.parse([], environment: ["CHAT_SERVER_DEV": "maybe"])
    } throws: { error in
      ServerOptions.message(for: error) == "CHAT_SERVER_DEV must be 1 or 0, got 'maybe'"
    }
    #expect {
      try ServerOptions.parse([], environment: ["CHAT_SERVER_PORT": "x"])
    } throws: { error in
      ServerOptions.message(for: error).hasPrefix("CHAT_SERVER_PORT must be a whole number")
    }
  }

  /// A remote store: its credentials come from the environment (AWS's names); its URL has no
  /// path; it is one store or the other.
  @Test func aRemoteStoreTakesItsKeyFromTheEnvironmentAndExcludesTheBuiltInOne() throws {
    let keys = ["AWS_ACCESS_KEY_ID": "key", "AWS_SECRET_ACCESS_KEY": "secret"]
    let options = try ServerOptions.parse(
      ["--s3-endpoint", "https://[::1]:9000", "--s3-bucket", "chat-media"], environment: keys)
    let s3 = try #require(options.s3)
    #expect(s3.scheme == "https" && s3.host == "[::1]:9000" && s3.bucket == "chat-media")
    #expect(s3.region == "us-east-1" && s3.credentials.accessKeyID == "key")
    for (arguments, message) in [
      (
        ["--s3-endpoint", "http://h:9000", "--s3-bucket", "b", "--object-store-port", "0"],
        "--s3-endpoint and --object-store-port are two stores for media: give one"
      ),
      (
        ["--s3-endpoint", "http://h:9000/prefix", "--s3-bucket", "b"],
        "--s3-endpoint must be http(s)://host[:port], with no path"
      ),
      (
        ["--s3-endpoint", "ftp://h", "--s3-bucket", "b"],
        "--s3-endpoint must be http(s)://host[:port], with no path"
      ),
    ] {
      #expect {
        try ServerOptions.parse(arguments, environment: keys)
      } throws: { error in
        ServerOptions.message(for: error) == message
      }
    }
  }

  /// Half of the pair in the environment is as wrong as half on the command line.
  @Test func halfATLSPairInTheEnvironmentIsAUsageErrorNamingBoth() {
    #expect {
      try ServerOptions.parse([], environment: ["CHAT_SERVER_TLS_KEY": "/k.pem"])
    } throws: { error in
      ServerOptions.exitCode(for: error) == .validationFailure
        && ServerOptions.message(for: error).contains("CHAT_SERVER_TLS_CERT, CHAT_SERVER_TLS_KEY")
    }
  }

  @Test func aUsageErrorPrintsAHintToHelp() {
    #expect {
      try ServerCommand.parseAsRoot(["--port"], environment: [:])
    } throws: { error in
      ServerCommand.fullMessage(for: error)
        == "chat-server: --port needs a value\nRun chat-server --help for the options."
    }
  }

  @Test func theHelpDescribesEveryOptionAndItsEnvironmentVariable() {
    let help = ServerCommand.helpMessage()
    for option in [
      "--host", "--port", "--data", "--dev", "--access-token-ttl", "--rate-limit", "--log",
      "--ping-interval", "--ping-timeout", "--shutdown-timeout", "--tls-cert", "--tls-key",
      "--object-store-port", "--media-retention-days", "--s3-endpoint", "--s3-bucket",
      "--s3-region", "--object-store-public-url", "--live-token-grace", "--address-rate-limit",
      "--typing-limit", "--dev-on-network", "--help",
    ] {
      #expect(help.contains(option), "\(option) is not in --help")
      guard option != "--help" else { continue }
      let variable = "CHAT_SERVER_" + option.dropFirst(2).uppercased().replacing("-", with: "_")
      #expect(help.contains("env: \(variable)"), "\(variable) is not in --help")
    }
    // The remote store's key goes by AWS's names.
    #expect(help.contains("env: AWS_ACCESS_KEY_ID"))
    #expect(help.contains("env: AWS_SECRET_ACCESS_KEY"))
  }

  @Test func theDataFolderIsPrivateAndSoAreTheDatabaseAndTheKey() async throws {
    let folder = try TemporaryFolder()
    var options = ServerOptions(dataFolder: folder.path + "/deep/data")
    options.port = 0
    let server = try ReferenceServer.start(options, log: DiscardingLogSink())
    await server.stop()
    #expect(try Self.mode(of: options.dataFolder) == 0o700)
    #expect(try Self.mode(of: options.dataFolder + "/chat.sqlite") == 0o600)
    #expect(try Self.mode(of: options.dataFolder + "/signing-key") == 0o600)
  }

  /// dev-login lets anyone sign in as anyone: `--dev` listens only where nobody else can
  /// reach, unless `--dev-on-network` says so.
  @Test func devModeRefusesAnAddressOthersCanReachUnlessDevOnNetwork() throws {
    for host in ["127.0.0.1", "127.8.9.10", "::1", "[::1]", "localhost", "::ffff:127.0.0.1"] {
      #expect(try ServerOptions.parse(["--dev", "--host", host], environment: [:]).devMode)
    }
    for host in ["0.0.0.0", "::", "192.168.1.20", "10.0.0.1", "chat.example.org", "::2"] {
      #expect("\(host)") {
        try ServerOptions.parse(["--dev", "--host", host], environment: [:])
      } throws: { error in
        ServerOptions.exitCode(for: error) == .validationFailure
          && ServerOptions.message(for: error).hasPrefix(
            "--dev on \(host) lets anyone who can reach it sign in as anyone")
          && ServerOptions.message(for: error).contains("--dev-on-network")
      }
      let allowed = try ServerOptions.parse(
        ["--dev", "--dev-on-network", "--host", host], environment: [:])
      #expect(allowed.devMode && allowed.devOnNetwork)
      #expect(
        try ServerOptions.parse(
          ["--dev", "--host", host], environment: ["CHAT_SERVER_DEV_ON_NETWORK": "1"]
        ).devMode)
      #expect(try ServerOptions.parse(["--host", host], environment: [:]).host == host)
    }
  }

  @Test func anExistingDataFolderOthersMayEnterIsMade0700AndTheLogSaysSo() async throws {
    let folder = try TemporaryFolder()
    let data = folder.path + "/data"
    try FileManager.default.createDirectory(
      atPath: data, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o755])
    var options = ServerOptions(dataFolder: data)
    options.port = 0
    let log = CapturingLogSink()
    let server = try ReferenceServer.start(options, log: log)
    await server.stop()
    #expect(try Self.mode(of: data) == 0o700)
    let line = try #require(log.records.first { $0.event == "data_folder_tightened" })
    #expect(line.level == .warning)
    #expect(line["folder"] == data)
    #expect(line["mode_was"] == "0755")
    // Already private: nothing to say.
    let again = CapturingLogSink()
    await (try ReferenceServer.start(options, log: again)).stop()
    #expect(!again.events.contains("data_folder_tightened"))
  }

  @Test func aSharedDataFolderIsRefusedRatherThanChanged() throws {
    let folder = try TemporaryFolder()
    let shared = folder.path + "/shared"
    try FileManager.default.createDirectory(
      atPath: shared, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o1777])
    var options = ServerOptions(dataFolder: shared)
    options.port = 0
    #expect {
      try ReferenceServer.start(options, log: DiscardingLogSink())
    } throws: { error in
      "\(error)".hasPrefix("cannot use the data folder \(shared): others may enter it (mode 01777)")
    }
    #expect(try Self.mode(of: shared) == 0o777, "left as it was")
  }

  @Test func theStoreCommitsDurablyInWALMode() async throws {
    let server = try LoopbackServer()
    let settings = try await server.server.service.store.withDatabase { database in
      (
        try database.query("PRAGMA synchronous") { $0.int(0) }.first,
        try database.query("PRAGMA journal_mode") { $0.string(0) }.first
      )
    }
    // 2 is FULL: every COMMIT waits for fdatasync, so nothing is acknowledged before it is on disk.
    #expect(settings.0 == 2)
    #expect(settings.1 == "wal")
    await server.stop()
  }

  /// The per-address budget counts the connection's address (a header naming another changes
  /// nothing), and `--rate-limit off` turns it off with the per-user one.
  @Test(arguments: [false, true])
  func signInsAreBudgetedByTheConnectionsAddressUnlessRateLimitsAreOff(rateLimitOff: Bool)
    async throws
  {
    let folder = try TemporaryFolder()
    var options = ServerOptions(dataFolder: folder.path)
    options.port = 0
    options.devMode = true
    options.addressRateLimit = RateLimit(burst: 2, perSecond: 0.01)
    if rateLimitOff { options.rateLimit = nil }
    let server = try ReferenceServer.start(options, log: DiscardingLogSink())
    let url = try #require(URL(string: server.url))
    let http = try WireHTTPTransport(
      baseURL: url, timeout: .seconds(60),
      configuration: LoopbackServer.patientHTTP)
    var statuses: [Int] = []
    for index in 1...3 {
      let response = try await http.send(
        APIRequest(
          method: "POST", path: "/v1/auth/dev-login",
          headers: [
            "Content-Type": "application/json", "X-Forwarded-For": "198.51.100.\(index)",
          ],
          body: Array(#"{"userId":"u\#(index)","deviceId":"phone"}"#.utf8)))
      statuses.append(response.status)
    }
    await server.stop()
    #expect(statuses == (rateLimitOff ? [200, 200, 200] : [200, 200, 429]))
  }

  @Test func aStartOnAPortInUseSaysSo() async throws {
    let folder = try TemporaryFolder()
    var options = ServerOptions(dataFolder: folder.path)
    options.port = 0
    let first = try ReferenceServer.start(options, log: DiscardingLogSink())
    options.port = first.port
    #expect(throws: ServerStartError.self) {
      try ReferenceServer.start(options, log: DiscardingLogSink())
    }
    await first.stop()
  }

  @Test func chatLoadCountsEveryAcceptedSendAndTheServerAgrees() async throws {
    let server = try LoopbackServer(rateLimit: nil)
    let port = server.server.port
    // SendLoad blocks its caller (threads and epoll): run it off the cooperative pool.
    let report = try await withCheckedThrowingContinuation {
      (continuation: CheckedContinuation<SendLoadReport, any Error>) in
      Thread {
        continuation.resume(
          with: Result {
            try SendLoad.run(
              SendLoadConfiguration(
                port: port, clients: 6, warmup: .milliseconds(200), duration: .milliseconds(500)))
          })
      }.start()
    }
    #expect(report.isClean, "\(report.summary)")
    // Warm-up included: on a machine running every suite at once the measured half second
    // alone may see none.
    #expect(report.totalAccepted > 0)
    #expect(report.serverAcceptedDelta == [report.totalAccepted])
    await server.stop()
  }

  static func mode(of path: String) throws -> Int {
    let attributes = try FileManager.default.attributesOfItem(atPath: path)
    return (attributes[.posixPermissions] as? Int ?? 0) & 0o777
  }
}
