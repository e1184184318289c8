import ArgumentParsing
import ChatDomain
import ChatIdentifiers
import Foundation
import Wire

/// The options every command takes, from the command line or the environment, before or after
/// the command's name.
public struct GlobalOptions: ParsableArguments, Sendable {
  public static let defaultServer = URL(string: "http://127.0.0.1:8080")!
  public static let defaultDevice = DeviceID("cli")

  @Option(
    help: ArgumentHelp(
      "The server, http:// or https:// (default http://127.0.0.1:8080).", valueName: "URL"),
    environment: "CHAT_SERVER", transform: GlobalOptions.serverURL)
  public var server = GlobalOptions.defaultServer

  /// What an `https://` server is verified with, by the HTTP requests and the live socket
  /// alike: the CA certificates of `--ca-file`, checked when the command line is parsed; nil
  /// trusts the system's store (or the file named by `SSL_CERT_FILE`).
  @Option(
    name: .customLong("ca-file"),
    help: ArgumentHelp(
      "For an https:// server: trust only the CA certificates in this PEM file (default: the "
        + "system's, or $SSL_CERT_FILE).",
      valueName: "FILE"),
    environment: "CHAT_CA_FILE", transform: GlobalOptions.trust)
  public var tls: TLSContext?

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

  /// The live socket's URL: the server's with `ws` (`wss` for `https`) and `/v1/live`.
  public var liveURL: String {
    var text = server.absoluteString
    if text.hasSuffix("/") { text.removeLast() }
    if text.hasPrefix("http://") {
      text = "ws://" + text.dropFirst("http://".count)
    } else if text.hasPrefix("https://") {
      text = "wss://" + text.dropFirst("https://".count)
    }
    return text + "/v1/live"
  }

  @Sendable static func serverURL(_ text: String) throws -> URL {
    guard let url = URL(string: text), let scheme = url.scheme, url.host != nil,
      scheme == "http" || scheme == "https"
    else {
      throw ValidationError("an http:// or https:// URL")
    }
    return url
  }

  @Sendable static func trust(_ path: String) throws -> TLSContext {
    do {
      return try TLSContext(configuration: .makeClientConfiguration(trustRoots: .file(path)))
    } catch {
      // The parser adds the path ("…, got 'FILE'"): give only the reason.
      let reason =
        switch error {
        case .unreadableFile(_, let reason), .invalidCertificate(_, let reason): reason
        default: error.description
        }
      throw ValidationError("a PEM file of CA certificates (\(reason))")
    }
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
