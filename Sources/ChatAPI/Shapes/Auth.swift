/// `POST /v1/auth/dev-login` (a server in dev mode only).
public struct DevLogin: Codable, Sendable, Equatable {
  public var userId: String
  public var deviceId: String

  public init(userId: String, deviceId: String) {
    self.userId = userId
    self.deviceId = deviceId
  }
}

/// `POST /v1/auth/refresh`: spends the refresh token.
public struct Refresh: Codable, Sendable, Equatable {
  public var refreshToken: String

  public init(refreshToken: String) {
    self.refreshToken = refreshToken
  }
}

/// The answer to a sign-in or a refresh.
public struct Tokens: Codable, Sendable, Equatable {
  public var accessToken: String
  public var refreshToken: String
  /// When the access token expires (RFC 3339).
  public var expiresAt: String
  public var userId: String
  public var deviceId: String

  public init(
    accessToken: String, refreshToken: String, expiresAt: String, userId: String,
    deviceId: String
  ) {
    self.accessToken = accessToken
    self.refreshToken = refreshToken
    self.expiresAt = expiresAt
    self.userId = userId
    self.deviceId = deviceId
  }
}
