import ChatAPI
import ChatData
import ChatPresentation
import Observation

/// A device with no network: every request fails at once as offline. B2 and B10 open a
/// conversation from the database alone, as an app does before (or without) any network.
struct OfflineHTTPTransport: HTTPTransport {
  func send(_ request: APIRequest) async throws(TransportError) -> APIResponse {
    throw .unreachable("chat-bench: no network")
  }
}

/// The socket of a device with no network.
struct OfflineLiveTransport: LiveTransport {
  func connect(headers: HeaderFields) async throws(LiveConnectError) -> any LiveSocket {
    throw .offline("chat-bench: no network")
  }
}

/// Waits on the main actor for a view model's state, without polling: Observation tells when
/// `viewState` is about to change, and the state is checked again right after.
@MainActor
enum ViewStateProbe {
  static func wait(
    for viewModel: ConversationViewModel, until predicate: (ConversationViewState) -> Bool
  ) async {
    while !predicate(viewModel.viewState) {
      await withCheckedContinuation { (changed: CheckedContinuation<Void, Never>) in
        withObservationTracking {
          _ = viewModel.viewState
        } onChange: {
          changed.resume()
        }
      }
    }
  }
}
