import ArgumentParsing
import ChatDomain
import Foundation

/// The options every command takes, from the command line or the environment, before or after
/// the command's name.
public struct GlobalOptions: ParsableArguments, Sendable {
  public static let defaultServer = URL(string: "http://127.0.0.1:8080")!
  public static let defaultDevice = DeviceID("cli")

  @Option(
    help: ArgumentHelp("The server (default http://127.0.0.1:8080).", valueName: "URL"),
    environment: "CHAT_SERVER", transform: GlobalOptions.serverURL)
  public var server = GlobalOptions.defaultServer

  @Option(
    help: ArgumentHelp("Who you are: 1-64 of a-z 0-9 . _ -", valueName: "ID"),
    environment: "CHAT_USER", transform: GlobalOptions.userID)
  public var user: UserID?

  @Option(
    help: ArgumentHelp("This device (default cli).", valueName: "ID"), environment: "CHAT_DEVICE",
    transform: GlobalOptions.deviceID)
  public var device = GlobalOptions.defaultDevice

  /// The folder for this user and device's database.
  @Option(
    name: .customLong("data"),
    help: ArgumentHelp(
      "The database folder (default $XDG_DATA_HOME/chat/<user>/<device>).", valueName: "DIR"),
    environment: "CHAT_DATA")
  public var dataFolder: String?

  @Flag(help: "Print JSON for scripts.") public var json = false

  @Flag(help: "Log what the engine does to standard error (never message text).")
  public var verbose = false

  public init() {}

  /// Where this user and device's database lives.
  public func databasePath(environment: [String: String]) throws(ValidationError) -> String {
    if let dataFolder { return dataFolder + "/chat.sqlite" }
    guard let user else {
      throw ValidationError("say who you are: --user ID (or CHAT_USER)")
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

  @Sendable static func serverURL(_ text: String) throws -> URL {
    guard let url = URL(string: text), let scheme = url.scheme, url.host != nil else {
      throw ValidationError("an http:// URL")
    }
    // The socket client speaks ws:// only: put a TLS proxy in front of a remote server.
    guard scheme == "http" else {
      throw ValidationError("an http:// URL (this client has no TLS; use a local TLS proxy)")
    }
    return url
  }

  @Sendable static func userID(_ text: String) throws -> UserID {
    guard let id = UserID(rawValue: text) else { throw ValidationError("1-64 of a-z 0-9 . _ -") }
    return id
  }

  @Sendable static func deviceID(_ text: String) throws -> DeviceID {
    guard let id = DeviceID(rawValue: text) else { throw ValidationError("1-64 of a-z 0-9 . _ -") }
    return id
  }
}
