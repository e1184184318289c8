import ChatServer

/// The options of `chat-server`, from the command line or, for each one, its environment
/// variable (the command line wins).
public struct ServerOptions: Sendable, Equatable {
  /// Where the log lines go.
  public enum LogDestination: Sendable, Equatable {
    case standardError
    case file(String)
    case off
  }

  public var host = "127.0.0.1"
  public var port = 8080
  /// The folder holding `chat.sqlite` and `signing-key`.
  public var dataFolder: String
  public var devMode = false
  /// Seconds an access token lives.
  public var accessTokenTTL = 900
  /// Nil turns rate limiting off (benchmarks).
  public var rateLimit: RateLimit? = RateLimit()
  public var log = LogDestination.standardError
  /// Seconds of silence on a live socket before the server pings it.
  public var pingInterval = 30
  /// Seconds the server waits for any byte after a ping before dropping the socket.
  public var pingTimeout = 10
  /// Seconds a graceful stop waits for requests in flight and closing handshakes.
  public var shutdownTimeout = 10
  /// `--help` was asked for.
  public var showHelp = false

  public init(dataFolder: String) {
    self.dataFolder = dataFolder
  }

  public static let help = """
    USAGE: chat-server [options]

    The reference chat server: every route and live event of the v1 API over HTTP/1.1 and
    WebSocket, stored in SQLite (WAL, synchronous=FULL). Stops gracefully on SIGINT or SIGTERM.

    OPTIONS (each also read from the environment variable shown; the option wins):
      --host ADDRESS          Address to listen on (CHAT_SERVER_HOST; default 127.0.0.1,
                              loopback only). 0.0.0.0 or :: listen on every interface.
      --port N                TCP port (CHAT_SERVER_PORT; default 8080; 0 picks a free one,
                              printed at start).
      --data DIR              Data folder for chat.sqlite and signing-key, created mode 0700
                              (CHAT_SERVER_DATA; default $XDG_DATA_HOME/chat-server, else
                              ~/.local/share/chat-server).
      --dev                   Dev mode: POST /v1/auth/dev-login signs anyone in as any user
                              (CHAT_SERVER_DEV=1). Never on a server others can reach.
      --access-token-ttl S    Seconds an access token is valid (CHAT_SERVER_ACCESS_TOKEN_TTL;
                              default 900).
      --rate-limit SPEC       Per-user request budget: BURST,PER_SECOND (e.g. 100,20, the
                              default) or off, for benchmarks (CHAT_SERVER_RATE_LIMIT).
      --log DEST              One line per request (logfmt; never message text or tokens):
                              stderr (default), a file path (appended, created 0600), or off
                              (CHAT_SERVER_LOG).
      --ping-interval S       Seconds of silence on a live socket before the server pings it
                              (CHAT_SERVER_PING_INTERVAL; default 30).
      --ping-timeout S        Seconds to wait for an answer to that ping before dropping the
                              socket (CHAT_SERVER_PING_TIMEOUT; default 10).
      --shutdown-timeout S    Seconds a stop waits for requests in flight before closing what
                              is left (CHAT_SERVER_SHUTDOWN_TIMEOUT; default 10).
      -h, --help              Show this help.
    """

  /// Parses `arguments` (without the program name), falling back to `environment`.
  public static func parse(
    _ arguments: [String], environment: [String: String]
  ) throws(ServerUsageError) -> ServerOptions {
    var values: [String: String] = [:]
    var flags: Set<String> = []
    var index = 0
    while index < arguments.count {
      let argument = arguments[index]
      index += 1
      if argument == "-h" || argument == "--help" {
        flags.insert("help")
        continue
      }
      guard argument.hasPrefix("--") else {
        throw ServerUsageError("unexpected argument '\(argument)'")
      }
      var name = String(argument.dropFirst(2))
      var value: String?
      if let equals = name.firstIndex(of: "=") {
        value = String(name[name.index(after: equals)...])
        name = String(name[..<equals])
      }
      if name == "dev" {
        guard value == nil else { throw ServerUsageError("--dev takes no value") }
        flags.insert(name)
        continue
      }
      guard valueOptions.contains(name) else { throw ServerUsageError("unknown option --\(name)") }
      if value == nil {
        guard index < arguments.count else { throw ServerUsageError("--\(name) needs a value") }
        value = arguments[index]
        index += 1
      }
      values[name] = value
    }
    func value(_ name: String) -> String? {
      values[name] ?? environment["CHAT_SERVER_" + name.uppercased().replacing("-", with: "_")]
    }

    var options = ServerOptions(dataFolder: defaultDataFolder(environment: environment))
    options.showHelp = flags.contains("help")
    if let host = value("host") {
      guard !host.isEmpty else { throw ServerUsageError("--host needs an address") }
      options.host = host
    }
    if let port = value("port") {
      options.port = try integer(port, option: "port", in: 0...65_535)
    }
    if let folder = value("data") {
      guard !folder.isEmpty else { throw ServerUsageError("--data needs a folder") }
      options.dataFolder = folder
    }
    if flags.contains("dev") {
      options.devMode = true
    } else if let dev = environment["CHAT_SERVER_DEV"] {
      options.devMode = try boolean(dev, variable: "CHAT_SERVER_DEV")
    }
    if let ttl = value("access-token-ttl") {
      options.accessTokenTTL = try integer(ttl, option: "access-token-ttl", in: 1...31_536_000)
    }
    if let spec = value("rate-limit") {
      options.rateLimit = try rateLimit(spec)
    }
    if let log = value("log") {
      switch log {
      case "", "stderr", "-": options.log = .standardError
      case "off", "none": options.log = .off
      default: options.log = .file(log)
      }
    }
    if let interval = value("ping-interval") {
      options.pingInterval = try integer(interval, option: "ping-interval", in: 1...86_400)
    }
    if let timeout = value("ping-timeout") {
      options.pingTimeout = try integer(timeout, option: "ping-timeout", in: 1...3_600)
    }
    if let timeout = value("shutdown-timeout") {
      options.shutdownTimeout = try integer(timeout, option: "shutdown-timeout", in: 0...3_600)
    }
    return options
  }

  private static let valueOptions: Set<String> = [
    "host", "port", "data", "access-token-ttl", "rate-limit", "log", "ping-interval",
    "ping-timeout", "shutdown-timeout",
  ]

  /// `$XDG_DATA_HOME/chat-server`, else `$HOME/.local/share/chat-server`, else
  /// `./chat-server-data`.
  public static func defaultDataFolder(environment: [String: String]) -> String {
    if let xdg = environment["XDG_DATA_HOME"], !xdg.isEmpty { return xdg + "/chat-server" }
    if let home = environment["HOME"], !home.isEmpty {
      return home + "/.local/share/chat-server"
    }
    return "./chat-server-data"
  }

  private static func integer(
    _ text: String, option: String, in range: ClosedRange<Int>
  ) throws(ServerUsageError) -> Int {
    guard let value = Int(text), range.contains(value) else {
      throw ServerUsageError(
        "--\(option) must be a whole number in \(range.lowerBound)...\(range.upperBound), "
          + "got '\(text)'")
    }
    return value
  }

  private static func boolean(_ text: String, variable: String) throws(ServerUsageError) -> Bool {
    switch text.lowercased() {
    case "1", "true", "yes", "on": return true
    case "", "0", "false", "no", "off": return false
    default: throw ServerUsageError("\(variable) must be 1 or 0, got '\(text)'")
    }
  }

  private static func rateLimit(_ spec: String) throws(ServerUsageError) -> RateLimit? {
    if spec == "off" { return nil }
    let parts = spec.split(separator: ",", omittingEmptySubsequences: false)
    guard parts.count == 2, let burst = Int(parts[0]), burst >= 1,
      let perSecond = Double(parts[1]), perSecond > 0, perSecond.isFinite
    else {
      throw ServerUsageError("--rate-limit must be BURST,PER_SECOND (e.g. 100,20) or off")
    }
    return RateLimit(burst: burst, perSecond: perSecond)
  }
}

/// A wrong command line: printed with a hint to `--help`, exit status 64 (`EX_USAGE`).
public struct ServerUsageError: Error, Equatable, CustomStringConvertible {
  public let message: String

  public init(_ message: String) {
    self.message = message
  }

  public var description: String { message }
}
