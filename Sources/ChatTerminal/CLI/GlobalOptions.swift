import ChatDomain
import Foundation

/// The options every command takes, from the command line or the environment.
public struct GlobalOptions: Sendable, Equatable {
  public var server: URL
  public var user: UserID?
  public var device: DeviceID
  /// The folder for this user and device's database.
  public var dataFolder: String?
  public var json: Bool
  public var verbose: Bool

  public static let defaultServer = URL(string: "http://127.0.0.1:8080")!
  public static let defaultDevice = DeviceID("cli")

  public static let help = """
    GLOBAL OPTIONS:
      --server URL    The server (env CHAT_SERVER; default http://127.0.0.1:8080).
      --user ID       Who you are (env CHAT_USER): 1-64 of a-z 0-9 . _ -
      --device ID     This device (env CHAT_DEVICE; default cli).
      --data DIR      The database folder (env CHAT_DATA; default
                      $XDG_DATA_HOME/chat/<user>/<device>).
      --json          Print JSON for scripts.
      --verbose       Log what the engine does to standard error (never message text).
      -h, --help      Show help.
    """

  /// Takes the global options out of `arguments`, falling back to `environment`.
  public static func parse(
    _ arguments: inout ArgumentCursor, environment: [String: String]
  ) throws(UsageError) -> GlobalOptions {
    let serverText = try arguments.option("server") ?? environment["CHAT_SERVER"]
    var server = defaultServer
    if let serverText {
      guard let url = URL(string: serverText), let scheme = url.scheme, url.host != nil else {
        throw UsageError("--server must be an http:// URL, got '\(serverText)'")
      }
      // The socket client speaks ws:// only: put a TLS proxy in front of a remote server.
      guard scheme == "http" else {
        throw UsageError(
          "--server must be an http:// URL (this client has no TLS; use a local TLS proxy), "
            + "got '\(serverText)'")
      }
      server = url
    }
    var user: UserID?
    if let text = try arguments.option("user") ?? environment["CHAT_USER"] {
      guard let id = UserID(rawValue: text) else {
        throw UsageError("--user must be 1-64 of a-z 0-9 . _ -, got '\(text)'")
      }
      user = id
    }
    var device = defaultDevice
    if let text = try arguments.option("device") ?? environment["CHAT_DEVICE"] {
      guard let id = DeviceID(rawValue: text) else {
        throw UsageError("--device must be 1-64 of a-z 0-9 . _ -, got '\(text)'")
      }
      device = id
    }
    let data = try arguments.option("data") ?? environment["CHAT_DATA"]
    return GlobalOptions(
      server: server, user: user, device: device, dataFolder: data,
      json: arguments.flag("json"), verbose: arguments.flag("verbose"))
  }

  /// Where this user and device's database lives.
  public func databasePath(environment: [String: String]) throws(UsageError) -> String {
    if let dataFolder { return dataFolder + "/chat.sqlite" }
    guard let user else {
      throw UsageError("say who you are: --user ID (or CHAT_USER)")
    }
    let base =
      environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 }
      ?? (environment["HOME"] ?? NSHomeDirectory()) + "/.local/share"
    return "\(base)/chat/\(user.rawValue)/\(device.rawValue)/chat.sqlite"
  }

  /// The live socket's URL: the server's with `ws` and `/v1/live`.
  public var liveURL: String {
    var text = server.absoluteString
    if text.hasSuffix("/") { text.removeLast() }
    if text.hasPrefix("http://") {
      text = "ws://" + text.dropFirst("http://".count)
    }
    return text + "/v1/live"
  }
}
