import Foundation
import Wire

/// Signing in and creating conversations over plain HTTP on a server in dev mode: how a load
/// prepares its users, and how `chat-bench` prepares the servers it runs as processes.
public enum DevSetup {
  /// Signs `user` in on `device` (dev login); returns the access token.
  public static func signIn(
    host: String = "127.0.0.1", port: Int, user: String, device: String
  ) throws(LoadError) -> String {
    try signIn(SetupClient(host: host, port: port), user: user, device: device)
  }

  /// Creates a conversation of `token`'s user with `members`; returns its id.
  public static func createConversation(
    host: String = "127.0.0.1", port: Int, token: String, title: String, members: [String]
  ) throws(LoadError) -> String {
    try createConversation(
      SetupClient(host: host, port: port), token: token, title: title, members: members)
  }

  static func signIn(_ http: SetupClient, user: String, device: String) throws(LoadError)
    -> String
  {
    let response = try http.request(
      .post, "/v1/auth/dev-login", body: #"{"userId":"\#(user)","deviceId":"\#(device)"}"#)
    guard response.status == 200, let token = jsonString(response.body, "accessToken") else {
      throw LoadError(
        "dev-login answered \(response.status) \(response.text): start the server with --dev")
    }
    return token
  }

  static func createConversation(
    _ http: SetupClient, token: String, title: String, members: [String]
  ) throws(LoadError) -> String {
    let list = members.map { "\"\($0)\"" }.joined(separator: ",")
    let response = try http.request(
      .post, "/v1/conversations", token: token,
      body: #"{"title":"\#(title)","memberIds":[\#(list)]}"#)
    guard response.status == 201, let id = jsonString(response.body, "id") else {
      throw LoadError("creating a conversation answered \(response.status) \(response.text)")
    }
    return id
  }

  private static func jsonString(_ body: [UInt8], _ key: String) -> String? {
    guard let object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any]
    else { return nil }
    return object[key] as? String
  }
}
