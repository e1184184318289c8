import ChatAPI
import Wire

/// The reference server's push gateway (`chat-server --push-webhook URL`): each push is a
/// `POST` of API.md's `{ "provider", "token", "collapseId", "payload" }` to the URL. 2xx is
/// delivered, 410 a token gone, another 4xx refused; 5xx, no answer in `timeout` or a cut
/// connection are temporary (the service retries with backoff).
public final class WebhookPushGateway: PushGateway {
  public let url: String
  private let client: HTTPClient
  private let timeout: Duration

  /// - Parameter tls: the trust for an `https` URL (nil: the system's).
  public init(url: String, timeout: Duration = .seconds(10), tls: TLSContext? = nil) {
    self.url = url
    self.timeout = timeout
    var configuration = HTTPClient.Configuration()
    configuration.tls = tls
    client = HTTPClient(configuration: configuration)
  }

  public func deliver(_ delivery: PushDelivery) async -> PushGatewayAnswer {
    var request = HTTPClientRequest(url: url, method: .post, body: APICoding.encode(delivery))
    request.headers.add(name: "Content-Type", value: "application/json; charset=utf-8")
    do {
      let response = try await client.execute(request, timeout: timeout)
      switch response.status.code {
      case 200..<300: return .delivered
      case 410: return .tokenGone
      case 400..<500: return .refused(status: response.status.code)
      default: return .temporaryFailure("HTTP \(response.status.code)")
      }
    } catch {
      return .temporaryFailure("\(error)")
    }
  }

  /// Closes the gateway's connections.
  public func shutdown() async {
    await client.shutdown()
  }
}
