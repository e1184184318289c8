import ChatAPI

/// What a push gateway said of one push.
public enum PushGatewayAnswer: Sendable, Equatable {
  /// Accepted (2xx).
  case delivered
  /// Not now (5xx, no answer, cut): tried again with backoff.
  case temporaryFailure(String)
  /// The token is no longer valid (410): the server forgets it.
  case tokenGone
  /// Refused for good (another 4xx): dropped.
  case refused(status: Int)
}

/// The seam between the service and whoever delivers pushes to phones (APNs, FCM, or the
/// reference server's webhook, `WebhookPushGateway`). Called from the service's executor, one
/// call per push; an implementation bounds its own time (a timeout is a temporary failure).
public protocol PushGateway: Sendable {
  func deliver(_ delivery: PushDelivery) async -> PushGatewayAnswer
}
