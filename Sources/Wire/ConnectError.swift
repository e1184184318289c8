import Glibc

/// Why an outgoing TCP connection could not be opened; each case says what to do.
public enum ConnectError: Error, Hashable, Sendable, CustomStringConvertible {
  /// The name did not resolve (no such host, or DNS failed): check the host; retry later if
  /// the name is right.
  case unknownHost(String, reason: String)
  /// The address refused the connection (nothing listens on the port): retry later.
  case refused(address: String)
  /// The address did not answer within the connect timeout: retry later.
  case timedOut(address: String)
  /// Another socket error (network or host unreachable, …): retry later.
  case failed(address: String, SystemError)
  /// The calling task was cancelled.
  case cancelled

  public var description: String {
    switch self {
    case .unknownHost(let host, let reason): "no such host \(host): \(reason)"
    case .refused(let address): "\(address) refused the connection"
    case .timedOut(let address): "\(address) did not answer within the connect timeout"
    case .failed(let address, let error): "cannot connect to \(address): \(error)"
    case .cancelled: "the connect was cancelled"
    }
  }

  /// The error for a connect to `address` that failed with `errno`.
  static func connect(to address: String, errno: Int32) -> ConnectError {
    switch errno {
    case ECONNREFUSED: .refused(address: address)
    case ETIMEDOUT: .timedOut(address: address)
    default: .failed(address: address, SystemError("connect", errno: errno))
    }
  }
}
