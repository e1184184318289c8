import ArgumentParsing
import ChatServer
import NATS
import ObjectStorage

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The options of `chat-server`, from the command line or, for each one, its environment
/// variable `CHAT_SERVER_<NAME>` (the command line wins). `parse(_:environment:)` is the pure
/// function tests call; `ServerCommand` includes these options and runs the server.
public struct ServerOptions: ParsableArguments, Sendable {
  @Option(
    help: ArgumentHelp(
      "Address to listen on: loopback only by default; 0.0.0.0 or :: listen on every interface.",
      valueName: "ADDRESS"),
    environment: "CHAT_SERVER_HOST")
  public var host = "127.0.0.1"

  @Option(
    help: ArgumentHelp("TCP port; 0 picks a free one, printed at start.", valueName: "N"),
    environment: "CHAT_SERVER_PORT", transform: Int.inRange(0...65_535))
  public var port = 8080

  /// The folder holding `chat.sqlite` and `signing-key`.
  @Option(
    name: .customLong("data"),
    help: ArgumentHelp(
      "Data folder for chat.sqlite and signing-key, created mode 0700 (default "
        + "$XDG_DATA_HOME/chat-server, else ~/.local/share/chat-server).",
      valueName: "DIR"),
    environment: "CHAT_SERVER_DATA", defaultFromEnvironment: ServerOptions.defaultDataFolder)
  public var dataFolder: String

  @Flag(
    name: .customLong("dev"),
    help: ArgumentHelp(
      "Dev mode: POST /v1/auth/dev-login signs anyone in as any user. Never on a server "
        + "others can reach."),
    environment: "CHAT_SERVER_DEV")
  public var devMode = false

  /// Lets `--dev` listen on an address others can reach.
  @Flag(
    name: .customLong("dev-on-network"),
    help: ArgumentHelp(
      "Allow --dev on a --host others can reach (not 127.0.0.0/8, ::1 or localhost): "
        + "dev-login lets anyone who reaches the server sign in as anyone, so only on a "
        + "network you trust entirely."),
    environment: "CHAT_SERVER_DEV_ON_NETWORK")
  public var devOnNetwork = false

  /// Seconds an access token lives.
  @Option(
    help: ArgumentHelp("Seconds an access token is valid.", valueName: "S"),
    environment: "CHAT_SERVER_ACCESS_TOKEN_TTL", transform: Int.inRange(1...31_536_000))
  public var accessTokenTTL = 900

  /// Seconds a live socket stays open past the expiry of its access token.
  @Option(
    help: ArgumentHelp(
      "Seconds a live socket stays open after its access token expired; then it closes with "
        + "4001 \"token expired\" and the client refreshes and reconnects.",
      valueName: "S"),
    environment: "CHAT_SERVER_LIVE_TOKEN_GRACE", transform: Int.inRange(0...3_600))
  public var liveTokenGrace = 30

  /// Nil turns rate limiting off (benchmarks).
  @Option(
    help: ArgumentHelp(
      "Per-user request budget: BURST,PER_SECOND (e.g. 100,20, the default) or off, for "
        + "benchmarks.",
      valueName: "SPEC"),
    environment: "CHAT_SERVER_RATE_LIMIT", transform: ServerOptions.rateLimit)
  public var rateLimit: RateLimit? = RateLimit()

  /// Nil turns it off; `--rate-limit off` does too (`ReferenceServer.start`).
  @Option(
    help: ArgumentHelp(
      "Per-address budget of requests made without a valid token (dev-login, refresh, and "
        + "/v1/live upgrades whose token is refused): BURST,PER_SECOND (60,1 by default) or "
        + "off. --rate-limit off turns it off too.",
      valueName: "SPEC"),
    environment: "CHAT_SERVER_ADDRESS_RATE_LIMIT", transform: ServerOptions.rateLimit)
  public var addressRateLimit: RateLimit? = ServerConfiguration().addressRateLimit

  /// Nil relays every typing frame.
  @Option(
    help: ArgumentHelp(
      "Typing frames relayed per live socket: BURST,PER_SECOND (5,1 by default) or off; the "
        + "rest are dropped and counted, never an error.",
      valueName: "SPEC"),
    environment: "CHAT_SERVER_TYPING_LIMIT", transform: ServerOptions.rateLimit)
  public var typingLimit: RateLimit? = ServerConfiguration().typingLimit

  @Option(
    help: ArgumentHelp(
      "One line per request (logfmt; never message text or tokens): stderr, a file path "
        + "(appended, created 0600), or off.",
      valueName: "DEST"),
    environment: "CHAT_SERVER_LOG")
  public var log = LogDestination.standardError

  /// Seconds of silence on a live socket before the server pings it.
  @Option(
    help: ArgumentHelp(
      "Seconds of silence on a live socket before the server pings it.", valueName: "S"),
    environment: "CHAT_SERVER_PING_INTERVAL", transform: Int.inRange(1...86_400))
  public var pingInterval = 30

  /// Seconds the server waits for any byte after a ping before dropping the socket.
  @Option(
    help: ArgumentHelp(
      "Seconds to wait for an answer to that ping before dropping the socket.", valueName: "S"),
    environment: "CHAT_SERVER_PING_TIMEOUT", transform: Int.inRange(1...3_600))
  public var pingTimeout = 10

  /// Bytes a live socket may have waiting; past it its device (which stopped reading) is dropped
  /// and catches up when back. At least 64 KiB, so one event (a long text) always fits.
  @Option(
    help: ArgumentHelp(
      "Bytes waiting for a live socket that stopped reading before it is dropped.",
      valueName: "N"),
    environment: "CHAT_SERVER_LIVE_BUFFER_BYTES", transform: Int.inRange(65_536...(1 << 30)))
  public var liveBufferBytes = 1 << 20

  /// Catch-up reads served at once; more are answered 503 with Retry-After (a crowd of
  /// devices reconnecting together waits its turn at the client, not in the server's memory).
  @Option(
    name: .customLong("max-catch-ups"),
    help: ArgumentHelp(
      "Catch-up reads (sync, a page of messages) served at once; more get 503 and Retry-After.",
      valueName: "N"),
    environment: "CHAT_SERVER_MAX_CATCH_UPS", transform: Int.inRange(1...100_000))
  public var maxCatchUps = 64

  /// Seconds a graceful stop waits for requests in flight and closing handshakes.
  @Option(
    help: ArgumentHelp(
      "Seconds a stop waits for requests in flight before closing what is left.",
      valueName: "S"),
    environment: "CHAT_SERVER_SHUTDOWN_TIMEOUT", transform: Int.inRange(0...3_600))
  public var shutdownTimeout = 10

  /// With `tlsKey`: serve HTTPS and WSS with this certificate chain.
  @Option(
    name: .customLong("tls-cert"),
    help: ArgumentHelp(
      "Serve HTTPS and WSS (TLS 1.2+) with this PEM certificate chain: the server's "
        + "certificate, then its intermediates. Needs --tls-key.",
      valueName: "FILE"),
    environment: "CHAT_SERVER_TLS_CERT")
  public var tlsCertificate: String?

  /// The private key of `tlsCertificate`.
  @Option(
    name: .customLong("tls-key"),
    help: ArgumentHelp(
      "The PEM private key of --tls-cert, unencrypted (keep it mode 0600).", valueName: "FILE"),
    environment: "CHAT_SERVER_TLS_KEY")
  public var tlsKey: String?

  /// The built-in S3-compatible object store's port, when given (`builtInStorePort` says
  /// whether it is served).
  @Option(
    help: ArgumentHelp(
      "Serve the built-in S3-compatible object store (media bytes, in DIR/objects) on this "
        + "port; by default (0) a free one, printed at start. Its bucket is chat-media, its "
        + "region us-east-1, its access key chat-server; its secret is derived from "
        + "signing-key.",
      valueName: "N"),
    environment: "CHAT_SERVER_OBJECT_STORE_PORT", transform: Int.inRange(0...65_535))
  public var objectStorePort: Int? = nil

  @Flag(
    name: .customLong("no-object-store"),
    help: ArgumentHelp(
      "Serve no media: uploads and downloads answer 503. Without it (and without "
        + "--s3-endpoint or --database) the built-in store serves media."),
    environment: "CHAT_SERVER_NO_OBJECT_STORE")
  public var noObjectStore = false

  /// Where the built-in store listens, or nil when it is not served: `--object-store-port`,
  /// else a free port, unless `--no-object-store`, `--s3-endpoint` (media go there) or
  /// `--database` (several nodes cannot share one node's folder: give them `--s3-endpoint`)
  /// says otherwise. So a server started with no options serves photos and files.
  public var builtInStorePort: Int? {
    if let objectStorePort { return objectStorePort }
    return noObjectStore || s3Endpoint != nil || database != nil ? nil : 0
  }

  /// Where devices reach the built-in store, when not where it listens.
  @Option(
    help: ArgumentHelp(
      "The built-in store's address as devices reach it (http(s)://host[:port]), for the URLs "
        + "the server hands out; by default where it listens.",
      valueName: "URL"),
    environment: "CHAT_SERVER_OBJECT_STORE_PUBLIC_URL")
  public var objectStorePublicURL: String?

  /// Days media bytes are kept after their upload.
  @Option(
    help: ArgumentHelp(
      "Days media bytes are kept after their upload; then a download is 410 and the bytes go "
        + "(text and thumbnails stay).",
      valueName: "DAYS"),
    environment: "CHAT_SERVER_MEDIA_RETENTION_DAYS", transform: Int.inRange(1...36_500))
  public var mediaRetentionDays = 365

  /// A remote S3-compatible store for media instead of the built-in one.
  @Option(
    name: .customLong("s3-endpoint"),
    help: ArgumentHelp(
      "Keep media in this S3-compatible store (http(s)://host[:port], path-style) instead of "
        + "the built-in one; needs --s3-bucket and the credentials in AWS_ACCESS_KEY_ID and "
        + "AWS_SECRET_ACCESS_KEY.",
      valueName: "URL"),
    environment: "CHAT_SERVER_S3_ENDPOINT")
  public var s3Endpoint: String?

  @Option(
    name: .customLong("s3-bucket"),
    help: ArgumentHelp("The bucket of --s3-endpoint (it must exist).", valueName: "NAME"),
    environment: "CHAT_SERVER_S3_BUCKET")
  public var s3Bucket: String?

  @Option(
    name: .customLong("s3-region"),
    help: ArgumentHelp("The region of --s3-endpoint, which signatures name.", valueName: "NAME"),
    environment: "CHAT_SERVER_S3_REGION")
  public var s3Region = "us-east-1"

  /// The key of `s3Endpoint`: from the environment (a secret has no place on a command line
  /// others can read in `ps`).
  @Option(
    name: .customLong("s3-access-key-id"),
    help: ArgumentHelp(
      "The access key of --s3-endpoint; give it in the environment.", valueName: "KEY"),
    environment: "AWS_ACCESS_KEY_ID")
  public var s3AccessKeyID: String?

  @Option(
    name: .customLong("s3-secret-access-key"),
    help: ArgumentHelp(
      "Its secret; give it in the environment, never on the command line.", valueName: "SECRET"),
    environment: "AWS_SECRET_ACCESS_KEY")
  public var s3SecretAccessKey: String?

  /// Where pushes go: the built-in webhook gateway.
  @Option(
    help: ArgumentHelp(
      "Send push nudges as POSTs of {provider, token, collapseId, payload} to this "
        + "http(s) URL (the reference server's push gateway); without it no push is sent.",
      valueName: "URL"),
    environment: "CHAT_SERVER_PUSH_WEBHOOK")
  public var pushWebhook: String?

  /// Where the data lives when not in SQLite: a PostgreSQL database every node shares.
  @Option(
    help: ArgumentHelp(
      "Keep the data in PostgreSQL at this postgres:// URL instead of SQLite in --data; every "
        + "node started with the same URL serves the same chats.",
      valueName: "URL"),
    environment: "CHAT_DATABASE_URL")
  public var database: String?

  @Option(
    help: ArgumentHelp(
      "Connections this node opens to --database.", valueName: "N"),
    environment: "CHAT_SERVER_DATABASE_CONNECTIONS", transform: Int.inRange(1...256))
  public var databaseConnections = 8

  /// How often a PostgreSQL node vacuums what its deletes and edits left (`vacuumIfOwed`).
  @Option(
    help: ArgumentHelp(
      "With --database: at most this often, a VACUUM of the tables a delete or an edit on this "
        + "node rewrote, so the old text leaves the table's pages.",
      valueName: "SECONDS"),
    environment: "CHAT_SERVER_VACUUM_INTERVAL", transform: Int.inRange(1...86_400))
  public var vacuumInterval = 60

  /// The relay between the nodes of `--database`: NATS instead of PostgreSQL's `NOTIFY`.
  @Option(
    help: ArgumentHelp(
      "With --database: hand live events between the nodes through these NATS servers "
        + "(nats://host:port or tls://host:port, comma-separated: a cluster) instead of "
        + "PostgreSQL's NOTIFY.",
      valueName: "URLS"),
    environment: "CHAT_SERVER_RELAY",
    transform: { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } })
  public var relay: [String]?

  @Option(
    help: ArgumentHelp(
      "The CA certificates (PEM) that tls:// relay servers are checked against, instead of "
        + "the system's.",
      valueName: "FILE"),
    environment: "CHAT_SERVER_RELAY_CA")
  public var relayCA: String?

  public init() {}

  /// The defaults, with the data in `dataFolder`: how tests start a server in-process.
  public init(dataFolder: String) {
    self.dataFolder = dataFolder
  }

  public mutating func validate() throws {
    guard !host.isEmpty else { throw ValidationError("--host needs an address") }
    guard !dataFolder.isEmpty else { throw ValidationError("--data needs a folder") }
    if devMode, !devOnNetwork, !Self.isLoopback(host) {
      throw ValidationError(
        "--dev on \(host) lets anyone who can reach it sign in as anyone (dev-login): "
          + "listen on loopback (127.0.0.1, ::1 or localhost), or add --dev-on-network "
          + "(CHAT_SERVER_DEV_ON_NETWORK=1) on a network you trust")
    }
    if let relay {
      guard database != nil else {
        throw ValidationError("--relay hands events between the nodes of --database: give both")
      }
      for url in relay where NATSServerURL(url) == nil {
        throw ValidationError(
          "--relay takes nats://host:port or tls://host:port, comma-separated: \(url)")
      }
    }
    guard tlsCertificate != "" else { throw ValidationError("--tls-cert needs a file") }
    guard tlsKey != "" else { throw ValidationError("--tls-key needs a file") }
    guard !(noObjectStore && objectStorePort != nil) else {
      throw ValidationError("--no-object-store and --object-store-port: give one")
    }
    if let url = objectStorePublicURL {
      guard builtInStorePort != nil else {
        throw ValidationError("--object-store-public-url goes with the built-in store")
      }
      let probe = SigV4Credentials(accessKeyID: "-", secretAccessKey: "-")
      guard S3Endpoint(url: url, bucket: "-", region: "-", credentials: probe) != nil else {
        throw ValidationError(
          "--object-store-public-url must be http(s)://host[:port], with no path")
      }
    }
    if s3Endpoint != nil {
      guard objectStorePort == nil else {
        throw ValidationError(
          "--s3-endpoint and --object-store-port are two stores for media: give one")
      }
      guard s3Bucket?.isEmpty == false else {
        throw ValidationError("--s3-endpoint needs --s3-bucket (CHAT_SERVER_S3_BUCKET)")
      }
      guard s3AccessKeyID?.isEmpty == false, s3SecretAccessKey?.isEmpty == false else {
        throw ValidationError(
          "--s3-endpoint needs its credentials in AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY")
      }
      guard s3 != nil else {
        throw ValidationError("--s3-endpoint must be http(s)://host[:port], with no path")
      }
    }
    if let url = database {
      guard url.hasPrefix("postgres://") || url.hasPrefix("postgresql://") else {
        throw ValidationError("--database must be a postgres://user@host:port/database URL")
      }
    }
    if let url = pushWebhook {
      guard url.hasPrefix("http://") || url.hasPrefix("https://"), url.count > "https://".count
      else {
        throw ValidationError("--push-webhook must be an http(s)://host[:port][/path] URL")
      }
    }
    guard (tlsCertificate == nil) == (tlsKey == nil) else {
      throw ValidationError(
        "--tls-cert and --tls-key go together (CHAT_SERVER_TLS_CERT, CHAT_SERVER_TLS_KEY): "
          + "give both, or neither for plain HTTP")
    }
  }

  /// The remote store's endpoint, when `--s3-endpoint` names one (checked by `validate`).
  package var s3: S3Endpoint? {
    guard let s3Endpoint, let s3Bucket, let s3AccessKeyID, let s3SecretAccessKey else {
      return nil
    }
    return S3Endpoint(
      url: s3Endpoint, bucket: s3Bucket, region: s3Region,
      credentials: SigV4Credentials(accessKeyID: s3AccessKeyID, secretAccessKey: s3SecretAccessKey))
  }

  /// `--database`'s host, port and database name, without the user, password or parameters
  /// (what a start-up line may show).
  public var databaseLocation: String? {
    guard let url = database, let scheme = url.range(of: "://") else { return nil }
    var rest = url[scheme.upperBound...]
    if let at = rest.lastIndex(of: "@") { rest = rest[rest.index(after: at)...] }
    return String(rest.prefix { $0 != "?" })
  }

  /// Whether `host` only ever reaches this machine: `localhost`, an address of 127.0.0.0/8,
  /// `::1`, or `::ffff:127.x.x.x`. Any other name or address (`0.0.0.0` and `::` listen on
  /// every interface) may be reached by others.
  static func isLoopback(_ host: String) -> Bool {
    var name = host
    if name.hasPrefix("["), name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
    if name.lowercased() == "localhost" { return true }
    var v4 = in_addr()
    if inet_pton(AF_INET, name, &v4) == 1 {
      return withUnsafeBytes(of: &v4) { $0[0] } == 127
    }
    var v6 = in6_addr()
    guard inet_pton(AF_INET6, name, &v6) == 1 else { return false }
    let bytes = withUnsafeBytes(of: &v6) { Array($0) }
    let mappedV4 = bytes[0..<10].allSatisfy { $0 == 0 } && bytes[10] == 0xFF && bytes[11] == 0xFF
    return bytes == [UInt8](repeating: 0, count: 15) + [1] || (mappedV4 && bytes[12] == 127)
  }

  /// Whether the server speaks TLS (both `--tls-cert` and `--tls-key` given).
  public var usesTLS: Bool { tlsCertificate != nil && tlsKey != nil }

  /// `$XDG_DATA_HOME/chat-server`, else `$HOME/.local/share/chat-server`, else
  /// `./chat-server-data`.
  @Sendable public static func defaultDataFolder(environment: [String: String]) -> String {
    if let xdg = environment["XDG_DATA_HOME"], !xdg.isEmpty { return xdg + "/chat-server" }
    if let home = environment["HOME"], !home.isEmpty {
      return home + "/.local/share/chat-server"
    }
    return "./chat-server-data"
  }

  @Sendable private static func rateLimit(_ spec: String) throws -> RateLimit? {
    if spec == "off" { return nil }
    let parts = spec.split(separator: ",", omittingEmptySubsequences: false)
    guard parts.count == 2, let burst = Int(parts[0]), burst >= 1,
      let perSecond = Double(parts[1]), perSecond > 0, perSecond.isFinite
    else { throw ValidationError("BURST,PER_SECOND (e.g. 100,20) or off") }
    return RateLimit(burst: burst, perSecond: perSecond)
  }
}
