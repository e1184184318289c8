/// Which push service a device token belongs to.
public enum PushProvider: String, Codable, Sendable {
  case apns, fcm, webhook
}

/// `PUT /v1/devices/me/push`.
public struct PushRegistration: Codable, Sendable, Equatable {
  public var provider: PushProvider
  public var token: String

  public init(provider: PushProvider, token: String) {
    self.provider = provider
    self.token = token
  }
}

/// A push's payload, in APNs's shape: the notification, and where to sync from.
public struct PushPayload: Codable, Sendable, Equatable {
  public struct Alert: Codable, Sendable, Equatable {
    public var title: String
    public var body: String

    public init(title: String, body: String) {
      self.title = title
      self.body = body
    }
  }

  public struct APS: Codable, Sendable, Equatable {
    public var alert: Alert
    /// The total unread of the user's unmuted conversations.
    public var badge: Int
    /// The conversation: a phone groups notifications by it.
    public var threadId: String

    public init(alert: Alert, badge: Int, threadId: String) {
      self.alert = alert
      self.badge = badge
      self.threadId = threadId
    }

    enum CodingKeys: String, CodingKey {
      case alert, badge
      case threadId = "thread-id"
    }
  }

  public var aps: APS
  public var conversationId: String
  public var sequence: Int

  public init(aps: APS, conversationId: String, sequence: Int) {
    self.aps = aps
    self.conversationId = conversationId
    self.sequence = sequence
  }
}

/// What the webhook push gateway is sent for one push.
public struct PushDelivery: Codable, Sendable, Equatable {
  public var provider: PushProvider
  public var token: String
  /// Pushes of one collapse id replace each other: the conversation.
  public var collapseId: String
  public var payload: PushPayload

  public init(provider: PushProvider, token: String, collapseId: String, payload: PushPayload) {
    self.provider = provider
    self.token = token
    self.collapseId = collapseId
    self.payload = payload
  }
}
