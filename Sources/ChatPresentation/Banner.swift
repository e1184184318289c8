import ChatDomain
import ChatIdentifiers

/// Words shown for states, shared by the screens.
enum Banner {
  static func text(for state: ConnectionState) -> String? {
    switch state {
    case .idle, .connected: nil
    case .connecting: "Connecting…"
    case .waitingForNetwork: "Waiting for network…"
    case .polling: "Live updates by polling: this network blocks live connections"
    case .signedOut: "Signed out: sign in again"
    }
  }

  static func typing(_ users: [UserID]) -> String? {
    switch users.count {
    case 0: nil
    case 1: "\(users[0]) is typing…"
    case 2: "\(users[0]) and \(users[1]) are typing…"
    default: "\(users.count) people are typing…"
    }
  }
}
