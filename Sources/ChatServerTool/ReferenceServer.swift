import ChatAPI
import ChatServer
import Foundation
import Hashing
import ObjectStorage
import SQLite
import Support
import Wire

/// The reference server as `chat-server` runs it: the data folder (0700), the SQLite store and
/// the signing key in it (0600), the `ChatService`, and `ChatHTTPServer` listening.
///
/// The store runs on a `ThreadExecutor` of its own, the service on another: SQLite work and
/// each group commit's fsync run on the store's thread while the service parses, checks and
/// answers the next requests on its own (measured: see docs/server.md, "Threads").
///
/// Tests start one in-process on port 0 with a temporary folder, exactly as the executable does.
public final class ReferenceServer: Sendable {
  public let options: ServerOptions
  /// The bound port (the free one picked for port 0).
  public let port: Int
  public let http: ChatHTTPServer
  /// The built-in object store, unless `--no-object-store` (or another store) turned it off.
  public let objectStore: ObjectStoreEndpoint?
  /// The remote store's client, when `--s3-endpoint` named one.
  let s3Client: S3Client?
  /// The webhook push gateway, when `--push-webhook` named one.
  let pushGateway: WebhookPushGateway?
  /// The upkeep loop: the hourly media sweep, while media is served, and on PostgreSQL the
  /// VACUUM of what deletes and edits left, every minute.
  private let sweeper: Task<Void, Never>?
  private let serviceExecutor: ThreadExecutor
  private let storeExecutor: ThreadExecutor

  private init(
    options: ServerOptions, port: Int, http: ChatHTTPServer, objectStore: ObjectStoreEndpoint?,
    s3Client: S3Client?, pushGateway: WebhookPushGateway?, sweeper: Task<Void, Never>?,
    serviceExecutor: ThreadExecutor, storeExecutor: ThreadExecutor
  ) {
    self.options = options
    self.port = port
    self.http = http
    self.objectStore = objectStore
    self.s3Client = s3Client
    self.pushGateway = pushGateway
    self.sweeper = sweeper
    self.serviceExecutor = serviceExecutor
    self.storeExecutor = storeExecutor
  }

  public var service: ChatService { http.service }

  /// `http://host:port` (`https://` with TLS), with brackets around an IPv6 address.
  public var url: String {
    let host = options.host.contains(":") ? "[\(options.host)]" : options.host
    return "\(options.usesTLS ? "https" : "http")://\(host):\(port)"
  }

  /// Checks the TLS files (when given), creates the data folder if needed, opens the store,
  /// and starts listening.
  ///
  /// - Parameters:
  ///   - clock: the service's time; tests pass one they can move (token expiry).
  ///   - databases: what opens `--database` (`chat-server` gives PostgreSQL's); without one,
  ///     the server keeps its data in SQLite, and `--database` is a start error.
  public static func start(
    _ options: ServerOptions, log: any LogSink, clock: any TimeSource = SystemTimeSource(),
    databases: (any SharedDatabaseOpener)? = nil
  ) throws(ServerStartError) -> ReferenceServer {
    var tls: TLSContext?
    if let certificate = options.tlsCertificate, let key = options.tlsKey {
      do {
        tls = try TLSContext(
          configuration: .makeServerConfiguration(
            certificateChainFile: certificate, privateKeyFile: key))
      } catch {
        throw .tls(error)
      }
    }
    let folder = options.dataFolder
    try prepareDataFolder(folder, log: log)
    let storeExecutor = ThreadExecutor(name: "chat-server.store")
    let serviceExecutor = ThreadExecutor(name: "chat-server.service")
    func fail(_ error: ServerStartError) -> ServerStartError {
      storeExecutor.shutdown()
      serviceExecutor.shutdown()
      return error
    }
    let store: ServerStore
    let key: SigningKey
    var relay: (any LiveRelay)?
    var random = SystemRandomNumberGenerator()
    if let url = options.database {
      guard let databases else { throw fail(.noSharedDatabases) }
      // Every node signs and checks tokens with the key the first one stored.
      do {
        let shared = try databases.open(
          url: url, connections: options.databaseConnections, executor: storeExecutor, log: log)
        store = shared.store
        key = try SigningKey(
          bytes: shared.sharedSecret(
            SigningKey.fileName, SigningKey.generate(using: &random).bytes))
        // Nodes of one database hand each other their live events: through NATS when given,
        // else through the database.
        if let urls = options.relay {
          let context = try TLSContext(
            configuration: .makeClientConfiguration(
              trustRoots: options.relayCA.map { .file($0) } ?? .system))
          relay = try NATSRelay(urls: urls, tls: context, log: log)
        } else {
          relay = shared.relay
        }
      } catch {
        throw fail(.database("\(error)"))
      }
    } else {
      do {
        store = try ServerStore(.dataFolder(folder), executor: storeExecutor)
        key = try SigningKey.loadOrCreate(inFolder: folder, using: &random)
      } catch {
        throw fail(.dataFolder(folder, "\(error)"))
      }
    }
    var configuration = ServerConfiguration(
      devMode: options.devMode, accessTokenTTL: .seconds(options.accessTokenTTL),
      rateLimit: options.rateLimit, signingKey: key)
    configuration.mediaRetentionDays = options.mediaRetentionDays
    configuration.liveTokenGrace = .seconds(options.liveTokenGrace)
    // `--rate-limit off` (benchmarks, tests signing in hundreds of devices) turns off every
    // request budget, the per-address one included.
    configuration.addressRateLimit = options.rateLimit == nil ? nil : options.addressRateLimit
    configuration.typingLimit = options.typingLimit
    configuration.maxCatchUpsInFlight = options.maxCatchUps
    var objectStore: ObjectStoreEndpoint?
    if let storePort = options.builtInStorePort {
      do {
        objectStore = try ObjectStoreEndpoint.start(
          options: options, port: storePort, signingKey: key, tls: tls, log: log)
      } catch {
        throw fail(error)
      }
    }
    // The remote store's client (its connections end with the server).
    let s3Client = options.s3.map { S3Client(endpoint: $0, clock: clock) }
    let media: (any MediaStorage)? =
      objectStore?.media ?? s3Client.map { RemoteMediaStorage(client: $0) }
    let pushGateway = options.pushWebhook.map { WebhookPushGateway(url: $0) }
    let service = ChatService(
      store: store, configuration: configuration, clock: clock,
      random: SystemRandomNumberGenerator(), executor: serviceExecutor, log: log, media: media,
      pushGateway: pushGateway, relay: relay)
    relay?.start(delivering: service)
    // Upkeep: on PostgreSQL what deletes and edits left in the tables is vacuumed every
    // --vacuum-interval (SQLite erases it right after each write); media past the retention,
    // and uploads never used, go once an hour.
    let sweeper =
      media == nil && options.database == nil
      ? nil
      : Task {
        let tick = options.database == nil ? 3600 : min(3600, options.vacuumInterval)
        var lastSweep: Timestamp?
        while !Task.isCancelled {
          await store.vacuumIfOwed()
          if media != nil, lastSweep.map({ clock.now() - $0 >= .seconds(3600) }) ?? true {
            await service.sweepMedia(at: clock.now())
            lastSweep = clock.now()
          }
          try? await clock.sleep(for: .seconds(tick))
        }
      }
    var http = HTTPServer.Configuration(host: options.host, port: options.port)
    http.webSocket.pingInterval = .seconds(options.pingInterval)
    http.webSocket.pingTimeout = .seconds(options.pingTimeout)
    http.webSocket.maxBufferedBytes = options.liveBufferBytes
    http.shutdownTimeout = .seconds(options.shutdownTimeout)
    http.tls = tls
    let server = ChatHTTPServer(service: service, configuration: http)
    let port: Int
    do {
      port = try server.start()
    } catch {
      sweeper?.cancel()
      relay?.stop()
      if let objectStore { Task { await objectStore.server.shutdown() } }
      throw fail(.listen("\(options.host):\(options.port)", "\(error)"))
    }
    // Pushes owed from before a restart go now, each at most once per collapse window.
    Task { await service.startPushes() }
    return ReferenceServer(
      options: options, port: port, http: server, objectStore: objectStore, s3Client: s3Client,
      pushGateway: pushGateway, sweeper: sweeper, serviceExecutor: serviceExecutor,
      storeExecutor: storeExecutor)
  }

  /// Stops gracefully: no new connections; requests in flight finish (their writes are
  /// committed before they are answered); live sockets close with 1001. Then the executors'
  /// threads end, and the database closes when the last reference goes.
  public func stop() async {
    sweeper?.cancel()
    await objectStore?.server.shutdown()
    await http.shutdown()
    await service.stopPushes()
    await pushGateway?.shutdown()
    await serviceExecutor.waitUntilIdle()
    await storeExecutor.waitUntilIdle()
    await service.closeStore()
    await s3Client?.shutdown()
    serviceExecutor.shutdown()
    storeExecutor.shutdown()
  }

  /// Creates `folder` (and its parents) with mode 0700 when missing. An existing folder that
  /// others may enter (any group or world bit) is tightened to 0700, with a warning
  /// `data_folder_tightened` in the log: it holds the signing key and every message. One that
  /// is not the server's user's, or is shared on purpose (the sticky bit, as `/tmp` has), is
  /// refused rather than changed under its owner.
  static func prepareDataFolder(_ folder: String, log: any LogSink) throws(ServerStartError) {
    var isFolder: ObjCBool = false
    if FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder) {
      guard isFolder.boolValue else { throw .dataFolder(folder, "it is a file, not a folder") }
      try tighten(folder, log: log)
      return
    }
    do {
      try FileManager.default.createDirectory(
        atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    } catch {
      throw .dataFolder(folder, "\(error)")
    }
    // The umask may have taken bits away, never added: make sure of 0700.
    chmod(folder, 0o700)
  }

  private static func tighten(_ folder: String, log: any LogSink) throws(ServerStartError) {
    var status = stat()
    guard stat(folder, &status) == 0 else {
      throw .dataFolder(folder, "cannot read its mode: \(String(cString: strerror(errno)))")
    }
    let mode = status.st_mode & 0o7777
    guard mode & 0o077 != 0 else { return }
    let shown = "0" + String(mode, radix: 8)
    let problem = "others may enter it (mode \(shown))"
    guard mode & S_ISVTX == 0 else {
      throw .dataFolder(folder, "\(problem) and it is shared (sticky): give a folder of its own")
    }
    guard status.st_uid == geteuid() else {
      throw .dataFolder(folder, "\(problem) and it belongs to another user: make it 0700")
    }
    guard chmod(folder, 0o700) == 0 else {
      throw .dataFolder(
        folder, "\(problem) and it cannot be made 0700: \(String(cString: strerror(errno)))")
    }
    log.write(
      LogRecord(.warning, "data_folder_tightened", [("folder", folder), ("mode_was", shown)]))
  }
}

/// The built-in S3-compatible object store as `chat-server` serves it: a folder in the data
/// folder (`objects`), one bucket, path-style URLs on a port of its own (S3 clients want the
/// bucket at the root of the path), with the main server's TLS when it has one.
public struct ObjectStoreEndpoint: Sendable {
  public static let bucket = "chat-media"
  public static let region = "us-east-1"
  public static let accessKeyID = "chat-server"

  let server: HTTPServer
  public let port: Int
  /// Where it listens.
  public let url: String
  /// Where the URLs handed to devices point (`--object-store-public-url`, else `url`).
  public let publicURL: String
  /// The service's way to it: presigned URLs on `url`, and the folder itself.
  let media: BuiltInMediaStorage
  /// The one access key's secret: HMAC-SHA256 of the server's signing key and
  /// `object-store`, in hex; the same after every restart, and never stored on its own.
  public let secretAccessKey: String

  static func start(
    options: ServerOptions, port: Int, signingKey: SigningKey, tls: TLSContext?,
    log: any LogSink
  ) throws(ServerStartError) -> ObjectStoreEndpoint {
    let secret = Hex.encode(
      Crypto.hmacSHA256(key: signingKey.bytes, message: Array("object-store".utf8)))
    let store: FolderObjectStore
    do {
      store = try FolderObjectStore(folder: options.dataFolder + "/objects", buckets: [bucket])
    } catch {
      throw .dataFolder(options.dataFolder + "/objects", "\(error)")
    }
    let front = S3Front(
      store: store, region: region,
      credentials: [SigV4Credentials(accessKeyID: accessKeyID, secretAccessKey: secret)],
      log: log)
    var configuration = HTTPServer.Configuration(host: options.host, port: port)
    configuration.tls = tls
    configuration.shutdownTimeout = .seconds(options.shutdownTimeout)
    // Every PUT the service presigns is a part of at most 8 MiB (a larger file goes in parts),
    // on a phone's uplink: five minutes for its body.
    configuration.bodyTimeout = .seconds(300)
    let server = front.server(configuration: configuration, maxBodyBytes: APILimits.mediaPartBytes)
    let bound: Int
    do {
      bound = try server.start()
    } catch {
      throw .listen("\(options.host):\(port)", "\(error)")
    }
    let host = options.host.contains(":") ? "[\(options.host)]" : options.host
    var scheme = options.usesTLS ? "https" : "http"
    var address = "\(host):\(bound)"
    // Devices reach the store where `--object-store-public-url` says (a server listening on
    // 0.0.0.0 cannot hand out URLs to 0.0.0.0); else where it listens.
    if let publicURL = options.objectStorePublicURL,
      let endpoint = S3Endpoint(
        url: publicURL, bucket: bucket, region: region,
        credentials: SigV4Credentials(accessKeyID: accessKeyID, secretAccessKey: secret))
    {
      scheme = endpoint.scheme
      address = endpoint.host
    }
    return ObjectStoreEndpoint(
      server: server, port: bound,
      url: "\(options.usesTLS ? "https" : "http")://\(host):\(bound)",
      publicURL: "\(scheme)://\(address)",
      media: BuiltInMediaStorage(
        store: store, scheme: scheme, host: address,
        credentials: SigV4Credentials(accessKeyID: accessKeyID, secretAccessKey: secret)),
      secretAccessKey: secret)
  }
}

/// Why the server could not start: what to fix, then start again.
public enum ServerStartError: Error, CustomStringConvertible {
  /// The data folder, its database or its signing key could not be opened or created.
  case dataFolder(String, String)
  /// The PostgreSQL database of `--database` could not be reached or migrated.
  case database(String)
  /// `--database` was given to a program built without a shared database (only
  /// `chat-server` links PostgreSQL).
  case noSharedDatabases
  /// The address could not be bound (in use, not local, not permitted).
  case listen(String, String)
  /// The log file could not be opened.
  case log(String)
  /// The TLS certificate chain or key cannot be used (unreadable, not PEM, encrypted,
  /// mismatched, expired, not yet valid).
  case tls(TLSError)

  public var description: String {
    switch self {
    case .dataFolder(let folder, let reason): "cannot use the data folder \(folder): \(reason)"
    case .database(let reason): "cannot use the database of --database: \(reason)"
    case .noSharedDatabases:
      "cannot use --database: this program keeps its data in SQLite only; chat-server serves "
        + "a PostgreSQL database"
    case .listen(let address, let reason): "cannot listen on \(address): \(reason)"
    case .log(let reason): reason
    case .tls(let error): "cannot serve TLS: \(error)"
    }
  }
}
