import CEpoll
import Glibc

/// A failed system call, with its `errno`.
public struct SystemError: Error, Hashable, Sendable, CustomStringConvertible {
  /// The call that failed, for example `bind`.
  public let call: String
  public let errno: Int32

  init(_ call: String, errno: Int32 = Glibc.errno) {
    self.call = call
    self.errno = errno
  }

  public var description: String {
    "\(call) failed: \(String(cString: strerror(errno))) (errno \(errno))"
  }
}

/// Thin wrappers over the POSIX socket calls the loops use. Every socket is non-blocking and
/// close-on-exec; writes use `MSG_NOSIGNAL`, so a peer that went away never raises SIGPIPE.
enum Socket {
  /// A listening TCP socket bound to `host` (a numeric address or a name) and `port` (0 picks
  /// a free one). Returns the socket and the bound port.
  static func listen(host: String, port: Int, backlog: Int32) throws -> (fd: Int32, port: Int) {
    let address = try resolve(host: host, port: port, passive: true)
    let fd = socket(address.family, Int32(SOCK_STREAM.rawValue) | sockNonBlockCloexec, 0)
    guard fd >= 0 else { throw SystemError("socket") }
    var one: Int32 = 1
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
    let bound = address.withSockaddr { bind(fd, $0, $1) }
    guard bound == 0 else {
      let error = SystemError("bind")
      close(fd)
      throw error
    }
    guard Glibc.listen(fd, backlog) == 0 else {
      let error = SystemError("listen")
      close(fd)
      throw error
    }
    return (fd, localPort(fd))
  }

  /// Starts a non-blocking connect; the socket becomes writable when it completes.
  static func startConnect(to address: SocketAddress) throws -> Int32 {
    let fd = socket(address.family, Int32(SOCK_STREAM.rawValue) | sockNonBlockCloexec, 0)
    guard fd >= 0 else { throw SystemError("socket") }
    let result = address.withSockaddr { connect(fd, $0, $1) }
    if result != 0 && errno != EINPROGRESS {
      let error = SystemError("connect")
      close(fd)
      throw error
    }
    setNoDelay(fd)
    return fd
  }

  /// The pending error of a socket (after a non-blocking connect), 0 when none.
  static func pendingError(_ fd: Int32) -> Int32 {
    var error: Int32 = 0
    var length = socklen_t(MemoryLayout<Int32>.size)
    getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length)
    return error
  }

  static func setNoDelay(_ fd: Int32) {
    var one: Int32 = 1
    setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
  }

  static func localPort(_ fd: Int32) -> Int {
    var storage = sockaddr_storage()
    var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
    _ = withUnsafeMutablePointer(to: &storage) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
    }
    return SocketAddress(storage: storage).port
  }

  /// Accepts one connection: the socket and the peer's address, nil when none is waiting.
  static func accept(_ listener: Int32) throws(SystemError) -> (fd: Int32, remote: String)? {
    var storage = sockaddr_storage()
    var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
    let fd = withUnsafeMutablePointer(to: &storage) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        accept4(listener, $0, &length, sockNonBlockCloexec)
      }
    }
    if fd < 0 {
      let code = errno
      if code == EAGAIN || code == EWOULDBLOCK || code == ECONNABORTED || code == EINTR {
        return nil
      }
      throw SystemError("accept4", errno: code)
    }
    setNoDelay(fd)
    return (fd, SocketAddress(storage: storage).description)
  }

  /// Resolves `host` to its first address. May block on DNS for a name that is not numeric.
  static func resolve(host: String, port: Int, passive: Bool = false) throws -> SocketAddress {
    var hints = addrinfo()
    hints.ai_family = AF_UNSPEC
    hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
    hints.ai_flags = passive ? AI_PASSIVE : 0
    var result: UnsafeMutablePointer<addrinfo>?
    let status = getaddrinfo(host, String(port), &hints, &result)
    guard status == 0, let first = result else {
      throw SystemError("getaddrinfo(\(host))", errno: EHOSTUNREACH)
    }
    defer { freeaddrinfo(result) }
    var storage = sockaddr_storage()
    withUnsafeMutableBytes(of: &storage) { target in
      target.copyMemory(
        from: UnsafeRawBufferPointer(
          start: first.pointee.ai_addr, count: Int(first.pointee.ai_addrlen)))
    }
    return SocketAddress(storage: storage)
  }
}

/// An IPv4 or IPv6 socket address.
struct SocketAddress: CustomStringConvertible {
  var storage: sockaddr_storage

  var family: Int32 { Int32(storage.ss_family) }

  var length: socklen_t {
    socklen_t(
      family == AF_INET6 ? MemoryLayout<sockaddr_in6>.size : MemoryLayout<sockaddr_in>.size)
  }

  var port: Int {
    withUnsafeBytes(of: storage) { raw in
      if family == AF_INET6 {
        Int(UInt16(bigEndian: raw.load(as: sockaddr_in6.self).sin6_port))
      } else {
        Int(UInt16(bigEndian: raw.load(as: sockaddr_in.self).sin_port))
      }
    }
  }

  func withSockaddr<T>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> T) -> T {
    withUnsafeBytes(of: storage) { raw in
      body(raw.baseAddress!.assumingMemoryBound(to: sockaddr.self), length)
    }
  }

  /// The numeric host, without the port.
  var description: String {
    var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
    withUnsafeBytes(of: storage) { raw in
      if family == AF_INET6 {
        var address = raw.load(as: sockaddr_in6.self).sin6_addr
        _ = inet_ntop(AF_INET6, &address, &text, socklen_t(text.count))
      } else if family == AF_INET {
        var address = raw.load(as: sockaddr_in.self).sin_addr
        _ = inet_ntop(AF_INET, &address, &text, socklen_t(text.count))
      }
    }
    return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }
}

let sockNonBlockCloexec = Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue)

/// Milliseconds on the monotonic clock: the time base of every timeout.
func monotonicMilliseconds() -> Int64 {
  var now = timespec()
  clock_gettime(CLOCK_MONOTONIC, &now)
  return Int64(now.tv_sec) * 1000 + Int64(now.tv_nsec) / 1_000_000
}

extension Duration {
  /// The duration in whole milliseconds, at least 1 for a positive duration.
  var milliseconds: Int64 {
    let (seconds, attoseconds) = components
    let value = seconds * 1000 + attoseconds / 1_000_000_000_000_000
    return value == 0 && attoseconds > 0 ? 1 : value
  }
}
