import ChatDomain

extension ChatError {
  /// Any error of the data layer, said the domain's way.
  init(_ error: any Error) {
    switch error {
    case let error as ChatError: self = error
    case let error as StoreError: self = error.chatError
    case let error as RequestFailure: self = error.chatError
    default: self = .storage("\(error)")
    }
  }
}
